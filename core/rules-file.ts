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
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, visit } from 'yaml'
import type { DocumentOptions, ParseOptions, SchemaOptions } from 'yaml'
import type { Classification, Polarity } from './types.ts'
import { err, ok, type Result } from './result.ts'

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

/**
 * A format-neutral view of the parsed document. `text` is the value as
 * written (`0x50`, `80.0`), since the written form decides some errors;
 * `alsoReadAs` is set for an unquoted YAML scalar a YAML 1.1 reader would
 * take as another type (`yes` as a bool), so a file means one thing to every
 * YAML tool that may read it.
 */
type SourceNode =
  | { kind: 'map'; entries: { key: SourceNode; value: SourceNode }[] }
  | { kind: 'list'; items: SourceNode[] }
  | { kind: 'scalar'; value: unknown; text: string; alsoReadAs: string | null }

/**
 * Validation looks at most this deep (file → list → entry → value), so deeper
 * collections are kept as empty shells: describing them needs only the kind.
 */
const INSPECTED_DEPTH = 4

function sizeProblem(path: string, text: string): RulesProblem | null {
  // UTF-8 takes at least one byte per UTF-16 unit, so a long string is over
  // the cap without encoding it.
  const bytes = text.length > RULES_MAX_BYTES ? null : new TextEncoder().encode(text).byteLength
  if (bytes !== null && bytes <= RULES_MAX_BYTES) return null
  const size = bytes === null ? `at least ${text.length} bytes` : `${bytes} bytes`
  return { file: path, at: null, detail: `the file is ${size}, over the ${RULES_MAX_BYTES}-byte (1 MiB) limit` }
}

function position(lines: LineCounter, offset: number): string {
  const { line, col } = lines.linePos(offset)
  return `line ${line}, column ${col}`
}

function shortTag(tag: string): string {
  return tag.startsWith('tag:yaml.org,2002:') ? `!!${tag.slice('tag:yaml.org,2002:'.length)}` : tag
}

/**
 * YAML 1.2 core schema, so `yes` is a string and `0120` is 120; `compat`
 * flags plain scalars a YAML 1.1 reader would take otherwise, and makes the
 * writer quote such strings, so written files read back the same.
 */
export const RULES_YAML_OPTIONS = {
  version: '1.2',
  schema: 'core',
  uniqueKeys: true,
  merge: false,
  prettyErrors: false,
  compat: 'yaml-1.1',
} as const satisfies DocumentOptions & SchemaOptions & ParseOptions

const COMPAT_WARNING = /may be parsed as either !!(\w+) or !!(\w+)/
const YAML_11_TYPE_NAMES: Partial<Record<string, string>> = {
  bool: 'a boolean',
  int: 'a number',
  float: 'a number',
  null: 'null',
  timestamp: 'a date',
}

/** Parses YAML 1.2 (core schema) and refuses what would make a file mean different things to different readers. */
function readYamlSource(path: string, text: string): Result<SourceNode, RulesProblem[]> {
  const lines = new LineCounter()
  const docs = parseAllDocuments(text, { ...RULES_YAML_OPTIONS, lineCounter: lines })
  const [doc, second] = docs
  if (doc === undefined) return err([{ file: path, at: null, detail: 'the file is empty; it needs the key "classifications"' }])
  if (second !== undefined) {
    const at = second.range[0]
    return err([{ file: path, at: position(lines, at), detail: `the file holds ${docs.length} YAML documents; a rules file is one document` }])
  }
  const [firstError] = doc.errors
  if (firstError !== undefined) {
    // The composer turns its own crashes into errors with a JS engine
    // message: a stack overflow on deep nesting (once per level it unwinds),
    // and an extra RESOURCE_EXHAUSTION after a real syntax error.
    if (doc.errors.some((error) => /call stack/i.test(error.message))) {
      return err([{ file: path, at: position(lines, firstError.pos[0]), detail: 'the file nests too deeply to read' }])
    }
    const real = doc.errors.filter((error) => error.code !== 'RESOURCE_EXHAUSTION')
    return err((real.length > 0 ? real : doc.errors).map((error) => ({ file: path, at: position(lines, error.pos[0]), detail: error.message })))
  }
  const problems: RulesProblem[] = []
  if (doc.directives.yaml.explicit && doc.directives.yaml.version !== '1.2') {
    problems.push({ file: path, at: 'line 1', detail: `the %YAML ${doc.directives.yaml.version} directive is not allowed; rules files are read as YAML 1.2` })
  }
  visit(doc, (_key, node) => {
    if (isAlias(node)) {
      problems.push({ file: path, at: position(lines, node.range?.[0] ?? 0), detail: `the alias *${node.source} is not allowed; write the value out` })
      return
    }
    if (!isScalar(node) && !isMap(node) && !isSeq(node)) return
    const start = node.range?.[0] ?? 0
    const at = position(lines, start)
    if (node.anchor !== undefined) {
      // The node starts after its anchor; point at the anchor itself.
      const anchorAt = text.lastIndexOf(`&${node.anchor}`, start)
      problems.push({ file: path, at: position(lines, anchorAt === -1 ? start : anchorAt), detail: `the anchor &${node.anchor} is not allowed; rules files use no anchors or aliases` })
    }
    if (node.tag !== undefined) {
      problems.push({ file: path, at, detail: `the tag ${shortTag(node.tag)} is not allowed; rules files use no tags` })
    }
  })
  if (problems.length > 0) return err(problems)

  const alsoReadAs = new Map<number, string>()
  for (const warning of doc.warnings) {
    const types = COMPAT_WARNING.exec(warning.message)
    if (types === null) continue
    const other = types[1] === 'str' ? types[2] : types[1]
    alsoReadAs.set(warning.pos[0], YAML_11_TYPE_NAMES[other ?? ''] ?? `!!${other ?? '?'}`)
  }
  return ok(fromYamlNode(doc.contents, alsoReadAs, 0))
}

function fromYamlNode(node: unknown, alsoReadAs: ReadonlyMap<number, string>, depth: number): SourceNode {
  if (isMap(node)) {
    if (depth >= INSPECTED_DEPTH) return { kind: 'map', entries: [] }
    return {
      kind: 'map',
      entries: node.items.map((pair) => ({
        key: fromYamlNode(pair.key, alsoReadAs, depth + 1),
        value: fromYamlNode(pair.value, alsoReadAs, depth + 1),
      })),
    }
  }
  if (isSeq(node)) {
    if (depth >= INSPECTED_DEPTH) return { kind: 'list', items: [] }
    return { kind: 'list', items: node.items.map((item) => fromYamlNode(item, alsoReadAs, depth + 1)) }
  }
  if (isScalar(node)) {
    const plain = node.type === 'PLAIN' || node.type === undefined
    return {
      kind: 'scalar',
      value: node.value,
      text: node.source ?? String(node.value),
      alsoReadAs: plain ? (alsoReadAs.get(node.range?.[0] ?? -1) ?? null) : null,
    }
  }
  // A missing value (`name:` with nothing after it) has no node at all.
  return { kind: 'scalar', value: null, text: '', alsoReadAs: null }
}

function fromPlainValue(value: unknown, depth: number): SourceNode {
  if (Array.isArray(value)) {
    return { kind: 'list', items: depth >= INSPECTED_DEPTH ? [] : value.map((item: unknown) => fromPlainValue(item, depth + 1)) }
  }
  if (typeof value === 'object' && value !== null) {
    const entries = depth >= INSPECTED_DEPTH ? [] : Object.entries(value)
    return {
      kind: 'map',
      entries: entries.map(([key, item]) => ({ key: fromPlainValue(key, depth + 1), value: fromPlainValue(item, depth + 1) })),
    }
  }
  return { kind: 'scalar', value, text: typeof value === 'string' ? value : String(value), alsoReadAs: null }
}

class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    detail: string,
  ) {
    super(detail)
  }
}

const JSON_STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y
const JSON_NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y
const JSON_LITERAL = /true|false|null/y
const JSON_MAX_DEPTH = 64

/**
 * A small strict JSON reader. `JSON.parse` can't be used alone: it keeps the
 * last of two equal keys without a word, loses the written form of numbers
 * (`80.0`), and under Bun its errors carry no position.
 */
function readJsonSource(path: string, text: string): Result<SourceNode, RulesProblem[]> {
  const lines = new LineCounter()
  lines.addNewLine(0)
  let start = 0
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines.addNewLine(i + 1)
  // Tolerated because editors on some systems add it; it carries no meaning.
  if (text.startsWith('\uFEFF')) start = 1
  const duplicates: RulesProblem[] = []
  let pos = start

  function skipSpace(): void {
    while (pos < text.length && ' \t\n\r'.includes(text.charAt(pos))) pos++
  }
  function unexpected(): never {
    if (pos >= text.length) throw new JsonSyntaxError(pos, 'unexpected end of file')
    throw new JsonSyntaxError(pos, `unexpected character ${JSON.stringify(text.charAt(pos))}`)
  }
  function match(pattern: RegExp): string | null {
    pattern.lastIndex = pos
    const found = pattern.exec(text)
    if (found === null) return null
    pos += found[0].length
    return found[0]
  }
  function readString(): string {
    const lexeme = match(JSON_STRING)
    if (lexeme === null) throw new JsonSyntaxError(pos, 'invalid string: unterminated, or a raw control character or bad escape inside')
    return String(JSON.parse(lexeme))
  }
  function readValue(depth: number): SourceNode {
    if (depth > JSON_MAX_DEPTH) throw new JsonSyntaxError(pos, `nested more than ${JSON_MAX_DEPTH} levels deep`)
    skipSpace()
    const char = text.charAt(pos)
    if (char === '{') return readObject(depth)
    if (char === '[') return readArray(depth)
    if (char === '"') {
      const value = readString()
      return { kind: 'scalar', value, text: value, alsoReadAs: null }
    }
    const number = match(JSON_NUMBER)
    if (number !== null) return { kind: 'scalar', value: Number(number), text: number, alsoReadAs: null }
    const literal = match(JSON_LITERAL)
    if (literal !== null) return { kind: 'scalar', value: literal === 'null' ? null : literal === 'true', text: literal, alsoReadAs: null }
    return unexpected()
  }
  function readObject(depth: number): SourceNode {
    pos++
    const entries: { key: SourceNode; value: SourceNode }[] = []
    const seen = new Map<string, number>()
    skipSpace()
    if (text.charAt(pos) === '}') {
      pos++
      return { kind: 'map', entries }
    }
    for (;;) {
      skipSpace()
      if (text.charAt(pos) !== '"') throw new JsonSyntaxError(pos, 'expected a key in double quotes')
      const keyAt = pos
      const key = readString()
      const first = seen.get(key)
      if (first !== undefined) {
        duplicates.push({ file: path, at: position(lines, keyAt), detail: `duplicate key ${JSON.stringify(key)} (first at ${position(lines, first)})` })
      } else {
        seen.set(key, keyAt)
      }
      skipSpace()
      if (text.charAt(pos) !== ':') throw new JsonSyntaxError(pos, `expected ":" after the key ${JSON.stringify(key)}`)
      pos++
      entries.push({ key: { kind: 'scalar', value: key, text: key, alsoReadAs: null }, value: readValue(depth + 1) })
      skipSpace()
      const next = text.charAt(pos)
      pos++
      if (next === '}') return { kind: 'map', entries }
      if (next !== ',') {
        pos--
        throw new JsonSyntaxError(pos, pos >= text.length ? 'unexpected end of file' : 'expected "," or "}"')
      }
    }
  }
  function readArray(depth: number): SourceNode {
    pos++
    const items: SourceNode[] = []
    skipSpace()
    if (text.charAt(pos) === ']') {
      pos++
      return { kind: 'list', items }
    }
    for (;;) {
      items.push(readValue(depth + 1))
      skipSpace()
      const next = text.charAt(pos)
      pos++
      if (next === ']') return { kind: 'list', items }
      if (next !== ',') {
        pos--
        throw new JsonSyntaxError(pos, pos >= text.length ? 'unexpected end of file' : 'expected "," or "]"')
      }
    }
  }

  skipSpace()
  if (pos >= text.length) return err([{ file: path, at: null, detail: 'the file is empty; it needs the key "classifications"' }])
  try {
    const root = readValue(0)
    skipSpace()
    if (pos < text.length) throw new JsonSyntaxError(pos, 'unexpected content after the end of the JSON value')
    return duplicates.length > 0 ? err(duplicates) : ok(root)
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error
    return err([{ file: path, at: position(lines, error.offset), detail: `invalid JSON: ${error.message}` }])
  }
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
