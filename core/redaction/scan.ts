/**
 * Finding the secrets in one fragment of text (a title, a commit message,
 * one file's section of a diff), as gitleaks' detector does, with the
 * differences docs/decisions.md ("Redaction") lists:
 *
 * - A rule runs only where one of its keywords is (any case), as gitleaks'
 *   prefilter has it; a rule meant to span lines (`multiline`) then runs on
 *   the whole fragment, every other rule on each line holding its keyword,
 *   which is what keeps 236 rules inside the time budget.
 * - The secret is the rule's secret group (else its first non-empty group,
 *   else the match), kept only if its entropy is over the rule's and no
 *   allowlist (gitleaks' global one less its paths, then the rule's) lets it
 *   pass, it is none of the vendors' documented example keys, and the
 *   checks a pattern can't make (filters.ts) hold.
 * - In a diff, a secret over several lines is cut into one piece per run of
 *   lines of one side (filters.ts, `diffPieces`).
 * - A secret's span is then widened to the whole run of letters, digits,
 *   `_` and `-` it sits in, so a rule that matches a token's first N
 *   characters cannot leave its tail behind; in a diff it never takes a
 *   line's first column, the `+`, `-` or ` ` of the hunk.
 * - Overlapping spans are merged into one; the kind is the specific rule's
 *   over a catch-all's (gitleaks' generic one, our password one), then the
 *   longest span's.
 */
import type { Matcher } from 're2js'
import { diffPieces, isSecret } from './filters.ts'
import { prefixStart } from './lazy-prefix.ts'
import {
  type Allowlist,
  BIGRAM_COUNTS,
  BIGRAM_STARTS,
  EXAMPLE_KEYS,
  GLOBAL_ALLOWLIST,
  KEYWORDS,
  PAIRS,
  RULES,
  type Rule,
  TRIPLES,
  tripleHash,
} from './rules.ts'

/** A secret's place in the text: [start, end), and the index of its rule in `RULES`. */
export type Span = { start: number; end: number; rule: number }

export type Fragment = {
  /** The fragment is text[start, end). */
  start: number
  end: number
  /** The file's path for a diff section, else the empty string; asked only when a rule needs it. */
  path(): string
  /** A diff section: its lines' first column is the hunk's marker, never part of a secret. */
  diff: boolean
}

const LF = 0x0a

/** The merged secret spans of the fragment, in order of their start. */
export function findSecrets(text: string, fragment: Fragment): Span[] {
  const { lineRuns, wholeRules } = keywordHits(text, fragment)
  const found: Span[] = []
  const usable = new Map<number, boolean>()
  const ruleUsable = (index: number) => {
    let ok = usable.get(index)
    if (ok === undefined) {
      ok = appliesTo(RULES[index] as Rule, fragment)
      usable.set(index, ok)
    }
    return ok
  }
  let cachedStart = -1
  let cachedLine = ''
  for (let i = 0; i < lineRuns.length; i += 2) {
    const lineStart = lineRuns[i] as number
    const index = lineRuns[i + 1] as number
    if (!ruleUsable(index)) continue
    if (lineStart !== cachedStart) {
      const newline = text.indexOf('\n', lineStart)
      cachedLine = text.slice(lineStart, newline === -1 || newline > fragment.end ? fragment.end : newline)
      cachedStart = lineStart
    }
    matchRule(index, cachedLine, lineStart, text, fragment, found)
  }
  for (const index of wholeRules) {
    if (!ruleUsable(index)) continue
    matchRule(index, text.slice(fragment.start, fragment.end), fragment.start, text, fragment, found)
  }
  return merged(found)
}

/**
 * One pass over the fragment for the keywords: for each line-wise rule the
 * lines (their starts) that hold one of its keywords, as (line start, rule)
 * pairs in text order, and the multiline rules with a keyword anywhere.
 */
function keywordHits(text: string, fragment: Fragment): { lineRuns: number[]; wholeRules: number[] } {
  const lineRuns: number[] = []
  const wholeRules: number[] = []
  const lastLine = new Float64Array(RULES.length).fill(-1)
  // Locals, not the imported bindings: this loop is most of the scan's time.
  const starts = BIGRAM_STARTS
  const counts = BIGRAM_COUNTS
  const pairs = PAIRS
  const triples = TRIPLES
  const lower = ASCII_LOWER
  let lineStart = fragment.start
  const last = fragment.end - 1
  // The characters at i, i + 1 and i + 2, folded (0 past the fragment's end).
  let a = fragment.start < fragment.end ? foldedAt(text, fragment.start, lower) : 0
  let b = fragment.start + 1 < fragment.end ? foldedAt(text, fragment.start + 1, lower) : 0
  for (let i = fragment.start; i < last; i++) {
    const c = i + 2 < fragment.end ? foldedAt(text, i + 2, lower) : 0
    const key = (a << 7) | b
    const current = a
    a = b
    b = c
    if (current === LF) {
      lineStart = i + 1
      continue
    }
    if (pairs[key] === 0) {
      const hash = tripleHash(current, a, c)
      if (((triples[hash >>> 5] as number) & (1 << (hash & 31))) === 0) continue
    }
    const first = starts[key] as number
    if (first === -1) continue
    const stop = first + (counts[key] as number)
    for (let k = first; k < stop; k++) {
      const keyword = KEYWORDS[k]
      if (keyword === undefined || !keywordAt(text, i, keyword.text, fragment.end)) continue
      for (const index of keyword.rules) {
        if (lastLine[index] === lineStart || lastLine[index] === -2) continue
        if ((RULES[index] as Rule).multiline) {
          lastLine[index] = -2
          wholeRules.push(index)
        } else {
          lastLine[index] = lineStart
          lineRuns.push(lineStart, index)
        }
      }
    }
  }
  wholeRules.sort((x, y) => x - y)
  return { lineRuns, wholeRules }
}

/** ASCII letters folded to lower case; every other code under 128 as it is. */
const ASCII_LOWER = Uint8Array.from({ length: 128 }, (_, c) => (c >= 65 && c <= 90 ? c | 32 : c))

/** The character's code folded by `lower`, or 0 (which starts no keyword) for one past ASCII. */
function foldedAt(text: string, at: number, lower: Uint8Array): number {
  const c = text.charCodeAt(at)
  return c < 128 ? (lower[c] as number) : 0
}

/** Whether the lower-case ASCII keyword is at text[at], any case, its first two characters already compared. */
function keywordAt(text: string, at: number, keyword: string, end: number): boolean {
  if (at + keyword.length > end) return false
  for (let j = 2; j < keyword.length; j++) {
    let c = text.charCodeAt(at + j)
    if (c >= 65 && c <= 90) c |= 32
    if (c !== keyword.charCodeAt(j)) return false
  }
  return true
}

/** The rule's own path, and its allowlists that pass a whole file by its path (gitleaks checks them before matching). */
function appliesTo(rule: Rule, fragment: Fragment): boolean {
  if (rule.path !== null && !rule.path.test(fragment.path())) return false
  for (const list of rule.allowlists) {
    if (list.paths.length === 0) continue
    const pathAllowed = list.paths.some((regex) => regex.test(fragment.path()))
    if (!list.and && pathAllowed) return false
    if (list.and && list.regexes.length === 0 && list.stopwords.length === 0 && pathAllowed) return false
  }
  return true
}

/**
 * Runs the rule on `scope` (text[offset, offset + scope.length)) and adds the
 * secrets it finds. re2js's `test` runs its DFA, which asks no capture and is
 * the fast path; most rules find nothing on most of the text they are given,
 * so the `matcher`, which has to track the groups, runs only where `test`
 * found a match. Both are linear in the scope.
 */
function matchRule(
  index: number,
  scope: string,
  offset: number,
  text: string,
  fragment: Fragment,
  found: Span[],
): void {
  const rule = RULES[index] as Rule
  const matches = ruleMatches(rule, scope)
  let again = false
  for (let step = matches.next(); step.done !== true; step = matches.next(again)) {
    again = false
    const m = step.value
    const { matchStart, matchEnd } = m
    const value = scope.slice(m.secretStart, m.secretEnd)
    if (rule.entropy > 0 && shannonEntropy(value) <= rule.entropy) continue
    const match = scope.slice(matchStart, matchEnd)
    const line = () => linesAround(text, offset + matchStart, offset + matchEnd, fragment)
    if (EXAMPLE_KEYS.has(value) || isAllowed(GLOBAL_ALLOWLIST, value, match, line, fragment.path)) continue
    if (rule.allowlists.some((list) => isAllowed(list, value, match, line, fragment.path))) continue
    const at = m.secretStart - matchStart
    if (!isSecret({ kind: rule.kind, value, match, at, diff: fragment.diff, path: fragment.path })) {
      // A real key may start inside a match passed over (a PEM header in code, then a key): look again from the next character.
      again = rule.multiline
      continue
    }
    const span = widened(text, offset + m.secretStart, offset + m.secretEnd, fragment)
    for (const piece of fragment.diff ? diffPieces(text, span.start, span.end, rule.kind) : [span]) {
      found.push({ ...piece, rule: index })
    }
  }
}

/** One match of a rule in a scope: the match (line breaks trimmed off its ends, as gitleaks does) and its secret. */
export type RuleMatch = { matchStart: number; matchEnd: number; secretStart: number; secretEnd: number }

/**
 * The rule's matches in the scope, as its whole pattern gives them (Go's
 * FindAllStringSubmatchIndex), less those whose secret group is empty.
 * Given `true` back for a match (`next(true)`), it searches again from the
 * character after the match's start instead of after its end, as a
 * JavaScript regex would with `lastIndex = m.index + 1`: a match passed over
 * may hold the start of one that is not (filters.ts, a PEM header in code).
 */
export function* ruleMatches(rule: Rule, scope: string): Generator<RuleMatch, void, boolean | undefined> {
  if (!rule.scan.test(scope)) return
  const m = rule.scan.matcher(scope)
  const groups = m.groupCount()
  let searchFrom = 0
  for (let hit = m.find(); hit; ) {
    let matchStart = m.start(0)
    let matchEnd = m.end(0)
    if (rule.prefix !== null) matchStart = prefixStart(scope, matchStart, searchFrom, rule.prefix)
    const wholeStart = matchStart
    searchFrom = matchEnd
    while (matchStart < matchEnd && scope.charCodeAt(matchStart) === LF) matchStart += 1
    while (matchEnd > matchStart && scope.charCodeAt(matchEnd - 1) === LF) matchEnd -= 1
    const secret = matchStart === matchEnd ? undefined : secretRange(m, groups, rule.secretGroup, matchStart, matchEnd)
    const again =
      secret !== undefined && (yield { matchStart, matchEnd, secretStart: secret[0], secretEnd: secret[1] }) === true
    if (again) searchFrom = wholeStart + 1
    hit = again ? m.find(wholeStart + 1) : m.find()
  }
}

/** [start, end) of the secret within the scope, or undefined when the group it names is empty or unmatched. */
function secretRange(
  m: Matcher,
  groups: number,
  secretGroup: number,
  matchStart: number,
  matchEnd: number,
): [number, number] | undefined {
  if (groups === 0) return [matchStart, matchEnd]
  if (secretGroup > 0) {
    if (secretGroup > groups) return undefined
    const start = m.start(secretGroup)
    const end = m.end(secretGroup)
    return start < 0 || start === end ? undefined : [start, end]
  }
  for (let g = 1; g <= groups; g++) {
    const start = m.start(g)
    const end = m.end(g)
    if (start >= 0 && start < end) return [start, end]
  }
  return [matchStart, matchEnd]
}

/** The whole lines the match touches, within the fragment (gitleaks' `line` target). */
function linesAround(text: string, start: number, end: number, fragment: Fragment): string {
  const from = Math.max(fragment.start, text.lastIndexOf('\n', start - 1) + 1)
  const newline = text.indexOf('\n', end)
  return text.slice(from, newline === -1 || newline > fragment.end ? fragment.end : newline)
}

function isAllowed(list: Allowlist, secret: string, match: string, line: () => string, path: () => string): boolean {
  const target = list.target === 'secret' ? secret : list.target === 'match' ? match : line()
  const regexAllowed = list.regexes.some((regex) => regex.test(target))
  let stopword = false
  if (list.stopwords.length > 0) {
    const lower = secret.toLowerCase()
    stopword = list.stopwords.some((word) => lower.includes(word))
  }
  if (!list.and) return regexAllowed || stopword
  const checks: boolean[] = []
  if (list.paths.length > 0) checks.push(list.paths.some((regex) => regex.test(path())))
  if (list.regexes.length > 0) checks.push(regexAllowed)
  if (list.stopwords.length > 0) checks.push(stopword)
  return checks.every(Boolean)
}

/** Shannon entropy in bits per character, as gitleaks computes it. */
export function shannonEntropy(value: string): number {
  if (value === '') return 0
  const counts = new Map<number, number>()
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    counts.set(c, (counts.get(c) ?? 0) + 1)
  }
  let entropy = 0
  for (const count of counts.values()) {
    const p = count / value.length
    entropy -= p * Math.log2(p)
  }
  return entropy
}

function isTokenChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2d // 0-9 A-Z a-z _ -
  )
}

function widened(text: string, start: number, end: number, fragment: Fragment): { start: number; end: number } {
  let from = start
  let to = end
  // The first column of a diff line is its marker, never part of a secret.
  const floor = (at: number) => Math.max(fragment.start, text.lastIndexOf('\n', at - 1) + 1) + (fragment.diff ? 1 : 0)
  const lowest = floor(from)
  if (from < lowest && from < to) from = Math.min(lowest, to)
  while (from > lowest && isTokenChar(text.charCodeAt(from - 1))) from -= 1
  while (to < fragment.end && isTokenChar(text.charCodeAt(to))) to += 1
  return { start: from, end: to }
}

/** Sorted, overlaps merged: the merged span takes the kind of its most specific, then longest, then first rule. */
function merged(spans: Span[]): Span[] {
  if (spans.length <= 1) return spans
  spans.sort((a, b) => a.start - b.start || b.end - a.end || a.rule - b.rule)
  const out: Span[] = []
  let current = spans[0] as Span
  for (let i = 1; i < spans.length; i++) {
    const next = spans[i] as Span
    if (next.start < current.end) {
      current = { start: current.start, end: Math.max(current.end, next.end), rule: preferred(current, next) }
    } else {
      out.push(current)
      current = next
    }
  }
  out.push(current)
  return out
}

function preferred(a: Span, b: Span): number {
  const ruleA = RULES[a.rule] as Rule
  const ruleB = RULES[b.rule] as Rule
  if (ruleA.generic !== ruleB.generic) return ruleA.generic ? b.rule : a.rule
  const lengthA = a.end - a.start
  const lengthB = b.end - b.start
  if (lengthA !== lengthB) return lengthA > lengthB ? a.rule : b.rule
  return Math.min(a.rule, b.rule)
}
