/**
 * Reading a repo's rules file (`.hyperhive/review-classifier.yml` or `.json`)
 * into classifications. Pure: the caller reads the file and passes its text.
 *
 * Both formats are first turned into one small source tree (`SourceNode`),
 * so the rules of "Repo configuration" are checked once, with the same
 * messages, whatever the format. Every problem is reported, not just the
 * first, because a user fixing a file by hand wants the whole list at once.
 * Entries are named by 0-based index, like `classifications[1]`, the way a
 * JSON path or a program would index them.
 */

import { err, ok, type Result } from './result.ts'
import { fromPlainValue, readJsonSource, readYamlSource, type SourceNode } from './rules-source.ts'
import type { Classification, Polarity } from './types.ts'

export const RULES_YML_PATH = '.hyperhive/review-classifier.yml'
export const RULES_JSON_PATH = '.hyperhive/review-classifier.json'
/** Larger files are refused before parsing: a real rules file is a few KB. */
export const RULES_MAX_BYTES = 1024 * 1024
export const MAX_CLASSIFICATIONS = 10

export const CLASSIFICATION_KEYS = ['name', 'description', 'threshold', 'polarity'] as const

export type RulesProblem = {
  /** The file the problem is in (both files for "both present"). */
  file: string
  /** Where: `line 3, column 5`, `classifications[1] (name "no-ads")`, or null for the whole file. */
  at: string | null
  /** What is wrong, in words a person fixing the file can act on. */
  detail: string
}

export function formatRulesProblem(problem: RulesProblem): string {
  return [problem.file, problem.at, problem.detail].filter((part) => part !== null).join(': ')
}

export function formatRulesProblems(problems: readonly RulesProblem[]): string {
  return problems.map(formatRulesProblem).join('\n')
}

/**
 * Which rules file to read, given which exist on the default branch:
 * the path, null for "the repo has no rules", or a problem when both exist.
 */
export function selectRulesFile(present: { yml: boolean; json: boolean }): Result<string | null, RulesProblem> {
  if (present.yml && present.json) {
    return err({
      file: `${RULES_YML_PATH} and ${RULES_JSON_PATH}`,
      at: null,
      detail: 'both exist; a repo holds one of the two, so neither is loaded',
    })
  }
  if (present.yml) return ok(RULES_YML_PATH)
  if (present.json) return ok(RULES_JSON_PATH)
  return ok(null)
}

export function parseRulesFile(path: string, text: string): Result<Classification[], RulesProblem[]> {
  const format = formatOf(path)
  if (format === null) {
    return err([{ file: path, at: null, detail: 'a rules file must end in .yml, .yaml or .json' }])
  }
  const oversize = sizeProblem(path, text)
  if (oversize !== null) return err([oversize])
  const tree = format === 'yaml' ? readYamlSource(path, text) : readJsonSource(path, text)
  if (!tree.ok) return tree
  return validateRulesTree(path, tree.value)
}

/**
 * Checks an already-parsed value (a request body's `classifications`) with
 * the same rules and messages as the file; `label` names it in messages.
 */
export function validateClassifications(value: unknown, label: string): Result<Classification[], RulesProblem[]> {
  return collect((problems) => checkList(label, 'classifications', fromPlainValue(value, 0), problems))
}

export function formatOf(path: string): 'yaml' | 'json' | null {
  const lower = path.toLowerCase()
  if (lower.endsWith('.yml') || lower.endsWith('.yaml')) return 'yaml'
  if (lower.endsWith('.json')) return 'json'
  return null
}

export { RULES_YAML_OPTIONS } from './rules-source.ts'

function sizeProblem(path: string, text: string): RulesProblem | null {
  // UTF-8 takes at least one byte per UTF-16 unit, so a long string is over
  // the cap without encoding it.
  const bytes = text.length > RULES_MAX_BYTES ? null : new TextEncoder().encode(text).byteLength
  if (bytes !== null && bytes <= RULES_MAX_BYTES) return null
  const size = bytes === null ? `at least ${text.length} bytes` : `${bytes} bytes`
  return { file: path, at: null, detail: `the file is ${size}, over the ${RULES_MAX_BYTES}-byte (1 MiB) limit` }
}

function collect(check: (problems: RulesProblem[]) => Classification[]): Result<Classification[], RulesProblem[]> {
  const problems: RulesProblem[] = []
  const classifications = check(problems)
  return problems.length > 0 ? err(problems) : ok(classifications)
}

/** Checks a parsed file against "Repo configuration". */
function validateRulesTree(file: string, root: SourceNode): Result<Classification[], RulesProblem[]> {
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
  const problem = (at: string, detail: string): void => {
    problems.push({ file, at, detail })
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
    const at = `${label}[${index}]${name === null ? '' : ` (name ${JSON.stringify(name)})`}`
    const entryProblems: string[] = []
    const entry = checkEntry(item, entryProblems)
    if (name !== null) {
      const first = firstIndexByName.get(name)
      if (first === undefined) firstIndexByName.set(name, index)
      else entryProblems.push(`the name is already used by ${label}[${first}]; names must be unique`)
    }
    for (const detail of entryProblems) problem(at, detail)
    if (entry !== null && entryProblems.length === 0) valid.push(entry)
  })
  return valid
}

function usableName(entry: SourceNode): string | null {
  if (entry.kind !== 'map') return null
  const name = entry.entries.find(({ key }) => key.kind === 'scalar' && key.value === 'name')?.value
  if (name?.kind !== 'scalar' || typeof name.value !== 'string' || name.value.trim() === '') return null
  return name.value
}

function checkEntry(entry: SourceNode, problems: string[]): Classification | null {
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
    if (!values.has(key)) problems.push(`missing key "${key}"`)
  }
  const name = checkText('name', values.get('name'), problems)
  const description = checkText('description', values.get('description'), problems)
  const threshold = checkThreshold(values.get('threshold'), problems)
  const polarity = checkPolarity(values.get('polarity'), problems)
  if (name === null || description === null || threshold === null || polarity === null) return null
  return { name, description, threshold, polarity }
}

function checkText(key: 'name' | 'description', node: SourceNode | undefined, problems: string[]): string | null {
  if (node === undefined) return null
  if (node.kind !== 'scalar' || typeof node.value !== 'string') {
    problems.push(`${key} must be a string, got ${describe(node)}`)
    return null
  }
  if (node.alsoReadAs !== null) {
    problems.push(`${key} is ${node.text} without quotes, which YAML 1.1 reads as ${node.alsoReadAs}; put it in quotes`)
    return null
  }
  if (node.value.trim() === '') {
    problems.push(`${key} is empty`)
    return null
  }
  return node.value
}

const DECIMAL_DIGITS = /^(?:0|[1-9][0-9]*)$/

function checkThreshold(node: SourceNode | undefined, problems: string[]): number | null {
  if (node === undefined) return null
  const problem = `threshold must be a whole number 0–100, got ${describe(node)}`
  if (node.kind !== 'scalar' || typeof node.value !== 'number') {
    problems.push(problem)
    return null
  }
  // `0x50`, `0o120`, `8e1` and `80.0` all read as 80, but no one writes a
  // percentage that way on purpose; and `0120` is 120 in YAML 1.2 and 80 in
  // YAML 1.1. Only plain decimal digits mean the same to every reader.
  if (Number.isInteger(node.value) && node.value >= 0 && node.value <= 100 && !DECIMAL_DIGITS.test(node.text)) {
    problems.push(`${problem}; write it in plain decimal digits, like ${node.value}`)
    return null
  }
  if (!Number.isInteger(node.value) || node.value < 0 || node.value > 100) {
    problems.push(problem)
    return null
  }
  return node.value
}

function checkPolarity(node: SourceNode | undefined, problems: string[]): Polarity | null {
  if (node === undefined) return null
  if (node.kind === 'scalar' && (node.value === 'positive' || node.value === 'negative')) return node.value
  problems.push(`polarity must be "positive" or "negative", got ${describe(node)}`)
  return null
}

function describeKey(key: SourceNode): string {
  return key.kind === 'scalar' && typeof key.value === 'string' ? JSON.stringify(key.value) : describe(key)
}

function describe(node: SourceNode): string {
  if (node.kind === 'map') return 'a mapping'
  if (node.kind === 'list') return 'a list'
  const { value, text } = node
  if (typeof value === 'string') return `${JSON.stringify(value)} (a string)`
  if (value === null || value === undefined) return text === '' ? 'nothing' : `${text} (null)`
  if (typeof value === 'number' || typeof value === 'bigint') return `${text} (a number)`
  if (typeof value === 'boolean') return `${text} (a boolean)`
  return text
}
