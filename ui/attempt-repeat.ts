/**
 * A repeated attempt's table: each rule asked k times on one PR, its
 * answers in the order asked, how often its verdict flipped (a rule that
 * flips is flagged unstable) and the spread of its certainty.
 */
import type { RecordedRow, RepeatedClassification } from '../core/wire/types.ts'
import { type Attempt, outcomeWords } from './attempt.ts'
import { type Child, h } from './dom.ts'
import { rowErrorText, verdictLabel } from './format.ts'

function verdictCounts(entry: RepeatedClassification): string {
  const parts: string[] = []
  for (const verdict of ['match', 'no-match', 'not-applicable'] as const) {
    const count = entry.verdicts[verdict]
    if (count > 0) parts.push(`${verdictLabel(verdict)} ×${count}`)
  }
  if (entry.verdicts.unanswered > 0) parts.push(`no answer ×${entry.verdicts.unanswered}`)
  return parts.length > 0 ? parts.join(', ') : '—'
}

function answerChip(row: RecordedRow, index: number): HTMLElement {
  const label = row.verdict === null ? 'no answer' : verdictLabel(row.verdict)
  return h(
    'li',
    {},
    h('span', { class: 'visually-hidden' }, `Answer ${index + 1}: `),
    h(
      'span',
      {
        class: `verdict verdict--${row.verdict === null ? 'none' : row.counted ? (row.fails ? 'fails' : 'passes') : 'uncounted'}`,
      },
      label,
      row.certainty === null ? null : h('span', { class: 'chip-certainty' }, ` ${row.certainty}`),
      h('span', { class: 'chip-outcome' }, ` · ${outcomeWords(row)}`),
    ),
  )
}

/** Every answer's reason, in the order asked, behind one summary a keyboard opens. */
function reasonsOf(name: string, answers: readonly RecordedRow[]): Child {
  if (answers.length === 0) return null
  return h(
    'details',
    { class: 'reason-details' },
    h('summary', {}, `Reasons (${answers.length})`),
    h(
      'ol',
      { class: 'reasons', 'aria-label': `${name}: reasons in the order asked` },
      ...answers.map((row) =>
        h(
          'li',
          {},
          `${row.verdict === null ? 'no answer' : verdictLabel(row.verdict)}: `,
          row.error === null ? (row.reason ?? '') : rowErrorText(row),
        ),
      ),
    ),
  )
}

/** "2 of 5 fail": how often the rule's answer failed the review. */
function tally(answers: readonly RecordedRow[]): string {
  const fail = answers.filter((row) => row.counted && row.fails).length
  const uncounted = answers.filter((row) => !row.counted).length
  return `${fail} of ${answers.length} fail${uncounted > 0 ? `, ${uncounted} uncounted` : ''}`
}

function stabilityOf(entry: RepeatedClassification | undefined, running: boolean, count: number): HTMLElement {
  const answers = entry?.answers.length ?? 0
  if (entry !== undefined && entry.flips > 0) return h('span', { class: 'badge badge--unstable' }, 'unstable')
  if (running) return h('span', { class: 'muted' }, `${answers} of ${count} in`)
  if (answers === 0) return h('span', { class: 'muted' }, 'no answer')
  return h('span', { class: 'badge badge--stable' }, 'stable')
}

/** A repeat: per rule its stability, verdict counts, flips and certainty spread, then its answers in the order asked. */
export function repeatBody(attempt: Attempt): Child {
  const entries = attempt.view?.repeat?.classifications ?? []
  const running = attempt.view === null || attempt.view.status === 'running'
  const byName = new Map(entries.map((entry) => [entry.name, entry]))
  const columns = ['Classification', 'Stability', 'Verdicts', 'Flips', 'Certainty']
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'rows repeat' },
      h('caption', { class: 'visually-hidden' }, `Attempt ${attempt.number}: each rule asked ${attempt.count} times`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...columns.map((column) =>
            h(
              'th',
              { scope: 'col' },
              column,
              column === 'Certainty' ? h('span', { class: 'rule-terms' }, 'min / median / max') : null,
            ),
          ),
        ),
      ),
      ...attempt.sent.map((classification) => {
        const entry = byName.get(classification.name)
        const certainty = entry?.certainty ?? null
        return h(
          'tbody',
          { 'data-rule': classification.name },
          h(
            'tr',
            { class: 'repeat-summary' },
            h('th', { scope: 'row', 'data-label': 'Classification' }, classification.name),
            h('td', { 'data-label': 'Stability' }, stabilityOf(entry, running, attempt.count)),
            h(
              'td',
              { 'data-label': 'Verdicts' },
              entry === undefined ? '—' : verdictCounts(entry),
              entry === undefined ? null : h('span', { class: 'rule-terms tally' }, tally(entry.answers)),
            ),
            h('td', { 'data-label': 'Flips', class: 'flips' }, entry === undefined ? '—' : String(entry.flips)),
            h(
              'td',
              { 'data-label': 'Certainty' },
              certainty === null ? '—' : `${certainty.min} / ${certainty.median} / ${certainty.max}`,
            ),
          ),
          h(
            'tr',
            { class: 'repeat-answers' },
            h(
              'td',
              { colspan: String(columns.length), 'data-label': 'Answers in the order asked' },
              h(
                'ol',
                { class: 'chips', 'aria-label': `${classification.name}: answers in the order asked` },
                ...(entry?.answers ?? []).map(answerChip),
              ),
              reasonsOf(classification.name, entry?.answers ?? []),
            ),
          ),
        )
      }),
    ),
  )
}
