/**
 * A rule's scan pattern for asking whether a slice of a line holds a match
 * (core/redaction/windows.ts): re2js takes a slice's ends for the text's, so
 * `^` and `\A` hold at its start and `$` and `\z` at its end, where on the
 * line they do not, and a test could say yes for a match the line does not
 * have. On a slice that starts or ends inside the line these assertions
 * are made ones that never hold; inside a line (no line break) they could
 * hold only at its ends, so a match the line has is still there.
 */
import { RE2JS } from 're2js'
import type { Rule } from './rules.ts'

/** A class no character is in. */
const NEVER = String.raw`[^\x00-\x{10FFFF}]`

/**
 * The pattern with the assertions of the text's start (`^`, `\A`: `start`)
 * and end (`$`, `\z`: `end`) made ones that never hold. Classes, with the
 * POSIX classes inside them, and escapes are copied as they are.
 */
export function withoutEdges(source: string, start: boolean, end: boolean): string {
  let out = ''
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string
    if (c === '\\') {
      const next = source[i + 1] ?? ''
      if ((start && next === 'A') || (end && next === 'z')) out += NEVER
      else if ('pPx'.includes(next) && source[i + 2] === '{') {
        // \p{^Greek}, \x{10FFFF}: copied to the brace that closes them.
        const close = source.indexOf('}', i + 2)
        out += source.slice(i, close + 1)
        i = close
        continue
      } else if (next === 'Q') {
        const close = source.indexOf('\\E', i + 2)
        const stop = close === -1 ? source.length : close + 2
        out += source.slice(i, stop)
        i = stop - 1
        continue
      } else out += `\\${next}`
      i += 1
    } else if (c === '[') {
      let j = i + 1
      if (source[j] === '^') j += 1
      if (source[j] === ']') j += 1
      while (j < source.length && source[j] !== ']') {
        if (source[j] === '\\') j += 2
        else if (source.startsWith('[:', j)) j = source.indexOf(':]', j + 2) + 2
        else j += 1
      }
      out += source.slice(i, j + 1)
      i = j
    } else if ((start && c === '^') || (end && c === '$')) out += NEVER
    else out += c
  }
  return out
}

/** Whether the pattern asserts a word boundary (`\b`, `\B`), which looks at the character after a slice's end. */
export function hasWordBoundary(source: string): boolean {
  for (let i = 0; i < source.length; i++) {
    if (source[i] !== '\\') continue
    if (source[i + 1] === 'b' || source[i + 1] === 'B') return true
    i += 1
  }
  return false
}

const VARIANTS = new Map<Rule, (RE2JS | undefined)[]>()

/** The rule's scan pattern for a slice that starts inside the line (`starts`) or ends inside it (`ends`), compiled on first use. */
export function sliceTest(rule: Rule, starts: boolean, ends: boolean): RE2JS {
  let variants = VARIANTS.get(rule)
  if (variants === undefined) {
    variants = []
    VARIANTS.set(rule, variants)
  }
  const key = (starts ? 1 : 0) | (ends ? 2 : 0)
  let pattern = variants[key]
  if (pattern === undefined) {
    const source = rule.scan.pattern()
    const changed = withoutEdges(source, starts, ends)
    pattern = changed === source ? rule.scan : RE2JS.compile(changed, rule.scan.flags())
    variants[key] = pattern
  }
  return pattern
}
