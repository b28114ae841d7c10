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
import { capDetail, capText, codePointName, QUOTED_MAX_CHARS, quoteInput } from './text.ts'
import type { Classification, Polarity } from './types.ts'

export const CLASSIFICATION_KEYS = ['name', 'description', 'threshold', 'polarity'] as const
export type ClassificationKey = (typeof CLASSIFICATION_KEYS)[number]

export type RulesProblem = {
  /** The file the problem is in (both files for "both present"). */
  file: string
  /** Where: `line 3, column 5`, `classifications[1] (name "no-ads")`, or null for the whole file. */
  at: string | null
  /** What is wrong, in words a person fixing the file can act on. */
  detail: string
  /** The entry of the list the problem is about (0-based); absent for the list or the file as a whole. */
  entry?: number
  /** The entry's key the problem is about; absent when it's about the entry as a whole (or an unknown key). */
  key?: ClassificationKey
}

/** The problem with its detail cut to a few sentences, whatever the value it quotes. */
export function cappedProblem(problem: RulesProblem): RulesProblem {
  return { ...problem, detail: capDetail(problem.detail) }
}

export function formatRulesProblem(problem: RulesProblem): string {
  return [problem.file, problem.at, problem.detail].filter((part) => part !== null).join(': ')
}

export function formatRulesProblems(problems: readonly RulesProblem[]): string {
  return problems.map(formatRulesProblem).join('\n')
}

/**
 * A format-neutral view of the parsed document. `text` is the value as
 * written (`0x50`, `80.0`), since the written form decides some errors;
 * `alsoReadAs` is set for an unquoted YAML scalar a YAML 1.1 reader would
 * take as another type (`yes` as a bool), so a file means one thing to every
 * YAML tool that may read it.
 */
export type SourceNode =
  | { kind: 'map'; entries: { key: SourceNode; value: SourceNode }[] }
  | { kind: 'list'; items: SourceNode[] }
  | { kind: 'scalar'; value: unknown; text: string; alsoReadAs: string | null }

/**
 * Validation looks at most this deep (file → list → entry → value), so deeper
 * collections are kept as empty shells: describing them needs only the kind.
 */
export const INSPECTED_DEPTH = 4

export function fromPlainValue(value: unknown, depth: number): SourceNode {
  if (Array.isArray(value)) {
    return {
      kind: 'list',
      items: depth >= INSPECTED_DEPTH ? [] : value.map((item: unknown) => fromPlainValue(item, depth + 1)),
    }
  }
  if (typeof value === 'object' && value !== null) {
    const entries = depth >= INSPECTED_DEPTH ? [] : Object.entries(value)
    return {
      kind: 'map',
      entries: entries.map(([key, item]) => ({
        key: fromPlainValue(key, depth + 1),
        value: fromPlainValue(item, depth + 1),
      })),
    }
  }
  return { kind: 'scalar', value, text: typeof value === 'string' ? value : String(value), alsoReadAs: null }
}

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
  if (entry.kind !== 'map') return null
  const name = entry.entries.find(({ key }) => key.kind === 'scalar' && key.value === 'name')?.value
  if (name?.kind !== 'scalar' || typeof name.value !== 'string' || name.value.trim() === '') return null
  return name.value
}

/** One entry's problem, and the key it is about (null: the entry as a whole). */
type EntryProblem = { detail: string; key: ClassificationKey | null }

/** Where a check of one value puts its problems. */
type ProblemSink = { push(detail: string): unknown; count(): number }

function checkEntry(entry: SourceNode, entryProblems: EntryProblem[]): Classification | null {
  const about = (key: ClassificationKey | null): ProblemSink => ({
    push: (detail: string) => entryProblems.push({ detail, key }),
    count: () => entryProblems.filter((problem) => problem.key === key).length,
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
  if (node.alsoReadAs !== null) {
    problems.push(
      `${key} is ${capText(node.text, QUOTED_MAX_CHARS)} without quotes, which YAML 1.1 reads as ${node.alsoReadAs}; put it in quotes`,
    )
    return null
  }
  if (node.value.trim() === '') {
    problems.push(`${key} is empty`)
    return null
  }
  const before = problems.count()
  const max = key === 'name' ? NAME_MAX_CHARS : DESCRIPTION_MAX_CHARS
  const length = codePointCount(node.value)
  if (length > max) problems.push(`${key} is ${length} characters long; at most ${max} are allowed`)
  const held = key === 'name' ? nameCharProblem(node.value) : descriptionCharProblem(node.value)
  if (held !== null) problems.push(held)
  return problems.count() > before ? null : node.value
}

/** Characters as the limits count them: code points. */
function codePointCount(text: string): number {
  let count = 0
  for (const _ of text) count += 1
  return count
}

/**
 * A name is one line of visible text: no control (Cc), format character (Cf:
 * zero-width, bidi, soft hyphen, BOM) or lone surrogate (Cs), and no
 * whitespace but the plain space.
 */
const NAME_FORBIDDEN = /[\p{Cc}\p{Cf}\p{Cs}]|(?! )\s/u
/** A description may be several lines (a YAML block scalar holds newlines) and hold tabs; no other control. */
const DESCRIPTION_FORBIDDEN = /(?![\n\t])[\p{Cc}\p{Cf}\p{Cs}]/u

function charKind(char: string): string {
  if (/\p{Cc}/u.test(char)) return 'a control character'
  if (/\p{Cf}/u.test(char)) return 'a format character'
  if (/\p{Cs}/u.test(char)) return 'half of a surrogate pair'
  return 'a space other than U+0020'
}

/** The first forbidden character as `U+200B (a format character) at character 7`, 1-based in code points. */
function describeHeld(text: string, forbidden: RegExp): string | null {
  const found = forbidden.exec(text)
  if (found === null) return null
  const char = found[0]
  const position = [...text.slice(0, found.index)].length + 1
  return `${codePointName(char)} (${charKind(char)}) at character ${position}`
}

function nameCharProblem(name: string): string | null {
  const held = describeHeld(name, NAME_FORBIDDEN)
  if (held !== null) {
    return `name holds ${held}; a name is one line of visible characters, with no control or format characters`
  }
  if (name.startsWith(' ') || name.endsWith(' ')) {
    return `name ${name.startsWith(' ') ? 'starts' : 'ends'} with a space; write it without`
  }
  return null
}

function descriptionCharProblem(description: string): string | null {
  const held = describeHeld(description, DESCRIPTION_FORBIDDEN)
  if (held === null) return null
  return `description holds ${held}; a description holds no format characters, and no control characters but newline and tab`
}

const DECIMAL_DIGITS = /^(?:0|[1-9][0-9]*)$/

function checkThreshold(node: SourceNode | undefined, problems: ProblemSink): number | null {
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

function checkPolarity(node: SourceNode | undefined, problems: ProblemSink): Polarity | null {
  if (node === undefined) return null
  if (node.kind === 'scalar' && (node.value === 'positive' || node.value === 'negative')) return node.value
  problems.push(`polarity must be "positive" or "negative", got ${describe(node)}`)
  return null
}

function describeKey(key: SourceNode): string {
  return key.kind === 'scalar' && typeof key.value === 'string' ? quoteInput(key.value) : describe(key)
}

function describe(node: SourceNode): string {
  if (node.kind === 'map') return 'a mapping'
  if (node.kind === 'list') return 'a list'
  const { value } = node
  // The written form of a number or a null can be as long as the file.
  const text = capText(node.text, QUOTED_MAX_CHARS)
  if (typeof value === 'string') return `${quoteInput(value)} (a string)`
  if (value === null || value === undefined) return text === '' ? 'nothing' : `${text} (null)`
  if (typeof value === 'number' || typeof value === 'bigint') return `${text} (a number)`
  if (typeof value === 'boolean') return `${text} (a boolean)`
  return text
}
