/**
 * A rules or examples file in JSON read into the source tree rules-source.ts
 * makes of YAML, with the same limit on keys and list entries and the same
 * words.
 */
import type { LineCounter } from 'yaml'
import { err, ok, type Result } from '../base/result.ts'
import { quoteInput } from '../base/text.ts'
import { emptyFileDetail, type FileProblem, itemsDetail, type SourceKind, type SourceNode } from './source-tree.ts'
import { lineStarts, position } from './yaml-reader.ts'

class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    detail: string,
    /** Whether the detail says what the file is over, rather than why it isn't JSON. */
    readonly limit = false,
  ) {
    super(detail)
  }
}

const JSON_SPACE = /[ \t\n\r]*/y
const JSON_NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y
const JSON_LITERAL = /true|false|null/y
const JSON_MAX_DEPTH = 64

/**
 * A small strict JSON reader. `JSON.parse` can't be used alone: it keeps the
 * last of two equal keys without a word, loses the written form of numbers
 * (`80.0`), and under Bun its errors carry no position.
 */
export function readJsonSource(path: string, text: string, kind: SourceKind): Result<SourceNode, FileProblem[]> {
  // Counted only when a problem needs a position: a clean file never does.
  let lines: LineCounter | null = null
  const at = (offset: number): string => {
    lines = lines ?? lineStarts(text)
    return position(lines, offset)
  }
  let start = 0
  // Tolerated because editors on some systems add it; it carries no meaning.
  if (text.startsWith('\uFEFF')) start = 1
  const duplicates: FileProblem[] = []
  let pos = start
  let items = 0

  /** Counts one key or list entry, stopping the read past the kind's most, as for YAML. */
  function countItem(): void {
    items += 1
    if (items > kind.maxItems) throw new JsonSyntaxError(pos, itemsDetail(kind), true)
  }

  function skipSpace(): void {
    JSON_SPACE.lastIndex = pos
    pos += JSON_SPACE.exec(text)?.[0].length ?? 0
  }
  function unexpected(): never {
    if (pos >= text.length) throw new JsonSyntaxError(pos, 'unexpected end of file')
    throw new JsonSyntaxError(pos, `unexpected character ${quoteInput(text.charAt(pos))}`)
  }
  function match(pattern: RegExp): string | null {
    pattern.lastIndex = pos
    const found = pattern.exec(text)
    if (found === null) return null
    pos += found[0].length
    return found[0]
  }
  /**
   * A string, found by a scan of its own and decoded by JSON.parse, which
   * refuses a raw control character or a bad escape. Not a regular
   * expression: the engine's takes seconds on a string of a few hundred KB,
   * and can give up on a long one that is valid.
   */
  function readString(): string {
    const start = pos
    let end = pos + 1
    while (end < text.length && text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1
    const invalid = () =>
      new JsonSyntaxError(start, 'invalid string: unterminated, or a raw control character or bad escape inside')
    if (end >= text.length) throw invalid()
    pos = end + 1
    try {
      return String(JSON.parse(text.slice(start, pos)))
    } catch {
      throw invalid()
    }
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
      countItem()
      const keyAt = pos
      const key = readString()
      const first = seen.get(key)
      if (first !== undefined) {
        duplicates.push({
          file: path,
          at: at(keyAt),
          detail: `duplicate key ${quoteInput(key)} (first at ${at(first)})`,
        })
      } else {
        seen.set(key, keyAt)
      }
      skipSpace()
      if (text.charAt(pos) !== ':') throw new JsonSyntaxError(pos, `expected ":" after the key ${quoteInput(key)}`)
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
    const entries: SourceNode[] = []
    skipSpace()
    if (text.charAt(pos) === ']') {
      pos++
      return { kind: 'list', items: entries }
    }
    for (;;) {
      skipSpace()
      countItem()
      entries.push(readValue(depth + 1))
      skipSpace()
      const next = text.charAt(pos)
      pos++
      if (next === ']') return { kind: 'list', items: entries }
      if (next !== ',') {
        pos--
        throw new JsonSyntaxError(pos, pos >= text.length ? 'unexpected end of file' : 'expected "," or "]"')
      }
    }
  }

  skipSpace()
  if (pos >= text.length) return err([{ file: path, at: null, detail: emptyFileDetail(kind) }])
  try {
    const root = readValue(0)
    skipSpace()
    if (pos < text.length) throw new JsonSyntaxError(pos, 'unexpected content after the end of the JSON value')
    return duplicates.length > 0 ? err(duplicates) : ok(root)
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error
    const detail = error.limit ? error.message : `invalid JSON: ${error.message}`
    return err([{ file: path, at: at(error.offset), detail }])
  }
}
