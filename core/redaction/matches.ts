/**
 * A rule's matches in a scope, as its whole pattern gives them (Go's
 * FindAllStringSubmatchIndex): the scan pattern run by re2js (linear in
 * the scope), a match widened back over gitleaks' lazy identifier prefix
 * (core/redaction/lazy-prefix.ts), its line breaks trimmed off its ends, and
 * its secret (the rule's secret group, else its first non-empty group, else
 * the match).
 */
import { leftmostMatch, type Program } from './bitstate.ts'
import { hasWordBoundary } from './edges.ts'
import { prefixStart } from './lazy-prefix.ts'
import type { Rule } from './rules.ts'

const LF = 0x0a

/** One match of a rule in a scope: the match (line breaks trimmed off its ends, as gitleaks does) and its secret. */
export type RuleMatch = { matchStart: number; matchEnd: number; secretStart: number; secretEnd: number }

/**
 * Every match of the scan pattern, secret or not: where the scan pattern's
 * own match starts and ends (`scanStart`, `scanEnd`: without the lazy
 * prefix, line breaks and all), and whether it has a secret (`found`).
 */
export type ScanMatch = RuleMatch & { scanStart: number; scanEnd: number; found: boolean }

/**
 * The matches from `from` on, the lazy prefix reaching back no further
 * than `floor` (where the previous match ended). Given `true` back for a
 * match (`next(true)`), it searches again from the character after the
 * match's start instead of after its end, as a JavaScript regex would with
 * `lastIndex = m.index + 1`: a match passed over may hold the start of one
 * that is not (filters.ts, a PEM header in code).
 */
export function* scanMatches(
  rule: Rule,
  scope: string,
  from: number,
  floor: number,
): Generator<ScanMatch, void, boolean | undefined> {
  const m = rule.scan.matcher(scope)
  const groups = m.groupCount()
  let searchFrom = floor
  const start = (g: number) => m.start(g)
  const end = (g: number) => m.end(g)
  for (let hit = m.find(from); hit; ) {
    const found = matchOf(rule, scope, groups, start, end, searchFrom)
    const wholeStart = found.wholeStart
    searchFrom = found.scanEnd
    const again = (yield found) === true
    if (again) searchFrom = wholeStart + 1
    hit = again ? m.find(wholeStart + 1) : m.find()
  }
}

/**
 * One match given its groups' places (`start(g)`, `end(g)`; group 0 the scan
 * pattern's match): widened back over the lazy prefix no further than
 * `floor`, its line breaks trimmed, and its secret.
 */
export function matchOf(
  rule: Rule,
  scope: string,
  groups: number,
  start: (group: number) => number,
  end: (group: number) => number,
  floor: number,
): ScanMatch & { wholeStart: number } {
  const scanStart = start(0)
  const scanEnd = end(0)
  let matchStart = rule.prefix === null ? scanStart : prefixStart(scope, scanStart, floor, rule.prefix)
  let matchEnd = scanEnd
  const wholeStart = matchStart
  while (matchStart < matchEnd && scope.charCodeAt(matchStart) === LF) matchStart += 1
  while (matchEnd > matchStart && scope.charCodeAt(matchEnd - 1) === LF) matchEnd -= 1
  const secret =
    matchStart === matchEnd ? undefined : secretRange(groups, rule.secretGroup, start, end, matchStart, matchEnd)
  return {
    matchStart,
    matchEnd,
    secretStart: secret?.[0] ?? matchStart,
    secretEnd: secret?.[1] ?? matchStart,
    scanStart,
    scanEnd,
    found: secret !== undefined,
    wholeStart,
  }
}

/**
 * The rule's matches with a secret in the scope, from `from` on (none
 * starts before it), after one pass of re2js's DFA (`test`, no captures)
 * says there is one (unless the caller asked it already): most rules find
 * nothing on most of the text they are given, and the capture engine is
 * the slow one. `next(true)` as above.
 */
export function* ruleMatches(
  rule: Rule,
  scope: string,
  from = 0,
  test = true,
): Generator<RuleMatch, void, boolean | undefined> {
  // From a later place, one character before it too, so that an assertion there (`\b`) sees what precedes it.
  if (test && !rule.scan.test(from === 0 ? scope : scope.slice(from - 1))) return
  const inner = scanMatches(rule, scope, from, 0)
  let again: boolean | undefined
  for (let step = inner.next(); step.done !== true; step = inner.next(again)) {
    again = undefined
    const m = step.value
    if (!m.found) continue
    again = yield { matchStart: m.matchStart, matchEnd: m.matchEnd, secretStart: m.secretStart, secretEnd: m.secretEnd }
  }
}

/** What a rule's program gives the search, worked out once. */
type Statics = { program: Program; literal: string; groups: number; back: number; boundary: boolean }

const STATICS = new WeakMap<Rule, Statics>()

export function staticsOf(rule: Rule): Statics {
  let statics = STATICS.get(rule)
  if (statics === undefined) {
    const re2 = rule.scan.re2()
    const program = re2.prog as Program
    statics = {
      program,
      literal: re2.prefix as string,
      groups: program.numCap / 2 - 1,
      back: Math.max(1, rule.prefix?.max ?? 0),
      boundary: hasWordBoundary(rule.scan.pattern()),
    }
    STATICS.set(rule, statics)
  }
  return statics
}

/**
 * The rule's matches with a secret in the scope from `from` on, by the
 * bit-state backtracker (bitstate.ts), or by re2js from where a search
 * would mark more than MAX_STATES pairs: for a rule meant to span lines,
 * whose capture in re2js's Pike VM read a whole key at about 1.5 µs a
 * character. A DFA pass first says whether there is a next match at all.
 * `next(true)` as in scanMatches.
 */
export function* backtrackMatches(
  rule: Rule,
  scope: string,
  from: number,
): Generator<RuleMatch, void, boolean | undefined> {
  const { program, literal, groups } = staticsOf(rule)
  let pos = from
  let floor = 0
  while (pos <= scope.length && rule.scan.test(pos === 0 ? scope : scope.slice(pos - 1))) {
    const caps = leftmostMatch(program, literal, scope, pos, scope.length, scope.length)
    if (caps === null) return
    if (caps === undefined) {
      // The next match needs more than one search may mark: re2js takes it from here.
      const rest = scanMatches(rule, scope, pos, floor)
      let again: boolean | undefined
      for (let step = rest.next(); step.done !== true; step = rest.next(again)) {
        again = undefined
        const m = step.value
        if (m.found)
          again = yield {
            matchStart: m.matchStart,
            matchEnd: m.matchEnd,
            secretStart: m.secretStart,
            secretEnd: m.secretEnd,
          }
      }
      return
    }
    const m = matchOf(
      rule,
      scope,
      groups,
      (g) => caps[2 * g] ?? -1,
      (g) => caps[2 * g + 1] ?? -1,
      floor,
    )
    floor = m.scanEnd
    const again =
      m.found &&
      (yield { matchStart: m.matchStart, matchEnd: m.matchEnd, secretStart: m.secretStart, secretEnd: m.secretEnd }) ===
        true
    if (again) {
      floor = m.wholeStart + 1
      pos = m.wholeStart + 1
    } else pos = m.scanEnd > m.scanStart ? m.scanEnd : m.scanEnd + 1
  }
}

/** [start, end) of the secret within the scope, or undefined when the group it names is empty or unmatched. */
function secretRange(
  groups: number,
  secretGroup: number,
  startOf: (group: number) => number,
  endOf: (group: number) => number,
  matchStart: number,
  matchEnd: number,
): [number, number] | undefined {
  if (groups === 0) return [matchStart, matchEnd]
  if (secretGroup > 0) {
    if (secretGroup > groups) return undefined
    const start = startOf(secretGroup)
    const end = endOf(secretGroup)
    return start < 0 || start === end ? undefined : [start, end]
  }
  for (let g = 1; g <= groups; g++) {
    const start = startOf(g)
    const end = endOf(g)
    if (start >= 0 && start < end) return [start, end]
  }
  return [matchStart, matchEnd]
}
