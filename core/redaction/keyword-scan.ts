/**
 * gitleaks' keyword prefilter, in one pass over a fragment: where each
 * rule's keywords are (any case). A line-wise rule gets each place on each
 * line, for core/redaction/windows.ts to search around; a rule meant to span
 * lines (`multiline`) gets where its first keyword ends.
 *
 * Case is folded as RE2's `(?i)` folds ASCII letters, the Kelvin sign and
 * the long s included (they fold to `k` and `s`), so a keyword a pattern
 * matches ignoring case is a keyword here too (core/redaction/reach.ts
 * relies on it).
 */
import {
  BIGRAM_STARTS,
  KEYWORDS,
  PAIR_KEYWORD,
  PAIRS,
  RULES,
  type Rule,
  TRIGRAM_SPAN,
  TRIGRAMS,
  TRIPLES,
  tripleHash,
} from './rules.ts'

const LF = 0x0a

export type LineHits = {
  /** Where the line starts in the text. */
  start: number
  /** The line-wise rules with a keyword on the line, each once. */
  rules: number[]
  /** Each keyword found on the line: its index in KEYWORDS and where it starts, flat. */
  keywords: number[]
}

export type KeywordHits = { lines: LineHits[]; whole: Map<number, number> }

/** For each keyword, its line-wise rules and its multi-line ones. */
const SPLIT = KEYWORDS.map((keyword) => ({
  lineRules: keyword.rules.filter((index) => !(RULES[index] as Rule).multiline),
  wholeRules: keyword.rules.filter((index) => (RULES[index] as Rule).multiline),
}))

/** The keyword places of the fragment text[start, end): per line, the line-wise rules and keywords there; for the multi-line rules, their first keyword's end. */
export function keywordHits(text: string, start: number, end: number): KeywordHits {
  const lines: LineHits[] = []
  const whole = new Map<number, number>()
  // Locals, not the imported bindings: this loop is most of the scan's time.
  const starts = BIGRAM_STARTS
  const pairs = PAIRS
  const triples = TRIPLES
  const pairKeyword = PAIR_KEYWORD
  const trigrams = TRIGRAMS
  const seenOn = new Float64Array(RULES.length).fill(-1)
  let line = null as LineHits | null
  let lineStart = start
  const last = end - 1
  // The characters at i, i + 1 and i + 2, folded (0 past the fragment's end).
  const hit = (k: number, i: number) => {
    const keyword = KEYWORDS[k] as (typeof KEYWORDS)[number]
    const split = SPLIT[k] as (typeof SPLIT)[number]
    for (const index of split.wholeRules) {
      const keywordEnd = i + keyword.text.length
      whole.set(index, Math.min(whole.get(index) ?? keywordEnd, keywordEnd))
    }
    if (split.lineRules.length === 0) return
    if (line?.start !== lineStart) {
      line = { start: lineStart, rules: [], keywords: [] }
      lines.push(line)
    }
    line.keywords.push(k, i)
    for (const index of split.lineRules) {
      if (seenOn[index] === lineStart) continue
      seenOn[index] = lineStart
      line.rules.push(index)
    }
  }
  let a = start < end ? foldedAt(text, start) : 0
  let b = start + 1 < end ? foldedAt(text, start + 1) : 0
  for (let i = start; i < last; i++) {
    const c = i + 2 < end ? foldedAt(text, i + 2) : 0
    const key = (a << 7) | b
    const current = a
    a = b
    b = c
    if (current === LF) {
      lineStart = i + 1
      continue
    }
    // Most places start no keyword's first two characters; of those that do, most start no keyword's first three.
    if (starts[key] === -1) continue
    if (pairs[key] === 0) {
      const hash = tripleHash(current, a, c)
      if (((triples[hash >>> 5] as number) & (1 << (hash & 31))) === 0) continue
    }
    const pair = pairKeyword[key] as number
    if (pair !== -1) hit(pair, i)
    const range = trigrams.get((key << 7) | c)
    if (range === undefined) continue
    const first = Math.floor(range / TRIGRAM_SPAN)
    const stop = first + (range % TRIGRAM_SPAN)
    for (let k = first; k < stop; k++) {
      const keyword = KEYWORDS[k] as (typeof KEYWORDS)[number]
      if (keywordAt(text, i, keyword.text, end)) hit(k, i)
    }
  }
  return { lines, whole }
}

/** The places of the rule's keywords on the line, relative to its start, as [start, end) pairs flat in order of their ends. */
export function placesOf(line: LineHits, rule: number): number[] {
  const list: number[] = []
  for (let i = 0; i < line.keywords.length; i += 2) {
    const keyword = KEYWORDS[line.keywords[i] as number] as (typeof KEYWORDS)[number]
    if (!keyword.rules.includes(rule)) continue
    const at = (line.keywords[i + 1] as number) - line.start
    list.push(at, at + keyword.text.length)
  }
  byEnd(list)
  return list
}

/** Pairs found in order of their starts, put in order of their ends (keywords of different lengths can cross). */
function byEnd(list: number[]): void {
  let sorted = true
  for (let i = 3; i < list.length && sorted; i += 2) sorted = (list[i - 2] as number) <= (list[i] as number)
  if (sorted) return
  const pairs: [number, number][] = []
  for (let i = 0; i < list.length; i += 2) pairs.push([list[i] as number, list[i + 1] as number])
  pairs.sort((x, y) => x[1] - y[1] || x[0] - y[0])
  pairs.forEach(([s, e], i) => {
    list[2 * i] = s
    list[2 * i + 1] = e
  })
}

const ASCII_LOWER = Uint8Array.from({ length: 128 }, (_, c) => (c >= 65 && c <= 90 ? c | 32 : c))

/** ASCII letters folded to lower case, every other code under 128 as it is, RE2's two other folds of `k` and `s`; 0 (which starts no keyword) for anything else. */
function foldedAt(text: string, at: number): number {
  const c = text.charCodeAt(at)
  if (c < 128) return ASCII_LOWER[c] as number
  return c === 0x212a ? 0x6b : c === 0x17f ? 0x73 : 0
}

/** Whether the lower-case ASCII keyword is at text[at], folded as above, its first three characters already compared. */
function keywordAt(text: string, at: number, keyword: string, end: number): boolean {
  if (at + keyword.length > end) return false
  for (let j = 3; j < keyword.length; j++) {
    if (foldedAt(text, at + j) !== keyword.charCodeAt(j)) return false
  }
  return true
}
