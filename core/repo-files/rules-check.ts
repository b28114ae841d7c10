/**
 * The checks of "Repo configuration" (docs/behaviour.md) on a format-neutral
 * source tree: what a rules file (read by rules-file.ts through
 * rules-source.ts) and a request body's classifications are both held to,
 * with the same messages. No parser here, so the try-out page bundles these
 * very checks for its editor without the YAML reader (ui/).
 *
 * A problem with one entry also says which entry (0-based) and, when it is
 * about one key, which key, so an editor can show it next to the field.
 */

import type { Result } from '../base/result.ts'
import { quoteInput } from '../base/text.ts'
import { DESCRIPTION_MAX_CHARS, MAX_CLASSIFICATIONS, NAME_MAX_CHARS } from '../wire/limits.ts'
import type { Classification, Mode, Polarity } from '../wire/types.ts'
import { checkPaths } from './paths-check.ts'
import {
  checkSourceTree,
  checkSourceValue,
  describe,
  describeKey,
  type EntryProblem,
  lengthProblem,
  linesCharProblem,
  nameCharProblem,
  type ProblemSink,
  type SourceList,
  type SourceNode,
  type SourceProblem,
  valueAt,
  wholeNumber,
  yaml11Problem,
} from './source-tree.ts'

// What the examples file's checks share with these lives in source-tree.ts; the rules' own names stay here.
export {
  formatSourceProblem as formatRulesProblem,
  formatSourceProblems as formatRulesProblems,
  type SourceNode,
} from './source-tree.ts'

/** An entry's keys in the order a file is written in: the four every entry has, then the two optional ones. */
export const CLASSIFICATION_KEYS = ['name', 'description', 'threshold', 'polarity', 'paths', 'mode'] as const
export type ClassificationKey = (typeof CLASSIFICATION_KEYS)[number]
/** The keys every entry has. */
export const REQUIRED_CLASSIFICATION_KEYS = ['name', 'description', 'threshold', 'polarity'] as const

/** A problem with a rules file or a body's classifications; `key` names one of an entry's keys. */
export type RulesProblem = SourceProblem<ClassificationKey>

/**
 * The same rule, as the merge and the open-a-PR commit message compare
 * them: its four keys, its patterns in order, and its mode (absent is
 * `blocking`).
 */
export function sameClassification(a: Classification, b: Classification | undefined): boolean {
  return (
    b !== undefined &&
    a.name === b.name &&
    a.description === b.description &&
    a.threshold === b.threshold &&
    a.polarity === b.polarity &&
    JSON.stringify(a.paths ?? null) === JSON.stringify(b.paths ?? null) &&
    (a.mode ?? 'blocking') === (b.mode ?? 'blocking')
  )
}

/** The rules file's list, as the checks shared with the examples file (source-tree.ts) take it. */
const RULES_LIST: SourceList<Classification, ClassificationKey> = {
  key: 'classifications',
  max: MAX_CLASSIFICATIONS,
  identify: (entry) => {
    const name = usableName(entry)
    return name === null ? null : { id: name, shown: `name ${quoteInput(name)}` }
  },
  duplicate: (_name, first) => ({ detail: `the name is already used by ${first}; names must be unique`, key: 'name' }),
  check: checkEntry,
}

/**
 * Checks an already-parsed value (a request body's `classifications`) with
 * the same rules and messages as the file; `label` names it in messages.
 */
export function validateClassifications(value: unknown, label: string): Result<Classification[], RulesProblem[]> {
  return checkSourceValue(value, label, RULES_LIST)
}

/** Checks a parsed file against "Repo configuration". */
export function validateRulesTree(file: string, root: SourceNode): Result<Classification[], RulesProblem[]> {
  return checkSourceTree(file, root, RULES_LIST)
}

function usableName(entry: SourceNode): string | null {
  const name = valueAt(entry, 'name')
  if (name?.kind !== 'scalar' || typeof name.value !== 'string' || name.value.trim() === '') return null
  return name.value
}

/** Where a check of one value puts its problems. */
function checkEntry(entry: SourceNode, entryProblems: EntryProblem<ClassificationKey>[]): Classification | null {
  const about = (key: ClassificationKey | null): ProblemSink => ({
    push: (detail: string) => entryProblems.push({ detail, key }),
  })
  const problems = about(null)
  if (entry.kind !== 'map') {
    problems.push(`must be a mapping with the keys ${KEYS_IN_WORDS}, got ${describe(entry)}`)
    return null
  }
  const values = new Map<string, SourceNode>()
  for (const { key, value } of entry.entries) {
    const known = CLASSIFICATION_KEYS.find((name) => key.kind === 'scalar' && key.value === name)
    if (known === undefined) {
      problems.push(`unknown key ${describeKey(key)}; an entry has the keys ${KEYS_IN_WORDS}`)
    } else {
      values.set(known, value)
    }
  }
  for (const key of REQUIRED_CLASSIFICATION_KEYS) {
    if (!values.has(key)) about(key).push(`missing key "${key}"`)
  }
  const name = checkText('name', values.get('name'), about('name'))
  const description = checkText('description', values.get('description'), about('description'))
  const threshold = checkThreshold(values.get('threshold'), about('threshold'))
  const polarity = checkPolarity(values.get('polarity'), about('polarity'))
  const pathsNode = values.get('paths')
  const paths = pathsNode === undefined ? undefined : checkPaths(pathsNode, about('paths'))
  const modeNode = values.get('mode')
  const mode = modeNode === undefined ? undefined : checkMode(modeNode, about('mode'))
  if (name === null || description === null || threshold === null || polarity === null) return null
  if (paths === null || mode === null) return null
  return {
    name,
    description,
    threshold,
    polarity,
    ...(paths === undefined ? {} : { paths }),
    ...(mode === undefined ? {} : { mode }),
  }
}

const KEYS_IN_WORDS = 'name, description, threshold and polarity, and optionally paths and mode'

function checkMode(node: SourceNode, problems: ProblemSink): Mode | null {
  if (node.kind === 'scalar' && (node.value === 'blocking' || node.value === 'advisory')) return node.value
  problems.push(`mode must be "blocking" or "advisory", got ${describe(node)}`)
  return null
}

function checkText(key: 'name' | 'description', node: SourceNode | undefined, problems: ProblemSink): string | null {
  if (node === undefined) return null
  if (node.kind !== 'scalar' || typeof node.value !== 'string') {
    problems.push(`${key} must be a string, got ${describe(node)}`)
    return null
  }
  const unquoted = yaml11Problem(key, node)
  if (unquoted !== null) {
    problems.push(unquoted)
    return null
  }
  if (node.value.trim() === '') {
    problems.push(`${key} is empty`)
    return null
  }
  const held = [
    lengthProblem(key, node.value, key === 'name' ? NAME_MAX_CHARS : DESCRIPTION_MAX_CHARS),
    key === 'name' ? nameCharProblem(key, node.value) : linesCharProblem(key, key, node.value),
  ].filter((problem) => problem !== null)
  for (const problem of held) problems.push(problem)
  return held.length > 0 ? null : node.value
}

function checkThreshold(node: SourceNode | undefined, problems: ProblemSink): number | null {
  if (node === undefined) return null
  const checked = wholeNumber(node, 0, 100, `threshold must be a whole number 0–100, got ${describe(node)}`)
  if (checked.ok) return checked.value
  problems.push(checked.detail)
  return null
}

function checkPolarity(node: SourceNode | undefined, problems: ProblemSink): Polarity | null {
  if (node === undefined) return null
  if (node.kind === 'scalar' && (node.value === 'positive' || node.value === 'negative')) return node.value
  problems.push(`polarity must be "positive" or "negative", got ${describe(node)}`)
  return null
}
