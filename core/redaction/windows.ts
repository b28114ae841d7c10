/**
 * A rule's matches on one line, found only around the places its keywords
 * are, with the same result as running it over the whole line
 * (docs/decisions.md, "Redaction"; test/core/redact-windows.test.ts compares
 * the two on generated lines and on the corpus).
 *
 * For a rule whose every match holds one of its keywords (core/redaction/
 * reach.ts, `keyworded`), a match whose first keyword ends at `e` starts no
 * earlier than `e - lead`; and a match that starts at or before a keyword's
 * start `k` ends before `walkEnd(k)`, the place of the (spare + 1)th
 * character after `k` that no unbounded repeat of the rule can take. So a
 * slice of the line from `e - lead` to `walkEnd(k) + 1` holds every match
 * that starts between them whole, with the characters on each side that
 * its assertions look at, and no path from such a start reaches the
 * slice's end, where re2js would take the text to end: what re2js finds
 * there starting by `k` is what it finds on the whole line.
 *
 * The keyword places, in order of their ends, are taken as one range: one
 * DFA pass (`test`) over its slice says whether it holds any match; if it
 * does and the slice is long, each half of the places is taken the same
 * way, so long stretches holding keywords and no match cost a DFA pass, not
 * the capture engine (re2js's Pike VM costs about 2 µs a character on the
 * larger rules). A small slice that holds a match is searched with the
 * capture engine, and a match starting after the range's last keyword
 * (which a later range finds, or which re2js made up at the slice's end)
 * ends it. Ranges are taken in order, each from where the last match ended.
 */
import { hasWordBoundary, sliceTest } from './edges.ts'
import { type RuleMatch, scanMatches } from './matches.ts'
import type { Reach } from './reach.ts'
import type { Rule } from './rules.ts'

/** A slice this long or shorter is searched with the capture engine: re2js's bit-state backtracker takes up to 577 characters on a 454-instruction program (gitleaks' generic rule). */
const LEAF_UNITS = 512

/**
 * The rule's matches with a secret on `line`, given its keywords' places
 * there as [start, end) pairs, flat, in order of their ends.
 */
export function* windowedMatches(
  rule: Rule,
  reach: Reach,
  line: string,
  places: readonly number[],
): Generator<RuleMatch> {
  const walk = walker(reach, line)
  const back = Math.max(1, rule.prefix?.max ?? 0)
  const boundary = hasWordBoundary(rule.scan.pattern())
  let p = 0
  function* range(a: number, b: number): Generator<RuleMatch> {
    let firstEnd = Number.POSITIVE_INFINITY
    let lastStart = -1
    let count = 0
    for (let i = a; i < b; i++) {
      const start = places[2 * i] as number
      // A keyword before where the search is can be in no match from there on.
      if (start < p) continue
      count += 1
      firstEnd = Math.min(firstEnd, places[2 * i + 1] as number)
      lastStart = Math.max(lastStart, start)
    }
    if (count === 0) return
    const from = Math.max(p, firstEnd - reach.lead)
    // Back far enough for the lazy prefix and for the assertions at `from`; to one past where no path goes, and
    // with a `\b` in the pattern, on to before a character that is not a word's, so that `\b` at the slice's end
    // holds there as on the line.
    const sliceStart = Math.max(0, from - back)
    let sliceEnd = Math.min(line.length, walk(lastStart) + 1)
    if (boundary) sliceEnd = beforeNonWord(line, sliceEnd)
    const slice = line.slice(sliceStart, sliceEnd)
    const test = sliceTest(rule, sliceStart > 0, sliceEnd < line.length)
    // A slice whose end is inside a word, with `\b` in the pattern, is searched as if the test had said yes.
    if ((!boundary || sliceEnd === line.length || !isWordChar(line.charCodeAt(sliceEnd))) && !test.test(slice)) return
    // Split while the keywords spread over much more than what a match past the last of them can reach.
    if (count > 1 && lastStart - from > Math.max(LEAF_UNITS, 2 * (sliceEnd - lastStart))) {
      const middle = (a + b) >>> 1
      yield* range(a, middle)
      yield* range(middle, b)
      return
    }
    for (const m of scanMatches(rule, slice, from - sliceStart, Math.max(0, p - sliceStart))) {
      if (m.scanStart + sliceStart > lastStart) return
      p = m.scanEnd + sliceStart
      if (m.found) {
        yield {
          matchStart: m.matchStart + sliceStart,
          matchEnd: m.matchEnd + sliceStart,
          secretStart: m.secretStart + sliceStart,
          secretEnd: m.secretEnd + sliceStart,
        }
      }
    }
  }
  // Keywords whose slices do not overlap are taken apart from the start: one far from another shares no match with it.
  const count = places.length / 2
  let clusterStart = 0
  let farthest = -1
  for (let i = 0; i < count; i++) {
    const from = (places[2 * i + 1] as number) - reach.lead
    if (i > clusterStart && from > farthest) {
      yield* range(clusterStart, i)
      clusterStart = i
    }
    farthest = Math.max(i === clusterStart ? -1 : farthest, walk(places[2 * i] as number))
  }
  yield* range(clusterStart, count)
}

/** RE2's word characters: ASCII letters, digits and `_`. */
function isWordChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f
}

/** The first index at or after `at` whose character is not a word's, looking no more than 64 characters on (else `at`). */
function beforeNonWord(line: string, at: number): number {
  for (let i = at; i < line.length && i < at + 64; i++) if (!isWordChar(line.charCodeAt(i))) return i
  return at + 64 < line.length ? at : line.length
}

/**
 * walkEnd for the line: the index of the (spare + 1)th code point at or
 * after `k` that the rule's unbounded repeats cannot take (or the line's
 * end). The places of such code points are kept from where the asking
 * started, asked mostly in order: one far ahead of them starts them again.
 */
function walker(reach: Reach, line: string): (k: number) => number {
  if (Number.isFinite(reach.longest)) return (k) => Math.min(line.length, k + reach.longest)
  let outside: number[] = []
  let from = 0
  let scanned = 0
  const extend = () => {
    let c = line.charCodeAt(scanned)
    let width = 1
    if (c >= 0xd800 && c <= 0xdbff && scanned + 1 < line.length) {
      const low = line.charCodeAt(scanned + 1)
      if (low >= 0xdc00 && low <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00)
        width = 2
      }
    }
    if (!reach.inLoop(c)) outside.push(scanned)
    scanned += width
  }
  return (k) => {
    if (k < from || k > scanned) {
      outside = []
      from = k
      scanned = k
    }
    while (scanned < line.length && (outside.length === 0 || (outside[outside.length - 1] as number) < k)) extend()
    let lo = 0
    let hi = outside.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((outside[mid] as number) < k) lo = mid + 1
      else hi = mid
    }
    const wanted = lo + reach.spare
    while (scanned < line.length && outside.length <= wanted) extend()
    return wanted < outside.length ? (outside[wanted] as number) : line.length
  }
}
