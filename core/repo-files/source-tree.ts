/**
 * What the repo's hand-written files (the rules file, the examples file)
 * share once read: a format-neutral source tree, the shape of a problem with
 * it, the words for a value, a length and a character that don't belong,
 * and the check both files start with (one top-level key holding a list of
 * 1 to N entries, each unique). The checks of each file (rules-check.ts,
 * examples-check.ts) are written against this, so both files' messages read
 * alike whatever the format. No parser here: the try-out page bundles the
 * checks without the YAML reader.
 */
import { err, ok, type Result } from '../base/result.ts'
import { capDetail, capText, codePointName, QUOTED_MAX_CHARS, quoteInput } from '../base/text.ts'

/** One problem with a file or a parsed value, in words a person fixing it can act on. */
export type SourceProblem<Key extends string = string> = {
  /** The file the problem is in (both files for "both present"), or the label of a parsed value. */
  file: string
  /** Where: `line 3, column 5`, `classifications[1] (name "no-ads")`, or null for the whole file. */
  at: string | null
  /** What is wrong, in words a person fixing the file can act on. */
  detail: string
  /** The entry of the list the problem is about (0-based); absent for the list or the file as a whole. */
  entry?: number
  /** The entry's key the problem is about; absent when it's about the entry as a whole (or an unknown key). */
  key?: Key
}

/** A problem the readers find with a file's text, before any entry is read: never about one key. */
export type FileProblem = SourceProblem<never>

/** The problem with its detail cut to a few sentences, whatever the value it quotes. */
export function cappedProblem<P extends SourceProblem>(problem: P): P {
  return { ...problem, detail: capDetail(problem.detail) }
}

export function formatSourceProblem(problem: SourceProblem): string {
  return [problem.file, problem.at, problem.detail].filter((part) => part !== null).join(': ')
}

export function formatSourceProblems(problems: readonly SourceProblem[]): string {
  return problems.map(formatSourceProblem).join('\n')
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
 * Validation looks at most this deep (file → list → entry → value, and an
 * examples entry's `expect` → label), so deeper collections are kept as
 * empty shells: describing them needs only the kind.
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

/** The value of a map's key `name`, when the node is a map that has it. */
export function valueAt(node: SourceNode, name: string): SourceNode | undefined {
  if (node.kind !== 'map') return undefined
  return node.entries.find(({ key }) => key.kind === 'scalar' && key.value === name)?.value
}

/** A key as a message quotes it: a string quoted and escaped, anything else described. */
export function describeKey(key: SourceNode): string {
  return key.kind === 'scalar' && typeof key.value === 'string' ? quoteInput(key.value) : describe(key)
}

/** A value as a message describes it: `"80" (a string)`, `80.0 (a number)`, `a list`, `nothing`. */
export function describe(node: SourceNode): string {
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

/** Characters as the limits count them: code points. */
export function codePointCount(text: string): number {
  let count = 0
  for (const _ of text) count += 1
  return count
}

/** `subject is yes without quotes, which YAML 1.1 reads as a boolean; …`, or null for a value every reader takes alike. */
export function yaml11Problem(subject: string, node: Extract<SourceNode, { kind: 'scalar' }>): string | null {
  if (node.alsoReadAs === null) return null
  return `${subject} is ${capText(node.text, QUOTED_MAX_CHARS)} without quotes, which YAML 1.1 reads as ${node.alsoReadAs}; put it in quotes`
}

/** `subject is 65 characters long; …`, or null within `max`. */
export function lengthProblem(subject: string, text: string, max: number): string | null {
  const length = codePointCount(text)
  return length > max ? `${subject} is ${length} characters long; at most ${max} are allowed` : null
}

/**
 * A name is one line of visible text: no control (Cc), format character (Cf:
 * zero-width, bidi, soft hyphen, BOM) or lone surrogate (Cs), and no
 * whitespace but the plain space.
 */
const NAME_FORBIDDEN = /[\p{Cc}\p{Cf}\p{Cs}]|(?! )\s/u
/** A text of several lines (a YAML block scalar holds newlines) may hold tabs; no other control. */
const LINES_FORBIDDEN = /(?![\n\t])[\p{Cc}\p{Cf}\p{Cs}]/u

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

/** What keeps `name` from being a classification's name, said of `subject`, or null. */
export function nameCharProblem(subject: string, name: string): string | null {
  const held = describeHeld(name, NAME_FORBIDDEN)
  if (held !== null) {
    return `${subject} holds ${held}; a name is one line of visible characters, with no control or format characters`
  }
  if (name.startsWith(' ') || name.endsWith(' ')) {
    return `${subject} ${name.startsWith(' ') ? 'starts' : 'ends'} with a space; write it without`
  }
  return null
}

/** What keeps `text` from being a free text of several lines (a description, a note), said of `subject`, or null. */
export function linesCharProblem(subject: string, noun: string, text: string): string | null {
  const held = describeHeld(text, LINES_FORBIDDEN)
  if (held === null) return null
  return `${subject} holds ${held}; a ${noun} holds no format characters, and no control characters but newline and tab`
}

const DECIMAL_DIGITS = /^(?:0|[1-9][0-9]*)$/

/**
 * A whole number in `min`…`max` as written in the file, or the problem with
 * it. `0x50`, `0o120`, `8e1` and `80.0` all read as 80, but no one writes a
 * number that way on purpose; and `0120` is 120 in YAML 1.2 and 80 in YAML
 * 1.1. Only plain decimal digits mean the same to every reader.
 */
export function wholeNumber(
  node: SourceNode,
  min: number,
  max: number,
  problem: string,
): { ok: true; value: number } | { ok: false; detail: string } {
  if (node.kind !== 'scalar' || typeof node.value !== 'number') return { ok: false, detail: problem }
  const { value } = node
  const inRange = Number.isInteger(value) && value >= min && value <= max
  if (inRange && !DECIMAL_DIGITS.test(node.text)) {
    return { ok: false, detail: `${problem}; write it in plain decimal digits, like ${value}` }
  }
  return inRange ? { ok: true, value } : { ok: false, detail: problem }
}

/**
 * A kind of hand-written file, as the readers (rules-source.ts for YAML,
 * rules-json.ts for JSON) name it in their messages and bound what they read
 * of it before parsing: the most keys and list entries, and the most YAML
 * tokens, each well past what a real file of the kind holds.
 */
export type SourceKind = {
  /** One such file, with its article, to start a sentence: "a rules file". */
  one: string
  /** Several: "rules files". */
  many: string
  /** The file's one top-level key, which an empty file is told it needs. */
  key: string
  maxItems: number
  /** What a real file holds, after "so it isn't read; ". */
  itemsHint: string
  maxYamlTokens: number
  /** How many tokens a real file needs, after "so it isn't read; ". */
  tokensHint: string
}

export function itemsDetail(kind: SourceKind): string {
  return `the file holds more than ${kind.maxItems} keys and list entries, so it isn't read; ${kind.itemsHint}`
}

export function tokensDetail(kind: SourceKind): string {
  return (
    `the file holds more than ${kind.maxYamlTokens} YAML tokens (keys, values, indicators, comments, line breaks), ` +
    `so it isn't read; ${kind.tokensHint}`
  )
}

export function emptyFileDetail(kind: SourceKind): string {
  return `the file is empty; it needs the key "${kind.key}"`
}

/** One entry's problem, and the key it is about (null: the entry as a whole). */
/** Where a check puts what it finds wrong with one entry's value. */
export type ProblemSink = { push(detail: string): unknown }

export type EntryProblem<Key extends string> = { detail: string; key: Key | null }

/**
 * What a file's one top-level key holds and how its entries are checked: a
 * list of 1 to `max` entries under `key` (which also names the entries in
 * messages: "classifications", "examples"), each told apart by an identity
 * that must be unique in the file.
 */
export type SourceList<T, Key extends string> = {
  key: string
  max: number
  /** An entry's identity when it has a usable one: the value kept unique, and how its place shows it (`pr 12`). */
  identify(entry: SourceNode): { id: string | number; shown: string } | null
  /** What a later entry with the same identity is told, given where the first one is (`examples[0]`). */
  duplicate(id: string | number, first: string): EntryProblem<Key>
  /** Checks one entry, pushing its problems; its value, or null when it has any. */
  check(entry: SourceNode, problems: EntryProblem<Key>[]): T | null
}

/** Checks a parsed file: a mapping of the one key `list.key` to the list; every problem, each capped. */
export function checkSourceTree<T, Key extends string>(
  file: string,
  root: SourceNode,
  list: SourceList<T, Key>,
): Result<T[], SourceProblem<Key>[]> {
  return collect((problems) => {
    const top = (detail: string): void => {
      problems.push({ file, at: 'top level', detail })
    }
    if (root.kind !== 'map') {
      top(`must be a mapping with the one key "${list.key}", got ${describe(root)}`)
      return []
    }
    let items: SourceNode | null = null
    for (const { key, value } of root.entries) {
      if (key.kind === 'scalar' && key.value === list.key) items = value
      else top(`unknown key ${describeKey(key)}; the only key allowed is "${list.key}"`)
    }
    if (items === null) {
      top(`missing key "${list.key}"`)
      return []
    }
    return checkEntries(file, items, list, problems)
  })
}

/**
 * Checks an already-parsed value (a request body's list, in the file's
 * shape) with the same rules and messages as the file; `label` names it in
 * messages where a file would be named.
 */
export function checkSourceValue<T, Key extends string>(
  value: unknown,
  label: string,
  list: SourceList<T, Key>,
): Result<T[], SourceProblem<Key>[]> {
  return collect((problems) => checkEntries(label, fromPlainValue(value, 0), list, problems))
}

function collect<T, P extends SourceProblem>(check: (problems: P[]) => T[]): Result<T[], P[]> {
  const problems: P[] = []
  const values = check(problems)
  return problems.length > 0 ? err(problems.map(cappedProblem)) : ok(values)
}

function checkEntries<T, Key extends string>(
  file: string,
  node: SourceNode,
  list: SourceList<T, Key>,
  problems: SourceProblem<Key>[],
): T[] {
  const { key: label, max } = list
  if (node.kind !== 'list') {
    problems.push({ file, at: label, detail: `must be a list of 1 to ${max} ${label}, got ${describe(node)}` })
    return []
  }
  if (node.items.length === 0) problems.push({ file, at: label, detail: `is empty; it needs 1 to ${max} ${label}` })
  if (node.items.length > max) {
    problems.push({ file, at: label, detail: `has ${node.items.length} ${label}; at most ${max} are allowed` })
  }
  const valid: T[] = []
  const firstIndexById = new Map<string | number, number>()
  node.items.forEach((item, index) => {
    const identity = list.identify(item)
    const at = `${label}[${index}]${identity === null ? '' : ` (${identity.shown})`}`
    const entryProblems: EntryProblem<Key>[] = []
    const entry = list.check(item, entryProblems)
    if (identity !== null) {
      const first = firstIndexById.get(identity.id)
      if (first === undefined) firstIndexById.set(identity.id, index)
      else entryProblems.push(list.duplicate(identity.id, `${label}[${first}]`))
    }
    for (const { detail, key } of entryProblems) {
      problems.push({ file, at, detail, entry: index, ...(key === null ? {} : { key }) })
    }
    if (entry !== null && entryProblems.length === 0) valid.push(entry)
  })
  return valid
}
