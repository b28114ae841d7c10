/**
 * The checks of a repo's examples file (docs/behaviour.md, "Labelled
 * examples and reliability") on the format-neutral source tree the rules
 * file is read into, with messages in the rules file's words: one key
 * `examples`, a list of 1–50 entries, each exactly `pr`, `expect` and an
 * optional `note`. No parser here, so the try-out page can bundle these
 * checks (ui/).
 *
 * Which labels apply is not the file's business: a label may name a
 * classification the rules no longer have (rules get renamed), and
 * {@link applyLabels} sets those aside as "no such classification".
 */

import type { Result } from '../base/result.ts'
import { quoteInput } from '../base/text.ts'
import { MAX_CLASSIFICATIONS, NAME_MAX_CHARS } from '../wire/limits.ts'
import type { Example, Verdict } from '../wire/types.ts'
import {
  checkSourceTree,
  checkSourceValue,
  describe,
  describeKey,
  type EntryProblem,
  lengthProblem,
  linesCharProblem,
  nameCharProblem,
  type SourceList,
  type SourceNode,
  type SourceProblem,
  valueAt,
  wholeNumber,
  yaml11Problem,
} from './source-tree.ts'

export const EXAMPLES_MAX = 50
/** A PR needs no more labels than the rules can have classifications. */
export const EXAMPLE_LABELS_MAX = MAX_CLASSIFICATIONS
/** A note's length in characters (code points): a sentence or two on why the PR is labelled so. */
export const NOTE_MAX_CHARS = 500

export const EXAMPLE_KEYS = ['pr', 'expect', 'note'] as const
export type ExampleKey = (typeof EXAMPLE_KEYS)[number]
const REQUIRED_KEYS = ['pr', 'expect'] as const satisfies readonly ExampleKey[]
const LABELS = ['match', 'no-match', 'not-applicable'] as const satisfies readonly Verdict[]

/** A problem with an examples file or a body's examples; `key` names one of an entry's three. */
export type ExamplesProblem = SourceProblem<ExampleKey>

const ENTRY_KEYS_WORDS = 'the keys pr and expect, and optionally note'
const PR_PROBLEM = 'pr must be a PR number, a whole number of at least 1'

/** The examples file's list, as the checks shared with the rules file (source-tree.ts) take it. */
const EXAMPLES_LIST: SourceList<Example, ExampleKey> = {
  key: 'examples',
  max: EXAMPLES_MAX,
  identify: (entry) => {
    const pr = usablePr(entry)
    return pr === null ? null : { id: pr, shown: `pr ${pr}` }
  },
  duplicate: (pr, first) => ({ detail: `pr ${pr} is already labelled by ${first}; PRs must be unique`, key: 'pr' }),
  check: checkEntry,
}

/** Checks a parsed examples file; every problem is reported, each naming its entry and key. */
export function validateExamplesTree(file: string, root: SourceNode): Result<Example[], ExamplesProblem[]> {
  return checkSourceTree(file, root, EXAMPLES_LIST)
}

/**
 * Checks an already-parsed value (a request body's `examples`, in the
 * file's shape) with the same rules and messages as the file; `label`
 * names it in messages.
 */
export function validateExamples(value: unknown, label: string): Result<Example[], ExamplesProblem[]> {
  return checkSourceValue(value, label, EXAMPLES_LIST)
}

function usablePr(entry: SourceNode): number | null {
  const node = valueAt(entry, 'pr')
  if (node === undefined) return null
  const checked = checkPr(node)
  return checked.ok ? checked.value : null
}

function checkEntry(entry: SourceNode, problems: EntryProblem<ExampleKey>[]): Example | null {
  const about =
    (key: ExampleKey | null) =>
    (detail: string): void => {
      problems.push({ detail, key })
    }
  if (entry.kind !== 'map') {
    about(null)(`must be a mapping with ${ENTRY_KEYS_WORDS}, got ${describe(entry)}`)
    return null
  }
  const values = new Map<ExampleKey, SourceNode>()
  for (const { key, value } of entry.entries) {
    const known = EXAMPLE_KEYS.find((name) => key.kind === 'scalar' && key.value === name)
    if (known === undefined) about(null)(`unknown key ${describeKey(key)}; an entry has ${ENTRY_KEYS_WORDS}`)
    else values.set(known, value)
  }
  for (const key of REQUIRED_KEYS) if (!values.has(key)) about(key)(`missing key "${key}"`)
  const prNode = values.get('pr')
  const pr = prNode === undefined ? null : checkPr(prNode)
  if (pr !== null && !pr.ok) about('pr')(pr.detail)
  const expectNode = values.get('expect')
  const expect = expectNode === undefined ? null : checkExpect(expectNode, about('expect'))
  const noteNode = values.get('note')
  const note = noteNode === undefined ? undefined : checkNote(noteNode, about('note'))
  if (problems.length > 0 || pr === null || !pr.ok || expect === null || note === null) return null
  return { pr: pr.value, expect, ...(note === undefined ? {} : { note }) }
}

function checkPr(node: SourceNode): { ok: true; value: number } | { ok: false; detail: string } {
  const checked = wholeNumber(node, 1, Number.MAX_SAFE_INTEGER, `${PR_PROBLEM}, got ${describe(node)}`)
  const huge = node.kind === 'scalar' && Number.isInteger(node.value) && Number(node.value) > Number.MAX_SAFE_INTEGER
  if (checked.ok || !huge) return checked
  // A whole number past what a number keeps exactly: no forge numbers its PRs so high.
  return { ok: false, detail: `pr is ${describe(node)}, more than any PR number (at most ${Number.MAX_SAFE_INTEGER})` }
}

function checkExpect(node: SourceNode, push: (detail: string) => void): Record<string, Verdict> | null {
  if (node.kind !== 'map') {
    push(`expect must be a mapping of classification names to match, no-match or not-applicable, got ${describe(node)}`)
    return null
  }
  const count = node.entries.length
  if (count === 0) push(`expect is empty; it needs 1 to ${EXAMPLE_LABELS_MAX} labels`)
  if (count > EXAMPLE_LABELS_MAX) push(`expect has ${count} labels; at most ${EXAMPLE_LABELS_MAX} are allowed`)
  const labels: [string, Verdict][] = []
  let sound = count >= 1 && count <= EXAMPLE_LABELS_MAX
  for (const { key, value } of node.entries) {
    const name = checkLabelName(key, push)
    const label = checkLabel(key, value, push)
    if (name === null || label === null) sound = false
    else labels.push([name, label])
  }
  // Object.fromEntries defines own keys, so a name like "__proto__" stays a name.
  return sound ? Object.fromEntries(labels) : null
}

/** A key of `expect` is held to a classification's name rules, so it can name one. */
function checkLabelName(key: SourceNode, push: (detail: string) => void): string | null {
  if (key.kind !== 'scalar' || typeof key.value !== 'string') {
    push(`expect key ${describe(key)} must be a classification's name, a string`)
    return null
  }
  const unquoted = yaml11Problem('expect key', key)
  if (unquoted !== null) {
    push(unquoted)
    return null
  }
  const subject = `expect key ${quoteInput(key.value)}`
  if (key.value.trim() === '') {
    push(`${subject} is empty`)
    return null
  }
  const held = [lengthProblem(subject, key.value, NAME_MAX_CHARS), nameCharProblem(subject, key.value)].filter(
    (problem) => problem !== null,
  )
  for (const problem of held) push(problem)
  return held.length > 0 ? null : key.value
}

function checkLabel(key: SourceNode, value: SourceNode, push: (detail: string) => void): Verdict | null {
  const label = LABELS.find((candidate) => value.kind === 'scalar' && value.value === candidate)
  if (label !== undefined) return label
  push(`expect ${describeKey(key)} must be "match", "no-match" or "not-applicable", got ${describe(value)}`)
  return null
}

function checkNote(node: SourceNode, push: (detail: string) => void): string | null {
  if (node.kind !== 'scalar' || typeof node.value !== 'string') {
    push(`note must be a string, got ${describe(node)}`)
    return null
  }
  const unquoted = yaml11Problem('note', node)
  if (unquoted !== null) {
    push(unquoted)
    return null
  }
  if (node.value.trim() === '') {
    push('note is empty; leave the key out instead')
    return null
  }
  const held = [lengthProblem('note', node.value, NOTE_MAX_CHARS), linesCharProblem('note', 'note', node.value)].filter(
    (problem) => problem !== null,
  )
  for (const problem of held) push(problem)
  return held.length > 0 ? null : node.value
}

/** One PR labelled for one classification. */
export type LabelledPr = { pr: number; expected: Verdict }

/** A label naming a classification that isn't among those given. */
export type UnknownLabel = { pr: number; name: string }

export type AppliedLabels = {
  /** One per classification given, in that order: the PRs labelled for it, in the file's order. */
  classifications: { name: string; labelled: LabelledPr[] }[]
  /** Every PR with at least one label that applies, in the file's order: the PRs to run. */
  prs: number[]
  /** The labels left out, in the file's order: "no such classification". */
  unknown: UnknownLabel[]
}

/**
 * Which of the examples' labels apply to `classifications` (the rules, or a
 * try-out's drafts). A label naming none of them is not a problem with the
 * file (rules get renamed): it is set aside in `unknown` and left out.
 */
export function applyLabels(examples: readonly Example[], classifications: readonly { name: string }[]): AppliedLabels {
  const byName = new Map<string, LabelledPr[]>(classifications.map(({ name }) => [name, []]))
  const prs: number[] = []
  const unknown: UnknownLabel[] = []
  for (const { pr, expect } of examples) {
    let applies = false
    for (const [name, expected] of Object.entries(expect)) {
      const labelled = byName.get(name)
      if (labelled === undefined) {
        unknown.push({ pr, name })
        continue
      }
      labelled.push({ pr, expected })
      applies = true
    }
    if (applies) prs.push(pr)
  }
  return {
    classifications: classifications.map(({ name }) => ({ name, labelled: byName.get(name) ?? [] })),
    prs,
    unknown,
  }
}

/** How a label left out reads: `pr 12: no such classification "old-name"; its label is left out`. */
export function describeUnknownLabel({ pr, name }: UnknownLabel): string {
  return `pr ${pr}: no such classification ${quoteInput(name)}; its label is left out`
}
