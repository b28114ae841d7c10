/**
 * A classification's `paths` patterns (docs/behaviour.md, "Scoping a rule to
 * its files"): gitignore-like globs, each checked and turned into one RE2
 * regular expression source that matches a changed file's path in linear
 * time (core/run/scope.ts compiles it with re2js). Pure and free of any
 * regex engine, so the try-out page bundles these very checks for its editor.
 *
 * Why not picomatch (the first candidate, 4.0.7): its regexes backtrack, so
 * a maintainer's innocent `*-*-*.ts` met by a PR author's 4,000-character
 * file name takes seconds to minutes (three stars on a 255-character name
 * took 205 ms); its posix build read `[!x]` as "! or x"; its `?` misses a
 * character outside the BMP; and it answers a broken pattern with a regex
 * that never matches unless asked to throw. The patterns are small, the
 * grammar is gitignore's, and the tree already pins re2js (the redaction's
 * linear-time engine), so the translation is here and the matching is RE2's.
 *
 * The grammar, as gitignore has it:
 * - `!` first excludes (`\!` is a literal `!`);
 * - a pattern with no `/` but a trailing one matches a name at any depth,
 *   one with a `/` (a leading one included) matches from the repo root;
 * - a trailing `/` matches folders only (so the files under them);
 * - a pattern that matches a folder matches every file under it;
 * - `*` and `?` stay within one folder name, `**` as a whole part spans
 *   folders, `[…]` is a class (`[!…]`/`[^…]` negated, ranges in order),
 *   `{a,b}` picks one of its comma-separated parts (nesting allowed), and
 *   `\` makes the next character literal;
 * - case-sensitive, character by character (code points, not UTF-16 units).
 */

import { err, ok, type Result } from '../base/result.ts'

/** One pattern ready to compile: whether it excludes, and its RE2 source (whole-path match). */
export type PathPattern = { exclude: boolean; source: string }

/** Folder-name parts a path in a diff never has: a pattern with one can never match. */
const IMPOSSIBLE_PARTS = new Set(['.', '..'])

/** Checks one pattern and translates it; the error is a phrase that follows "pattern "x" ". */
export function translatePathPattern(pattern: string): Result<PathPattern, string> {
  if (pattern.trim() === '') return err('is empty')
  if (/\p{Cc}/u.test(pattern)) return err('holds a control character')
  const exclude = pattern.startsWith('!')
  let body = exclude ? pattern.slice(1) : pattern
  if (body.trim() === '') return err('excludes nothing: "!" needs a pattern after it')
  const dirOnly = body.endsWith('/') && !body.endsWith('\\/')
  if (dirOnly) body = body.slice(0, -1)
  const anchored = body.includes('/')
  if (body.startsWith('/')) body = body.slice(1)
  if (body === '') return err('matches no file: it names the repo root itself')
  const parts = body.split('/')
  if (parts.some((part) => part === '')) return err('has an empty folder name ("//")')
  const impossible = parts.find((part) => IMPOSSIBLE_PARTS.has(part))
  if (impossible !== undefined) return err(`has a "${impossible}" part, which no changed file's path has`)
  const translated = translateBody([...body])
  if (!translated.ok) return translated
  const prefix = anchored ? '' : '(?:.*/)?'
  const suffix = dirOnly ? '/.*' : '(?:/.*)?'
  return ok({ exclude, source: `(?s)^${prefix}${translated.value}${suffix}$` })
}

/** Characters that begin or end a part for `**`: a folder separator or a brace's own punctuation. */
const PART_EDGES = new Set(['/', '{', ',', '}'])

function translateBody(chars: readonly string[]): Result<string, string> {
  const out: string[] = []
  let depth = 0
  for (let i = 0; i < chars.length; i += 1) {
    const char = chars[i] as string
    if (char === '\\') {
      const next = chars[i + 1]
      if (next === undefined) return err('ends with a lone "\\"')
      out.push(literal(next))
      i += 1
    } else if (char === '*') {
      let end = i
      while (chars[end + 1] === '*') end += 1
      const before = chars[i - 1]
      const after = chars[end + 1]
      const wholePart =
        end > i && (before === undefined || PART_EDGES.has(before)) && (after === undefined || PART_EDGES.has(after))
      if (wholePart && after === '/') {
        out.push('(?:.*/)?')
        end += 1
      } else {
        out.push(wholePart ? '.*' : '[^/]*')
      }
      i = end
    } else if (char === '?') {
      out.push('[^/]')
    } else if (char === '[') {
      const cls = translateClass(chars, i)
      if (!cls.ok) return cls
      out.push(cls.value.source)
      i = cls.value.end
    } else if (char === '{') {
      depth += 1
      out.push('(?:')
    } else if (char === ',' && depth > 0) {
      out.push('|')
    } else if (char === '}' && depth > 0) {
      depth -= 1
      out.push(')')
    } else {
      out.push(literal(char))
    }
  }
  if (depth > 0) return err('has an unclosed "{"')
  return ok(out.join(''))
}

/** A `[…]` class from `start` (its `[`): its RE2 source, never matching `/`, and the index of its `]`. */
function translateClass(chars: readonly string[], start: number): Result<{ source: string; end: number }, string> {
  let i = start + 1
  const negated = chars[i] === '!' || chars[i] === '^'
  if (negated) i += 1
  const members: string[] = []
  let first = true
  for (; i < chars.length; i += 1) {
    let char = chars[i] as string
    if (char === ']' && !first) {
      if (members.length === 0) return err('has an empty "[]" class')
      return ok({ source: `[${negated ? '^/' : ''}${members.join('')}]`, end: i })
    }
    first = false
    if (char === '\\') {
      i += 1
      const escaped = chars[i]
      if (escaped === undefined) break
      char = escaped
    }
    if (char === '/') return err('has a "/" inside "[…]", where it can never match')
    if (chars[i + 1] === '-' && chars[i + 2] !== undefined && chars[i + 2] !== ']') {
      let high = chars[i + 2] as string
      let skip = 2
      if (high === '\\') {
        const escaped = chars[i + 3]
        if (escaped === undefined) break
        high = escaped
        skip = 3
      }
      if ((high.codePointAt(0) ?? 0) < (char.codePointAt(0) ?? 0))
        return err(`has the range "${char}-${high}" out of order`)
      if (high === '/' || (char < '/' && high > '/')) return err('has a "/" inside "[…]", where it can never match')
      members.push(`${classChar(char)}-${classChar(high)}`)
      i += skip
    } else {
      members.push(classChar(char))
    }
  }
  return err('has an unclosed "["')
}

/** A character as RE2 reads it literally inside a class: by its code point, so none is special. */
function classChar(char: string): string {
  return `\\x{${(char.codePointAt(0) ?? 0).toString(16)}}`
}

/** A character as RE2 reads it literally outside a class. */
function literal(char: string): string {
  if (/^[\p{L}\p{N}_]$/u.test(char)) return char
  return classChar(char)
}
