/**
 * An attempt against the repo's labelled PRs: once it is done, one
 * reliability card per rule (reliability-card.ts); under the cards, one
 * line per labelled PR with its status, its labels and the answers its
 * runs gave, in the file's order.
 */
import type { ExamplesLine, TryOutExamples } from '../core/wire/types.ts'
import type { Attempt } from './attempt.ts'
import { type Child, external, h } from './dom.ts'
import { plural, verdictLabel } from './format.ts'
import { reliabilityCard } from './reliability-card.ts'

const LINE_STATUS_WORDS: Record<ExamplesLine['status'], string> = {
  waiting: 'waiting',
  running: 'running…',
  done: 'done',
  failed: 'failed',
}

/** "datetime: match 95, match 93": each labelled rule's answers on one PR, in the order asked. */
function answersOf(line: ExamplesLine, name: string): string {
  const given = line.runs.map((rows) => {
    if (rows === null) return line.status === 'failed' ? 'no answer' : '…'
    const row = rows.find((candidate) => candidate.name === name)
    if (row === undefined || row.verdict === null) return 'no answer'
    return `${verdictLabel(row.verdict)}${row.certainty === null ? '' : ` ${row.certainty}`}`
  })
  return given.join(', ')
}

function pullLine(line: ExamplesLine): HTMLElement {
  const names = Object.keys(line.expect)
  return h(
    'tr',
    { 'data-pr': String(line.pr), class: line.status === 'failed' ? 'row--error' : undefined },
    h(
      'th',
      { scope: 'row', class: 'grid-pull' },
      external(line.url, `#${line.pr}`),
      line.title === '' ? null : ' ',
      line.title === '' ? null : h('span', { class: 'grid-title' }, line.title),
    ),
    h(
      'td',
      { 'data-label': 'Status', class: `examples-status examples-status--${line.status}` },
      LINE_STATUS_WORDS[line.status],
      line.detail === null ? null : h('span', { class: 'cell-error' }, `: ${line.detail}`),
    ),
    h(
      'td',
      { 'data-label': 'Labels and answers' },
      h(
        'ul',
        { class: 'examples-labels' },
        ...names.map((name) =>
          h(
            'li',
            {},
            h('span', { class: 'examples-rule' }, name),
            `: labelled ${verdictLabel(line.expect[name] ?? null)}; answered ${answersOf(line, name)}`,
          ),
        ),
      ),
    ),
  )
}

function pullLines(attempt: Attempt, examples: TryOutExamples): HTMLElement {
  return h(
    'div',
    {
      class: 'table-wrap',
      role: 'region',
      tabindex: '0',
      'aria-label': `Attempt ${attempt.number}: one line per labelled PR`,
    },
    h(
      'table',
      { class: 'grid examples-lines' },
      h('caption', { class: 'visually-hidden' }, `Attempt ${attempt.number}: the labelled PRs and their status`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Labelled PR'),
          h('th', { scope: 'col' }, 'Status'),
          h('th', { scope: 'col' }, 'Labels and answers'),
        ),
      ),
      h('tbody', {}, ...examples.pulls.map(pullLine)),
    ),
  )
}

/** The cards once scored, then the labelled PRs' lines. */
export function examplesBody(attempt: Attempt): Child {
  const view = attempt.view
  const examples = view?.examples
  if (view === null || examples === undefined) return null
  const score = view.score ?? null
  const cards =
    score === null
      ? view.status === 'running'
        ? h('p', { class: 'muted' }, "Each rule's reliability card comes once every labelled PR has run.")
        : null
      : h(
          'div',
          { class: 'reliability-cards' },
          ...score.classifications.map((scored) => {
            const sent = attempt.sent.find((entry) => entry.name === scored.name) ?? scored
            return reliabilityCard(attempt.id, sent, scored, examples)
          }),
        )
  const unknown = score?.unknown_labels ?? []
  return h(
    'div',
    { class: 'examples-body' },
    cards,
    unknown.length === 0
      ? null
      : h(
          'p',
          { class: 'hint' },
          `Left out of the score, naming no classification sent: ${unknown.map(({ pr, name }) => `#${pr} ${name}`).join(', ')}.`,
        ),
    h('h4', { class: 'examples-lines-title' }, `${plural(examples.pulls.length, 'labelled PR')}`),
    pullLines(attempt, examples),
  )
}
