/**
 * Finding the secrets in one fragment of text (a title, a commit message,
 * one file's section of a diff), as gitleaks' detector does, with the
 * differences docs/decisions.md ("Redaction") lists:
 *
 * - A rule runs only where one of its keywords is (any case), as gitleaks'
 *   prefilter has it (keyword-scan.ts); a rule meant to span lines
 *   (`multiline`) then runs on the whole fragment from a little before its
 *   first keyword, every other rule on each line holding its keyword, and
 *   there only around its keywords where its program shows that every
 *   match holds one and how far a match reaches from it (reach.ts,
 *   windows.ts), with what the whole line would give.
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
import { diffPieces, isSecret } from './filters.ts'
import { keywordHits, placesOf } from './keyword-scan.ts'
import { backtrackMatches, type RuleMatch, ruleMatches } from './matches.ts'
import { type Allowlist, EXAMPLE_KEYS, GLOBAL_ALLOWLIST, RULES, type Rule } from './rules.ts'
import { windowedMatches } from './windows.ts'

export { type RuleMatch, ruleMatches } from './matches.ts'

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

/** Lines up to this long are tested whole by each rule with a keyword on them (one DFA pass); longer ones in slices. */
const WHOLE_LINE_UNITS = 1024

/** The merged secret spans of the fragment, in order of their start. */
export function findSecrets(text: string, fragment: Fragment): Span[] {
  const { lines, whole } = keywordHits(text, fragment.start, fragment.end)
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
  for (const hits of lines) {
    const { start } = hits
    let line: string | undefined
    for (const index of hits.rules) {
      if (!ruleUsable(index)) continue
      if (line === undefined) {
        const newline = text.indexOf('\n', start)
        line = text.slice(start, newline === -1 || newline > fragment.end ? fragment.end : newline)
      }
      const rule = RULES[index] as Rule
      // A short line is asked whole first: one DFA pass over it costs less than working out slices, and most lines
      // have no match. The matches are then taken around the keywords (or, for a rule whose matches may lack one,
      // by re2js on the whole line).
      const short = line.length <= WHOLE_LINE_UNITS
      if (short && !rule.scan.test(line)) continue
      const matches =
        rule.reach.keyworded && Number.isFinite(rule.reach.lead)
          ? windowedMatches(rule, rule.reach, line, placesOf(hits, index), short)[Symbol.iterator]()
          : ruleMatches(rule, line, 0, !short)
      matchRule(index, line, start, text, fragment, found, matches)
    }
  }
  for (const [index, firstEnd] of whole) {
    if (!ruleUsable(index)) continue
    const rule = RULES[index] as Rule
    const reach = rule.reach
    // No match starts before its first keyword's end less the rule's lead.
    const from = reach.keyworded ? Math.max(0, firstEnd - reach.lead - fragment.start) : 0
    const scope = text.slice(fragment.start, fragment.end)
    matchRule(
      index,
      scope,
      fragment.start,
      text,
      fragment,
      found,
      backtrackMatches(rule, scope, Number.isFinite(from) ? from : 0),
    )
  }
  return merged(found)
}

/** The rule's own path, and its allowlists that pass a whole file by its path (gitleaks checks them before matching). */
function appliesTo(rule: Rule, fragment: Fragment): boolean {
  if (rule.path !== null && !rule.path.test(fragment.path())) return false
  for (const list of rule.allowlists) {
    // A list that also asks of the secret is decided match by match (isAllowed).
    if (list.paths.length === 0 || (list.and && (list.regexes.length > 0 || list.stopwords.length > 0))) continue
    if (list.anyPath?.test(fragment.path())) return false
  }
  return true
}

/**
 * Adds the secrets of the rule's `matches` in `scope` (text[offset,
 * offset + scope.length)) that pass its entropy, the allowlists and the
 * checks of filters.ts.
 */
function matchRule(
  index: number,
  scope: string,
  offset: number,
  text: string,
  fragment: Fragment,
  found: Span[],
  matches: Iterator<RuleMatch, void, boolean | undefined>,
): void {
  const rule = RULES[index] as Rule
  // A line-wise rule's scope is the line: its `line` allowlists ask the same of every match on it, so once.
  const scopeLine = lineTarget(() => scope)
  let again = false
  for (let step = matches.next(); step.done !== true; step = matches.next(again)) {
    again = false
    const m = step.value
    const { matchStart, matchEnd } = m
    const value = scope.slice(m.secretStart, m.secretEnd)
    if (rule.entropy > 0 && shannonEntropy(value) <= rule.entropy) continue
    const match = scope.slice(matchStart, matchEnd)
    const line: LineTarget = rule.multiline
      ? lineTarget(() => linesAround(text, offset + matchStart, offset + matchEnd, fragment))
      : scopeLine
    if (EXAMPLE_KEYS.has(value) || isAllowed(GLOBAL_ALLOWLIST, value, match, line, fragment.path)) continue
    if (rule.allowlists.some((list) => isAllowed(list, value, match, line, fragment.path))) continue
    const at = m.secretStart - matchStart
    if (!isSecret({ kind: rule.kind, value, match, at, diff: fragment.diff, path: fragment.path })) {
      // A real key may start inside a match passed over (a PEM header in code, then a key): look again from the next character.
      again = rule.multiline
      continue
    }
    const lineStart = rule.multiline ? lineStartOf(text, offset + m.secretStart, fragment) : offset
    const span = widened(text, offset + m.secretStart, offset + m.secretEnd, lineStart, fragment)
    for (const piece of fragment.diff ? diffPieces(text, span.start, span.end, rule.kind) : [span]) {
      found.push({ ...piece, rule: index })
    }
  }
}

/** The whole lines the match touches, within the fragment (gitleaks' `line` target). */
function linesAround(text: string, start: number, end: number, fragment: Fragment): string {
  const from = Math.max(fragment.start, text.lastIndexOf('\n', start - 1) + 1)
  const newline = text.indexOf('\n', end)
  return text.slice(from, newline === -1 || newline > fragment.end ? fragment.end : newline)
}

/** The lines a match touches (gitleaks' `line` target), read and tried by an allowlist's regexes once each. */
type LineTarget = { allowedBy(list: Allowlist): boolean }

function lineTarget(lines: () => string): LineTarget {
  let text: string | undefined
  const answers = new Map<Allowlist, boolean>()
  return {
    allowedBy(list) {
      let answer = answers.get(list)
      if (answer === undefined) {
        text ??= lines()
        const target = text
        answer = list.anyRegex?.test(target) ?? false
        answers.set(list, answer)
      }
      return answer
    },
  }
}

function isAllowed(list: Allowlist, secret: string, match: string, line: LineTarget, path: () => string): boolean {
  const regexAllowed =
    list.target === 'line'
      ? line.allowedBy(list)
      : (list.anyRegex?.test(list.target === 'secret' ? secret : match) ?? false)
  let stopword = false
  if (list.stopwords.length > 0) {
    stopword = holdsAny(secret.toLowerCase(), list.stopwords)
  }
  if (!list.and) return regexAllowed || stopword
  const checks: boolean[] = []
  if (list.paths.length > 0) checks.push(list.anyPath?.test(path()) ?? false)
  if (list.regexes.length > 0) checks.push(regexAllowed)
  if (list.stopwords.length > 0) checks.push(stopword)
  return checks.every(Boolean)
}

/** A trie of words: a node's children by character, and whether a word ends there. */
type Trie = { next: Map<number, Trie>; end: boolean }

const TRIES = new WeakMap<readonly string[], Trie>()

/**
 * Whether the text holds one of the words (`words.some((w) => text.includes(w))`), by a walk of their trie
 * from each place: gitleaks' generic rule has 1,446 stopwords, asked of every value it finds.
 */
export function holdsAny(text: string, words: readonly string[]): boolean {
  let trie = TRIES.get(words)
  if (trie === undefined) {
    trie = { next: new Map(), end: false }
    for (const word of words) {
      let node = trie
      for (let i = 0; i < word.length; i++) {
        const c = word.charCodeAt(i)
        let child = node.next.get(c)
        if (child === undefined) {
          child = { next: new Map(), end: false }
          node.next.set(c, child)
        }
        node = child
      }
      node.end = true
    }
    TRIES.set(words, trie)
  }
  if (trie.end) return true
  for (let start = 0; start < text.length; start++) {
    let node: Trie | undefined = trie
    for (let i = start; i < text.length; i++) {
      node = node.next.get(text.charCodeAt(i))
      if (node === undefined) break
      if (node.end) return true
    }
  }
  return false
}

/** Shannon entropy in bits per character, as gitleaks computes it. */
export function shannonEntropy(value: string): number {
  if (value === '') return 0
  // Counted in a table for ASCII, a map past it, and summed in the order characters first appear (as a Map
  // iterates): the same sum to the last bit, which a threshold compares.
  const order: number[] = []
  let wide: Map<number, number> | undefined
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c < 128) {
      if (ASCII_COUNTS[c] === 0) order.push(c)
      ASCII_COUNTS[c] = (ASCII_COUNTS[c] as number) + 1
    } else {
      wide ??= new Map()
      const seen = wide.get(c)
      if (seen === undefined) order.push(c)
      wide.set(c, (seen ?? 0) + 1)
    }
  }
  let entropy = 0
  for (const c of order) {
    const count = c < 128 ? (ASCII_COUNTS[c] as number) : (wide?.get(c) as number)
    if (c < 128) ASCII_COUNTS[c] = 0
    const p = count / value.length
    entropy -= p * Math.log2(p)
  }
  return entropy
}

const ASCII_COUNTS = new Int32Array(128)

function isTokenChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2d // 0-9 A-Z a-z _ -
  )
}

/** The start of the line holding text[at], within the fragment. */
function lineStartOf(text: string, at: number, fragment: Fragment): number {
  return Math.max(fragment.start, text.lastIndexOf('\n', at - 1) + 1)
}

/** The secret's span widened to its token; `lineStart` is where the line holding `start` starts. */
function widened(
  text: string,
  start: number,
  end: number,
  lineStart: number,
  fragment: Fragment,
): { start: number; end: number } {
  let from = start
  let to = end
  // The first column of a diff line is its marker, never part of a secret.
  const lowest = lineStart + (fragment.diff ? 1 : 0)
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
