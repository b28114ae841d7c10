/**
 * gitleaks' lazy identifier prefix, matched outside the engine.
 *
 * About 100 of gitleaks' patterns open with `[\w.-]{0,50}?` (most after a
 * `(?i)`): up to 50 characters of the identifier before the rule's keyword
 * (`retry` in `retryToken = …`). In RE2 that prefix costs more than the rest
 * of the pattern: re2js's capture engine (a Pike VM) keeps one thread per
 * place in the prefix alive at every identifier character, so matching
 * generic-api-key's captures took 4 to 10 times as long with it.
 *
 * It changes nothing but where the match starts. With the rest of the
 * pattern called R: whether there is a match, which occurrence of R it holds
 * and the groups inside R are the same with or without the prefix, because
 * the leftmost start with the prefix is the leftmost place R matches, less
 * the prefix's run, and R matches there the same either way (RE2 has no
 * backreference, and an assertion sees only the characters beside it). So
 * the scan runs R alone and widens each match back over the prefix's
 * characters, at most `max` of them and never before the place the search
 * started (the previous match's end). docs/decisions.md ("Redaction") and
 * test/core/redaction/redact-engine.test.ts, which checks the widened matches against
 * the whole pattern's on every rule that has the prefix.
 */

/** The prefix taken off a pattern: its most characters, and whether it is matched ignoring case. */
export type LazyPrefix = { max: number; folded: boolean }

const PREFIX = /^(\(\?i\))?\[\\w\.-\]\{0,(\d+)\}\?/

/**
 * The pattern without its leading `[\w.-]{0,N}?` (its leading `(?i)` kept),
 * or null when it has none, or when taking it off could change the pattern:
 * a `|` at the top level (the prefix would belong to the first alternative
 * only) or nothing after it.
 */
export function withoutLazyPrefix(source: string, flags: string): { rest: string; prefix: LazyPrefix } | null {
  const m = PREFIX.exec(source)
  if (m === null) return null
  const after = source.slice(m[0].length)
  if (after === '' || /^[?*+{]/.test(after) || hasTopLevelBar(after)) return null
  return {
    rest: `${m[1] ?? ''}${after}`,
    prefix: { max: Number(m[2]), folded: m[1] !== undefined || flags.includes('i') },
  }
}

function hasTopLevelBar(source: string): boolean {
  let depth = 0
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === '\\') i += 1
    else if (c === '[') {
      // To the class's end: a `]` right after `[` or `[^` is a literal.
      i += source[i + 1] === '^' ? 2 : 1
      if (source[i] === ']') i += 1
      while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1
    } else if (c === '(') depth += 1
    else if (c === ')') depth -= 1
    else if (c === '|' && depth === 0) return true
  }
  return false
}

/**
 * Whether the prefix's class takes the character: `[\w.-]` is ASCII letters,
 * digits, `_`, `.` and `-`; ignoring case, RE2 adds the two characters that
 * fold to ASCII letters, the Kelvin sign (k) and the long s (s).
 */
export function inLazyPrefix(c: number, folded: boolean): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x5f ||
    c === 0x2e ||
    c === 0x2d ||
    (folded && (c === 0x212a || c === 0x17f))
  )
}

/** Where the whole pattern's match starts, given where R's starts and where the search started. */
export function prefixStart(scope: string, start: number, searchFrom: number, prefix: LazyPrefix): number {
  const floor = Math.max(searchFrom, start - prefix.max)
  let at = start
  while (at > floor && inLazyPrefix(scope.charCodeAt(at - 1), prefix.folded)) at -= 1
  return at
}
