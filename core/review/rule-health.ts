/**
 * Each rule's health in production (docs/behaviour.md, "Rule health"): what
 * one review run counts for each of its rules, the per repo and UTC day
 * document of the KV bucket `review-classifier-rule-health`, and the memory
 * of recent PRs that tells a fix (the rule failed on one head of a PR and
 * passed on a later head) and a flaky rule (runs on the same head disagreed).
 * The controller's use case (usecases/review/rule-health.ts) does the reads
 * and compare-and-set writes; what it decides is here and in
 * rule-health-view.ts.
 */
import { isRecord } from '../wire/decode.ts'

export const RULE_HEALTH_BUCKET = 'review-classifier-rule-health'
/** Days kept, today included; older day keys are deleted. */
export const RULE_HEALTH_DAYS = 30
/** The counters, in the order the route and the page list them. */
export const RULE_OUTCOMES = ['asked', 'failed', 'passed', 'uncounted', 'unanswered', 'waived', 'fixed'] as const
export type RuleOutcome = (typeof RULE_OUTCOMES)[number]
export type RuleCounts = Record<RuleOutcome, number>

/** A day keeps this many PR numbers per rule: enough for `silent`'s 20 PRs, whichever day holds them. */
export const PRS_KEPT_PER_DAY = 20
/** And this many of its failing runs' ids, newest first, for the page's links. */
export const FAILING_RUNS_KEPT_PER_DAY = 5
/** The PRs whose last head and per-rule state are remembered, the most recently reviewed first. */
export const PRS_REMEMBERED = 100

/** One rule's counts on one day. */
export type RuleDay = RuleCounts & {
  name: string
  /** PRs it was asked on (at most {@link PRS_KEPT_PER_DAY}). */
  prs: number[]
  /** PRs where runs on the same head disagreed about it. */
  flaky_prs: number[]
  /** Ids of the runs it failed in, newest first (at most {@link FAILING_RUNS_KEPT_PER_DAY}). */
  failing_runs: string[]
}

/** One repo's day: a key of its own. Rules as a list, so no rule name can be an object's special key. */
export type HealthDay = { repo: string; day: string; rules: RuleDay[] }

/** The outcome of one rule in one run: what the run's row counts. */
export type RowOutcome = 'failed' | 'passed' | 'uncounted' | 'unanswered'

/**
 * A run's row as counting reads it. `in_scope` comes with per-rule `paths`
 * (a rule whose paths the PR doesn't touch is not asked): typed here, as
 * optional, so a row without it counts as in scope.
 */
export type CountedRow = {
  name: string
  verdict: string | null
  counted: boolean
  fails: boolean
  error: unknown
  in_scope?: boolean
}

/** What one row counts: its outcome, and whether the model was asked. */
export function rowOutcome(row: CountedRow): { outcome: RowOutcome; asked: boolean } {
  if (row.in_scope === false) return { outcome: 'uncounted', asked: false }
  if (row.error !== null && row.error !== undefined) return { outcome: 'unanswered', asked: true }
  if (row.verdict === null) return { outcome: 'unanswered', asked: true }
  if (!row.counted) return { outcome: 'uncounted', asked: true }
  return { outcome: row.fails ? 'failed' : 'passed', asked: true }
}

export function zeroCounts(): RuleCounts {
  return { asked: 0, failed: 0, passed: 0, uncounted: 0, unanswered: 0, waived: 0, fixed: 0 }
}

/** A key part for `owner/name`: NATS keys take `[-/_=.A-Za-z0-9]`, and `.` separates tokens, so it is escaped. */
export function repoKeyPart(repo: string): string {
  let out = ''
  for (const byte of new TextEncoder().encode(repo)) {
    const char = String.fromCharCode(byte)
    out += /[A-Za-z0-9_/-]/.test(char) ? char : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

export function dayKey(repo: string, day: string): string {
  return `days.${repoKeyPart(repo)}.${day}`
}

export function prsKey(repo: string): string {
  return `prs.${repoKeyPart(repo)}`
}

const DAY_MS = 86_400_000

/** The UTC day of `ms`, `YYYY-MM-DD`. */
export function healthDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** The oldest day kept on `today`: {@link RULE_HEALTH_DAYS} days, today included. */
export function oldestHealthDay(today: string): string {
  return healthDay(Date.parse(`${today}T00:00:00Z`) - (RULE_HEALTH_DAYS - 1) * DAY_MS)
}

/** The days kept on `today`, oldest first. */
export function healthDays(today: string): string[] {
  const start = Date.parse(`${oldestHealthDay(today)}T00:00:00Z`)
  return Array.from({ length: RULE_HEALTH_DAYS }, (_, index) => healthDay(start + index * DAY_MS))
}

function naturals(value: unknown, max: number): number[] {
  if (!Array.isArray(value)) return []
  return value.filter((item): item is number => Number.isSafeInteger(item) && item >= 0).slice(0, max)
}

function strings(value: unknown, max: number): string[] {
  if (!Array.isArray(value)) return []
  return value.filter((item): item is string => typeof item === 'string').slice(0, max)
}

function decodeRuleDay(value: unknown): RuleDay | null {
  if (!isRecord(value) || typeof value.name !== 'string') return null
  const counts = zeroCounts()
  for (const outcome of RULE_OUTCOMES) {
    const count = value[outcome]
    if (Number.isSafeInteger(count) && typeof count === 'number' && count > 0) counts[outcome] = count
  }
  return {
    name: value.name,
    ...counts,
    prs: naturals(value.prs, PRS_KEPT_PER_DAY),
    flaky_prs: naturals(value.flaky_prs, Number.MAX_SAFE_INTEGER),
    failing_runs: strings(value.failing_runs, FAILING_RUNS_KEPT_PER_DAY),
  }
}

/** A stored day; what isn't readable reads as nothing counted, with the reason. */
export function decodeHealthDay(
  text: string | null,
  repo: string,
  day: string,
): { day: HealthDay; warning: string | null } {
  const empty: HealthDay = { repo, day, rules: [] }
  if (text === null) return { day: empty, warning: null }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return { day: empty, warning: "the stored day isn't JSON" }
  }
  if (!isRecord(parsed) || !Array.isArray(parsed.rules)) return { day: empty, warning: "the stored day isn't a day" }
  const rules = parsed.rules.map(decodeRuleDay).filter((rule): rule is RuleDay => rule !== null)
  return { day: { repo, day, rules }, warning: null }
}

function emptyRule(name: string): RuleDay {
  return { name, ...zeroCounts(), prs: [], flaky_prs: [], failing_runs: [] }
}

/** What one run adds to one rule on its day. */
export type RuleRunCount = {
  name: string
  outcome: RowOutcome
  asked: boolean
  /** The rule failed on an earlier head of the PR and passed on this one. */
  fixed: boolean
  /** Runs on this head disagreed about it (counted once per PR). */
  flaky: boolean
}

/** Adds what the run counted to `current` (null: the day not started); a new value, `current` untouched. */
export function addRun(
  current: HealthDay | null,
  at: { repo: string; day: string },
  run: { id: string; pr: number | null; rules: readonly RuleRunCount[] },
): HealthDay {
  const base = current ?? { repo: at.repo, day: at.day, rules: [] }
  const rules = base.rules.map((rule) => ({ ...rule }))
  for (const count of run.rules) {
    let rule = rules.find((candidate) => candidate.name === count.name)
    if (rule === undefined) {
      rule = emptyRule(count.name)
      rules.push(rule)
    }
    rule[count.outcome] += 1
    if (count.asked) rule.asked += 1
    if (count.fixed) rule.fixed += 1
    if (count.outcome === 'failed')
      rule.failing_runs = [run.id, ...rule.failing_runs].slice(0, FAILING_RUNS_KEPT_PER_DAY)
    if (run.pr !== null) {
      if (count.asked && !rule.prs.includes(run.pr) && rule.prs.length < PRS_KEPT_PER_DAY)
        rule.prs = [...rule.prs, run.pr]
      if (count.flaky && !rule.flaky_prs.includes(run.pr)) rule.flaky_prs = [...rule.flaky_prs, run.pr]
    }
  }
  return { repo: at.repo, day: at.day, rules }
}

/** Adds one waiver of `rule` to the day. */
export function addWaiver(current: HealthDay | null, at: { repo: string; day: string }, rule: string): HealthDay {
  const base = current ?? { repo: at.repo, day: at.day, rules: [] }
  const rules = base.rules.map((entry) => ({ ...entry }))
  const found = rules.find((entry) => entry.name === rule)
  if (found === undefined) rules.push({ ...emptyRule(rule), waived: 1 })
  else found.waived += 1
  return { repo: at.repo, day: at.day, rules }
}

/**
 * The days whose keys a repo's new day deletes: the 30 before the ones kept.
 * Named rather than listed, as listing a bucket's keys while other
 * controllers write to it can stall for half a minute on NATS; a repo
 * without a review for over 60 days keeps its older days (a few KB) unread.
 */
export function expiredHealthDays(today: string): string[] {
  return healthDays(healthDay(Date.parse(`${today}T00:00:00Z`) - RULE_HEALTH_DAYS * DAY_MS))
}
