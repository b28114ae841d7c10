/**
 * The two rules file formats read into one small source tree, so the rules
 * of "Repo configuration" are checked once (in rules-check.ts) with the same
 * messages whatever the format. Structural problems (syntax, anchors, tags,
 * duplicate keys, several documents) are reported here.
 */

import type { DocumentOptions, ParseOptions, SchemaOptions } from 'yaml'
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, visit } from 'yaml'
import { err, ok, type Result } from './result.ts'
import { INSPECTED_DEPTH, type RulesProblem, type SourceNode } from './rules-check.ts'

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
export function readYamlSource(path: string, text: string): Result<SourceNode, RulesProblem[]> {
  const lines = new LineCounter()
  const docs = parseAllDocuments(text, { ...RULES_YAML_OPTIONS, lineCounter: lines })
  const [doc, second] = docs
  if (doc === undefined)
    return err([{ file: path, at: null, detail: 'the file is empty; it needs the key "classifications"' }])
  if (second !== undefined) {
    const at = second.range[0]
    return err([
      {
        file: path,
        at: position(lines, at),
        detail: `the file holds ${docs.length} YAML documents; a rules file is one document`,
      },
    ])
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
    return err(
      (real.length > 0 ? real : doc.errors).map((error) => ({
        file: path,
        at: position(lines, error.pos[0]),
        detail: error.message,
      })),
    )
  }
  const problems: RulesProblem[] = []
  if (doc.directives.yaml.explicit && doc.directives.yaml.version !== '1.2') {
    problems.push({
      file: path,
      at: 'line 1',
      detail: `the %YAML ${doc.directives.yaml.version} directive is not allowed; rules files are read as YAML 1.2`,
    })
  }
  visit(doc, (_key, node) => {
    if (isAlias(node)) {
      problems.push({
        file: path,
        at: position(lines, node.range?.[0] ?? 0),
        detail: `the alias *${node.source} is not allowed; write the value out`,
      })
      return
    }
    if (!isScalar(node) && !isMap(node) && !isSeq(node)) return
    const start = node.range?.[0] ?? 0
    const at = position(lines, start)
    if (node.anchor !== undefined) {
      // The node starts after its anchor; point at the anchor itself.
      const anchorAt = text.lastIndexOf(`&${node.anchor}`, start)
      problems.push({
        file: path,
        at: position(lines, anchorAt === -1 ? start : anchorAt),
        detail: `the anchor &${node.anchor} is not allowed; rules files use no anchors or aliases`,
      })
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
export function readJsonSource(path: string, text: string): Result<SourceNode, RulesProblem[]> {
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
    if (lexeme === null)
      throw new JsonSyntaxError(pos, 'invalid string: unterminated, or a raw control character or bad escape inside')
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
    if (literal !== null)
      return { kind: 'scalar', value: literal === 'null' ? null : literal === 'true', text: literal, alsoReadAs: null }
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
        duplicates.push({
          file: path,
          at: position(lines, keyAt),
          detail: `duplicate key ${JSON.stringify(key)} (first at ${position(lines, first)})`,
        })
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
  if (pos >= text.length)
    return err([{ file: path, at: null, detail: 'the file is empty; it needs the key "classifications"' }])
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
