/**
 * A replayed attempt's grid: one line per recent PR, newest first, one
 * column per rule, each cell the verdict, certainty and what it does to the
 * review in words, its reason a keyboard can open, what changed since
 * the attempt before, and its label (label-cell.ts); under the grid, each
 * rule's tally and which PRs the replay skipped and why.
 */
import type { Classification, RecordedRow, ReplayLine } from '../core/wire/types.ts'
import { type Attempt, changeNotes, keyOf, outcomeWords, rowsOf, type VerdictKey } from './attempt.ts'
import { type Child, external, h } from './dom.ts'
import { overallWords, plural } from './format.ts'
import type { LabelBook } from './label-book.ts'
import { labelControl, labelTally } from './label-cell.ts'
import { reasonDetails } from './reason.ts'
import { noteMark, verdictBadge } from './rows.ts'

type GridContext = { repo: string; before: Map<VerdictKey, RecordedRow>; labels: LabelBook }

function gridCell(line: ReplayLine, classification: Classification, context: GridContext): HTMLElement {
  const row = line.rows?.find((candidate) => candidate.name === classification.name)
  if (row === undefined) {
    const text = line.status === 'waiting' ? 'waiting' : line.status === 'running' ? 'running…' : 'no row'
    return h('td', { 'data-label': classification.name, class: 'cell--pending' }, text)
  }
  return h(
    'td',
    { 'data-label': classification.name },
    verdictBadge(row),
    row.certainty === null ? null : h('span', { class: 'cell-certainty' }, ` ${row.certainty}`),
    h('span', { class: `outcome outcome--${outcomeWords(row)}` }, outcomeWords(row)),
    row.error === null ? null : h('span', { class: 'cell-error' }, ` ${row.error.kind}`),
    ...changeNotes(context.before.get(keyOf(line.pr, row.name)), row).map(noteMark),
    reasonDetails(row),
    labelControl(context.labels, context.repo, line.pr, row),
  )
}

/** "2 of 5 fail" for one rule over the lines that answered it, and on a line of its own how many are labelled. */
function tally(lines: readonly ReplayLine[], name: string, context: GridContext): Child[] {
  const cells = lines.flatMap((line) =>
    (line.rows ?? []).filter((row) => row.name === name).map((row) => ({ pr: line.pr, row })),
  )
  const rows = cells.map((cell) => cell.row)
  const fail = rows.filter((row) => row.counted && row.fails).length
  const uncounted = rows.filter((row) => !row.counted).length
  const labelled = labelTally(context.labels, context.repo, cells)
  return [
    `${fail} of ${rows.length} fail${uncounted > 0 ? `, ${uncounted} uncounted` : ''}`,
    labelled === null ? null : h('span', { class: 'visually-hidden' }, '; '),
    labelled === null ? null : h('span', { class: 'tally-labels' }, labelled),
  ]
}

/** How many PRs the replay asked for and ran, and why the others weren't. */
function skipped(attempt: Attempt, lines: readonly ReplayLine[]): string | null {
  const failed = lines.filter((line) => line.status === 'failed').length
  const short = attempt.count - lines.length
  const parts = [
    short > 0
      ? `${plural(short, 'PR')} of the ${attempt.count} asked for skipped: the repo has only ${plural(lines.length, 'open or merged PR')} (a PR closed without merging is never replayed)`
      : null,
    failed > 0 ? `${plural(failed, 'PR')} couldn't be run (the reason is on its line)` : null,
  ].filter((part) => part !== null)
  return parts.length > 0 ? `${parts.join('; ')}.` : null
}

function overallCell(line: ReplayLine, before: Attempt | null): Child {
  if (line.overall === null) return null
  const was = before?.view?.replay?.pulls.find((other) => other.pr === line.pr)?.overall ?? null
  const changed = was !== null && was !== line.overall
  return h(
    'span',
    { class: 'grid-overall' },
    ` ${overallWords(line.overall)}`,
    changed ? h('span', { class: 'note note--outcome' }, `was ${overallWords(was)}`) : null,
  )
}

/** A replay: one line per PR, one column per rule, what changed since the attempt before marked. */
export function replayBody(attempt: Attempt, previous: Attempt | null, labels: LabelBook): Child {
  const lines = attempt.view?.replay?.pulls ?? []
  const before = previous === null ? new Map<VerdictKey, RecordedRow>() : rowsOf(previous)
  const context: GridContext = { repo: attempt.repo, before, labels }
  if (attempt.view !== null && lines.length === 0) return h('p', { class: 'muted' }, 'No PR to replay.')
  const ended = attempt.view !== null && attempt.view.status !== 'running'
  const skip = ended ? skipped(attempt, lines) : null
  return h(
    'div',
    {},
    h(
      'div',
      {
        class: 'table-wrap',
        role: 'region',
        tabindex: '0',
        'aria-label': `Attempt ${attempt.number}: one line per PR`,
      },
      h(
        'table',
        { class: 'grid' },
        h('caption', { class: 'visually-hidden' }, `Attempt ${attempt.number}: verdict and certainty per PR and rule`),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Pull request'),
            ...attempt.sent.map((c) => h('th', { scope: 'col' }, c.name)),
          ),
        ),
        h(
          'tbody',
          {},
          ...lines.map((line) =>
            h(
              'tr',
              { 'data-pr': String(line.pr), class: line.status === 'failed' ? 'row--error' : undefined },
              h(
                'th',
                { scope: 'row', class: 'grid-pull' },
                external(line.url, `#${line.pr}`),
                ' ',
                h('span', { class: 'grid-title' }, line.title),
                overallCell(line, previous),
              ),
              ...(line.status === 'failed' && (line.rows ?? []).length === 0
                ? [
                    h(
                      'td',
                      { colspan: String(Math.max(1, attempt.sent.length)), class: 'cell-failed' },
                      line.detail ?? 'failed',
                    ),
                  ]
                : attempt.sent.map((classification) => gridCell(line, classification, context))),
            ),
          ),
        ),
        h(
          'tfoot',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'row', class: 'tally' }, 'Tally'),
            ...attempt.sent.map((c) =>
              h('td', { 'data-label': c.name, class: 'tally' }, ...tally(lines, c.name, context)),
            ),
          ),
        ),
      ),
    ),
    skip === null ? null : h('p', { class: 'hint replay-skipped' }, skip),
  )
}
