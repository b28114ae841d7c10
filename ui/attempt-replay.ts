/**
 * A replayed attempt's grid: one line per recent PR, newest first, one
 * column per rule, each cell the verdict and certainty, or why there is none.
 */
import type { Classification, ReplayLine, Verdict } from '../core/types.ts'
import { type Attempt, keyOf, type VerdictKey, verdictsOf } from './attempt.ts'
import { type Child, external, h } from './dom.ts'
import { rowErrorText, verdictLabel } from './format.ts'
import { verdictBadge } from './rows.ts'

function gridCell(
  line: ReplayLine,
  classification: Classification,
  before: Map<VerdictKey, Verdict | null>,
): HTMLElement {
  const row = line.rows?.find((candidate) => candidate.name === classification.name)
  if (row === undefined) {
    const text = line.status === 'waiting' ? 'waiting' : 'running…'
    return h('td', { 'data-label': classification.name, class: 'cell--pending' }, text)
  }
  const key = keyOf(line.pr, row.name)
  const was = before.get(key)
  const changed = before.has(key) && (was ?? null) !== row.verdict
  return h(
    'td',
    { 'data-label': classification.name, title: row.error === null ? (row.reason ?? '') : rowErrorText(row) },
    verdictBadge(row),
    row.certainty === null ? null : h('span', { class: 'cell-certainty' }, ` ${row.certainty}`),
    row.counted && row.fails ? h('span', { class: 'badge badge--fails' }, 'fails') : null,
    row.error === null ? null : h('span', { class: 'cell-error' }, ` ${row.error.kind}`),
    changed ? h('span', { class: 'note note--changed' }, `changed (was ${verdictLabel(was ?? null)})`) : null,
  )
}

/** A replay: one line per PR, one column per rule, a verdict changed since the attempt before marked. */
export function replayBody(attempt: Attempt, previous: Attempt | null): Child {
  const lines = attempt.view?.replay?.pulls ?? []
  const before = previous === null ? new Map<VerdictKey, Verdict | null>() : verdictsOf(previous)
  if (attempt.view !== null && lines.length === 0) return h('p', { class: 'muted' }, 'No PR to replay.')
  return h(
    'div',
    { class: 'table-wrap', role: 'region', tabindex: '0', 'aria-label': `Attempt ${attempt.number}: one line per PR` },
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
            ),
            ...(line.status === 'failed' && (line.rows ?? []).length === 0
              ? [
                  h(
                    'td',
                    { colspan: String(Math.max(1, attempt.sent.length)), class: 'cell-failed' },
                    line.detail ?? 'failed',
                  ),
                ]
              : attempt.sent.map((classification) => gridCell(line, classification, before))),
          ),
        ),
      ),
    ),
  )
}
