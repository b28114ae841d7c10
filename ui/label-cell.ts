/**
 * The label of one replay cell (a PR and a rule): a select in words (match,
 * no match, n.a., or none, which shows the examples file's label when it
 * has one), named for its PR and rule, and, when the label and the counted
 * answer disagree, that in words, judged as the score judges it
 * (core/try-out/reliability.ts). A grid's tally says how many cells are labelled.
 * The repo's examples file is read when a label is first focused.
 */

import { judgeAnswer } from '../core/try-out/reliability.ts'
import { VERDICTS } from '../core/wire/row-schemas.ts'
import type { RecordedRow, Verdict } from '../core/wire/types.ts'
import { h } from './dom.ts'
import type { LabelBook } from './label-book.ts'
import { LABEL_WORDS, type LabelCell } from './labels.ts'

type Judged = { label: Verdict | null; disagrees: string | null }

/** The label that counts on a cell (the page's, else the file's), and what it says of the answer. */
function judged(book: LabelBook, cell: LabelCell, row: RecordedRow): Judged {
  const label = book.get(cell) ?? book.inFile(cell)
  if (label === null) return { label, disagrees: null }
  const judgement = judgeAnswer(row.polarity, label, row, row.threshold)
  if (judgement.kind !== 'disagree') return { label, disagrees: null }
  const kind =
    judgement.disagreement === 'false-pass'
      ? ': a false pass'
      : judgement.disagreement === 'false-block'
        ? ': a false block'
        : ''
  return { label, disagrees: `disagrees${kind}` }
}

function isVerdict(value: string): value is Verdict {
  return (VERDICTS as readonly string[]).includes(value)
}

/** The label control of a cell with an answer; null for one without (nothing to judge). */
export function labelControl(book: LabelBook, repo: string, pr: number, row: RecordedRow): HTMLElement | null {
  if (row.verdict === null) return null
  const cell: LabelCell = { repo, pr, name: row.name }
  const mine = book.get(cell)
  const file = book.inFile(cell)
  const option = (value: string, text: string) => h('option', { value, selected: (mine ?? '') === value }, text)
  const select = h(
    'select',
    {
      class: mine === null ? 'label-select' : 'label-select label-select--set',
      'aria-label': `Label of #${pr} for ${row.name}`,
      // A select only ever stands for its own cell, so a patched grid never hands it another's.
      'data-key': `label\u0000${repo}\u0000${pr}\u0000${row.name}`,
      on: {
        focus: () => void book.readFile(repo),
        change: () => book.set(cell, isVerdict(select.value) ? select.value : null),
      },
    },
    option('', file === null ? 'label…' : `file: ${LABEL_WORDS[file]}`),
    ...VERDICTS.map((verdict) => option(verdict, LABEL_WORDS[verdict])),
  )
  const { disagrees } = judged(book, cell, row)
  return h(
    'span',
    { class: 'cell-label' },
    select,
    mine !== null && file !== null && mine !== file
      ? h('span', { class: 'label-was' }, `file: ${LABEL_WORDS[file]}`)
      : null,
    commentNote(book.commentOrigin(cell)),
    disagrees === null ? null : h('span', { class: 'note note--disagree' }, disagrees),
  )
}

/** A label given in a PR comment: who gave it, and that the examples file doesn't hold it yet. */
function commentNote(by: string | null): HTMLElement | null {
  if (by === null) return null
  return h('span', { class: 'label-comment', title: `Given in a PR comment by @${by}` }, `@${by}, not yet in the file`)
}

/** "3 labelled, 1 disagrees" for one rule over a grid's answered rows; null with no label. */
export function labelTally(book: LabelBook, repo: string, rows: ReadonlyArray<{ pr: number; row: RecordedRow }>) {
  const answered = rows.filter(({ row }) => row.verdict !== null)
  const seen = answered.map(({ pr, row }) => judged(book, { repo, pr, name: row.name }, row))
  const labelled = seen.filter((entry) => entry.label !== null).length
  if (labelled === 0) return null
  const disagree = seen.filter((entry) => entry.disagrees !== null).length
  return `${labelled} labelled${disagree > 0 ? `, ${disagree} ${disagree === 1 ? 'disagrees' : 'disagree'}` : ''}`
}
