/**
 * The labels part of the open-a-PR preview: which of the page's labels the
 * branch writes into the examples file, PR by PR (merged by PR number, as
 * the controller does: core/repo-files/examples-merge.ts), which it leaves out and
 * why, and whether they are fit to send at all. The labels sent are what
 * the preview shows, nothing else.
 */
import type { Classification } from '../core/wire/types.ts'
import { type Child, h } from './dom.ts'
import { plural } from './format.ts'
import type { ExamplesFile, LabelBook } from './label-book.ts'
import {
  changesFile,
  LABEL_WORDS,
  labelChanges,
  labelsProblem,
  labelsToSend,
  NEW_EXAMPLES_PATH,
  type PrLabelChange,
  type PrLabels,
} from './labels.ts'

export type LabelsPreview = {
  /** The POST's `labels`: empty when there are none to send, or when they can't be sent. */
  labels: PrLabels[]
  /** Whether the push has to wait: labels that break the examples file's rules. */
  blocked: boolean
  /** Whether the labels change the examples file. */
  changes: boolean
  element: Child
}

function where(file: ExamplesFile): string {
  switch (file.kind) {
    case 'read':
      return `${file.path} on ${file.branch}`
    case 'none':
      return `a new ${NEW_EXAMPLES_PATH}`
    case 'unreadable':
      return `the examples file (it can't be read now: ${file.detail})`
    case 'reading':
      return 'the examples file'
  }
}

/** "#12 (a new entry): datetime match (was no match), no-ads n.a. (already so)" */
function changeLine(change: PrLabelChange): HTMLElement {
  const words = change.labels.map(({ name, verdict, was }) => {
    const before = was === null ? '' : was === verdict ? ' (already so)' : ` (was ${LABEL_WORDS[was]})`
    return `${name} ${LABEL_WORDS[verdict]}${before}`
  })
  return h(
    'li',
    { 'data-pr': String(change.pr) },
    `#${change.pr}${change.added ? ' (a new entry)' : ''}: ${words.join(', ')}`,
  )
}

/** The labels `repo` gets, against the examples file and the rules of the draft and the repo. */
export async function labelsPreview(
  repo: string,
  names: readonly Classification['name'][],
  book: LabelBook,
): Promise<LabelsPreview> {
  const { labels, leftOut } = labelsToSend(book.list(), repo, names)
  const none = { labels: [], blocked: false, changes: false }
  const leftOutNote =
    leftOut.length === 0
      ? null
      : h(
          'p',
          { class: 'hint', id: 'open-pr-labels-left-out' },
          `Left out, naming no rule of the draft or of the repo: ${leftOut.map(({ pr, name }) => `#${pr} ${name}`).join(', ')}.`,
        )
  if (labels.length === 0) return { ...none, element: leftOutNote }
  const file = await book.readFile(repo, true)
  const examples = file.kind === 'read' ? file.examples : []
  const changes = labelChanges(labels, examples)
  const problem = labelsProblem(changes, examples)
  const element = h(
    'section',
    { class: 'open-pr-labels', 'aria-labelledby': 'open-pr-labels-title' },
    h(
      'p',
      { id: 'open-pr-labels-title' },
      h('strong', {}, `And ${where(file)}: `),
      `the labels of ${plural(labels.length, 'PR')}, merged by PR number (its other entries, notes and comments stay).`,
    ),
    h('ul', { class: 'open-pr-label-list' }, ...changes.map(changeLine)),
    file.kind === 'unreadable' && file.status === 422
      ? h('p', { class: 'warn-text' }, "The controller refuses labels while the repo's examples file doesn't load.")
      : null,
    problem === null
      ? null
      : h('p', { class: 'error', role: 'alert', id: 'open-pr-labels-error' }, `Nothing can be pushed: ${problem}.`),
    leftOutNote,
  )
  if (problem !== null) return { ...none, blocked: true, element }
  return { labels, blocked: false, changes: changesFile(changes), element }
}
