/**
 * A rule's matches on one line, found only around the places its keywords
 * are, with the same result as running it over the whole line
 * (docs/decisions.md, "Redaction"; test/core/redaction/redact-windows.test.ts compares
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

import { leftmostMatch } from './bitstate.ts'
import { sliceTest } from './edges.ts'
import { matchOf, type RuleMatch, scanMatches, staticsOf } from './matches.ts'
import type { Reach } from './reach.ts'
import type { Rule } from './rules.ts'

/** The most units a chunk's keywords spread over: one DFA test rules out no more than this much of a line. */
const CHUNK_UNITS = 4096

/**
 * The rule's matches with a secret on `line`, given its keywords' places
 * there as [start, end) pairs, flat, in order of their ends; `tested` when
 * a DFA pass over the whole line found a match already.
 */
export function windowedMatches(
  rule: Rule,
  reach: Reach,
  line: string,
  places: readonly number[],
  tested = false,
): RuleMatch[] {
  const { program, literal, groups, back, boundary } = staticsOf(rule)
  const count = places.length / 2
  // Where no path from a start at or before each keyword can read (walkEnd), asked once each, in order.
  const walk = walker(reach, line)
  const reachEnd: number[] = []
  for (let i = 0; i < count; i++) reachEnd.push(walk(places[2 * i] as number))
  const out: RuleMatch[] = []
  let p = 0

  /** The matches of keywords a to b (by their ends), from where the search is on. */
  const chunk = (a: number, b: number): void => {
    let firstEnd = Number.POSITIVE_INFINITY
    let farthest = -1
    for (let i = a; i < b; i++) {
      // A keyword before where the search is can be in no match from there on.
      if ((places[2 * i] as number) < p) continue
      firstEnd = Math.min(firstEnd, places[2 * i + 1] as number)
      farthest = Math.max(farthest, reachEnd[i] as number)
    }
    if (farthest === -1) return
    if (!tested && !mayMatch(Math.max(p, firstEnd - reach.lead), farthest)) return
    // Each keyword in turn: the leftmost match starting from a lead before its end to its start, found by the
    // backtracker on the line itself; again from that match's end while the keyword is after it.
    for (let i = a; i < b; i++) {
      const start = places[2 * i] as number
      const end = places[2 * i + 1] as number
      const canStart = (at: number) => reach.canStart(line.codePointAt(at) ?? -1, end - at)
      while (start >= p) {
        const searchFrom = Math.max(p, end - reach.lead)
        const limit = Math.min(line.length, (reachEnd[i] as number) + 1)
        const caps = leftmostMatch(program, literal, line, searchFrom, start, limit, canStart)
        if (caps === undefined) {
          sliceSearch(searchFrom, start, limit)
          break
        }
        if (caps === null) break
        const m = matchOf(
          rule,
          line,
          groups,
          (g) => caps[2 * g] ?? -1,
          (g) => caps[2 * g + 1] ?? -1,
          p,
        )
        p = m.scanEnd
        if (m.found)
          out.push({
            matchStart: m.matchStart,
            matchEnd: m.matchEnd,
            secretStart: m.secretStart,
            secretEnd: m.secretEnd,
          })
      }
    }
  }

  /**
   * Whether the slice from `from` to past `farthest` may hold a match: one DFA test, back far enough for the lazy
   * prefix and for the assertions at `from`, to one past where no path goes and, with a `\b` in the pattern, on to
   * before a character that is not a word's, so that `\b` at the slice's end holds there as on the line (one whose
   * end stays inside a word is searched as if the test had said yes).
   */
  const mayMatch = (from: number, farthest: number): boolean => {
    const sliceStart = Math.max(0, from - back)
    let sliceEnd = Math.min(line.length, farthest + 1)
    if (boundary) sliceEnd = beforeNonWord(line, sliceEnd)
    if (boundary && sliceEnd < line.length && isWordChar(line.charCodeAt(sliceEnd))) return true
    return sliceTest(rule, sliceStart > 0, sliceEnd < line.length).test(line.slice(sliceStart, sliceEnd))
  }

  /** The matches starting from `from` to `last`, by re2js on a slice: for a window too large for the backtracker. */
  const sliceSearch = (from: number, last: number, limit: number): void => {
    const sliceStart = Math.max(0, from - back)
    const slice = line.slice(sliceStart, limit)
    for (const m of scanMatches(rule, slice, from - sliceStart, Math.max(0, p - sliceStart))) {
      if (m.scanStart + sliceStart > last) return
      p = m.scanEnd + sliceStart
      if (m.found) {
        out.push({
          matchStart: m.matchStart + sliceStart,
          matchEnd: m.matchEnd + sliceStart,
          secretStart: m.secretStart + sliceStart,
          secretEnd: m.secretEnd + sliceStart,
        })
      }
    }
  }

  // Chunks of keywords in a row: a new one where a keyword's slice starts past all the others' (it shares no match with
  // them), or where the keywords would spread over more than CHUNK_UNITS (so one DFA test rules out no more than that).
  let first = 0
  let chunkFrom = 0
  let chunkReach = -1
  for (let i = 0; i < count; i++) {
    const from = (places[2 * i + 1] as number) - reach.lead
    if (i > first && (from > chunkReach || (places[2 * i] as number) - chunkFrom > CHUNK_UNITS)) {
      chunk(first, i)
      first = i
    }
    if (i === first) {
      chunkFrom = from
      chunkReach = -1
    }
    chunkReach = Math.max(chunkReach, reachEnd[i] as number)
  }
  chunk(first, count)
  return out
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

/** The walker's buffer, kept from one line to the next (one line is walked at a time). */
let SCRATCH = new Int32Array(1024)

/**
 * walkEnd for the line: the index of the (spare + 1)th code point at or
 * after `k` that the rule's unbounded repeats cannot take (or the line's
 * end). The places of such code points are kept from where the asking
 * started, asked mostly in order: one far ahead of them starts them again.
 */
function walker(reach: Reach, line: string): (k: number) => number {
  if (Number.isFinite(reach.longest)) return (k) => Math.min(line.length, k + reach.longest)
  const ascii = reach.loopAscii
  // The places in [from, scanned) of code points outside the repeats: places[head, tail).
  let found = SCRATCH
  let head = 0
  let tail = 0
  let from = 0
  let scanned = 0
  return (k) => {
    if (k < from || k > scanned) {
      head = 0
      tail = 0
      scanned = k
    }
    while (head < tail && (found[head] as number) < k) head += 1
    from = k
    const wanted = reach.spare + 1
    while (tail - head < wanted && scanned < line.length) {
      if (tail === found.length) {
        const kept = found.subarray(head, tail)
        if (head < found.length / 2) {
          found = new Int32Array(found.length * 2)
          SCRATCH = found
        }
        found.set(kept)
        tail -= head
        head = 0
      }
      const c = line.charCodeAt(scanned)
      if (c < 128) {
        if (ascii[c] === 0) found[tail++] = scanned
        scanned += 1
        continue
      }
      const point = line.codePointAt(scanned) as number
      if (!reach.inLoop(point)) found[tail++] = scanned
      scanned += point > 0xffff ? 2 : 1
    }
    return tail - head >= wanted ? (found[head + reach.spare] as number) : line.length
  }
}
