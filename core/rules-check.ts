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
import { DESCRIPTION_MAX_CHARS, MAX_CLASSIFICATIONS, NAME_MAX_CHARS } from './limits.ts'
import { err, ok, type Result } from './result.ts'
import {
  cappedProblem,
  describe,
  describeKey,
  fromPlainValue,
  lengthProblem,
  linesCharProblem,
  nameCharProblem,
  type SourceNode,
  type SourceProblem,
  valueAt,
  wholeNumber,
  yaml11Problem,
} from './source-tree.ts'
import { quoteInput } from './text.ts'
import type { Classification, Polarity } from './types.ts'

// What the examples file's checks share with these lives in source-tree.ts; the rules' own names stay here.
export {
  cappedProblem,
  formatSourceProblem as formatRulesProblem,
  formatSourceProblems as formatRulesProblems,
  fromPlainValue,
  INSPECTED_DEPTH,
  type SourceNode,
} from './source-tree.ts'

export const CLASSIFICATION_KEYS = ['name', 'description', 'threshold', 'polarity'] as const
export type ClassificationKey = (typeof CLASSIFICATION_KEYS)[number]

/** A problem with a rules file or a body's classifications; `key` names one of an entry's four. */
export type RulesProblem = SourceProblem<ClassificationKey>

/**
 * Checks an already-parsed value (a request body's `classifications`) with
 * the same rules and messages as the file; `label` names it in messages.
 */
export function validateClassifications(value: unknown, label: string): Result<Classification[], RulesProblem[]> {
  return collect((problems) => checkList(label, 'classifications', fromPlainValue(value, 0), problems))
}

function collect(check: (problems: RulesProblem[]) => Classification[]): Result<Classification[], RulesProblem[]> {
  const problems: RulesProblem[] = []
  const classifications = check(problems)
  return problems.length > 0 ? err(problems.map(cappedProblem)) : ok(classifications)
}

/** Checks a parsed file against "Repo configuration". */
export function validateRulesTree(file: string, root: SourceNode): Result<Classification[], RulesProblem[]> {
  return collect((problems) => {
    const top = (detail: string): void => {
      problems.push({ file, at: 'top level', detail })
    }
    if (root.kind !== 'map') {
      top(`must be a mapping with the one key "classifications", got ${describe(root)}`)
      return []
    }
    let list: SourceNode | null = null
    for (const { key, value } of root.entries) {
      if (key.kind === 'scalar' && key.value === 'classifications') list = value
      else top(`unknown key ${describeKey(key)}; the only key allowed is "classifications"`)
    }
    if (list === null) {
      top('missing key "classifications"')
      return []
    }
    return checkList(file, 'classifications', list, problems)
  })
}

function checkList(file: string, label: string, list: SourceNode, problems: RulesProblem[]): Classification[] {
  const problem = (
    at: string,
    detail: string,
    where: { entry: number; key: ClassificationKey | null } | null = null,
  ) => {
    const place = where === null ? {} : { entry: where.entry, ...(where.key === null ? {} : { key: where.key }) }
    problems.push({ file, at, detail, ...place })
  }
  if (list.kind !== 'list') {
    problem(label, `must be a list of 1 to ${MAX_CLASSIFICATIONS} classifications, got ${describe(list)}`)
    return []
  }
  if (list.items.length === 0) problem(label, `is empty; it needs 1 to ${MAX_CLASSIFICATIONS} classifications`)
  if (list.items.length > MAX_CLASSIFICATIONS) {
    problem(label, `has ${list.items.length} classifications; at most ${MAX_CLASSIFICATIONS} are allowed`)
  }
  const valid: Classification[] = []
  const firstIndexByName = new Map<string, number>()
  list.items.forEach((item, index) => {
    const name = usableName(item)
    const at = `${label}[${index}]${name === null ? '' : ` (name ${quoteInput(name)})`}`
    const entryProblems: EntryProblem[] = []
    const entry = checkEntry(item, entryProblems)
    if (name !== null) {
      const first = firstIndexByName.get(name)
      if (first === undefined) firstIndexByName.set(name, index)
      else
        entryProblems.push({
          detail: `the name is already used by ${label}[${first}]; names must be unique`,
          key: 'name',
        })
    }
    for (const { detail, key } of entryProblems) problem(at, detail, { entry: index, key })
    if (entry !== null && entryProblems.length === 0) valid.push(entry)
  })
  return valid
}

function usableName(entry: SourceNode): string | null {
  const name = valueAt(entry, 'name')
  if (name?.kind !== 'scalar' || typeof name.value !== 'string' || name.value.trim() === '') return null
  return name.value
}

/** One entry's problem, and the key it is about (null: the entry as a whole). */
type EntryProblem = { detail: string; key: ClassificationKey | null }

/** Where a check of one value puts its problems. */
type ProblemSink = { push(detail: string): unknown }

function checkEntry(entry: SourceNode, entryProblems: EntryProblem[]): Classification | null {
  const about = (key: ClassificationKey | null): ProblemSink => ({
    push: (detail: string) => entryProblems.push({ detail, key }),
  })
  const problems = about(null)
  if (entry.kind !== 'map') {
    problems.push(`must be a mapping with the keys ${CLASSIFICATION_KEYS.join(', ')}, got ${describe(entry)}`)
    return null
  }
  const values = new Map<string, SourceNode>()
  for (const { key, value } of entry.entries) {
    const known = CLASSIFICATION_KEYS.find((name) => key.kind === 'scalar' && key.value === name)
    if (known === undefined) {
      problems.push(`unknown key ${describeKey(key)}; an entry has exactly the keys ${CLASSIFICATION_KEYS.join(', ')}`)
    } else {
      values.set(known, value)
    }
  }
  for (const key of CLASSIFICATION_KEYS) {
    if (!values.has(key)) about(key).push(`missing key "${key}"`)
  }
  const name = checkText('name', values.get('name'), about('name'))
  const description = checkText('description', values.get('description'), about('description'))
  const threshold = checkThreshold(values.get('threshold'), about('threshold'))
  const polarity = checkPolarity(values.get('polarity'), about('polarity'))
  if (name === null || description === null || threshold === null || polarity === null) return null
  return { name, description, threshold, polarity }
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
