/**
 * The rule health route's answer (docs/behaviour.md, "Rule health"): the
 * stored days summed per rule over the last 30, the flags, and the flags in
 * words for the Rules page.
 */

import type { Static } from '@sinclair/typebox'
import type { RULE_FLAGS, RULE_MODES, RuleHealthSchema, RulesHealthViewSchema } from '../wire/health-schemas.ts'
import {
  type HealthDay,
  oldestHealthDay,
  RULE_HEALTH_DAYS,
  RULE_OUTCOMES,
  type RuleCounts,
  type RuleDay,
  zeroCounts,
} from './rule-health.ts'

/** `1 PR`, `3 PRs`. */
function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`
}

export type RuleFlag = (typeof RULE_FLAGS)[number]
export type RuleMode = (typeof RULE_MODES)[number]
export type RuleHealth = Static<typeof RuleHealthSchema>
export type RulesHealthView = Static<typeof RulesHealthViewSchema>

/** The flags' bounds, as issue 33 sets them. */
export const NOISY_MIN_FAILURES = 5
export const NOISY_WAIVED_SHARE = 0.3
export const SILENT_MIN_PRS = 20
export const UNSURE_MIN_ANSWERS = 10
export const FLAKY_MIN_PRS = 3

/** A rule as the rules file holds it (a removed rule has only its name). */
export type FileRule = {
  name: string
  description?: string
  threshold?: number
  polarity?: 'positive' | 'negative'
  mode?: RuleMode
  paths?: string[]
}

/** Answers the model gave (a row out of scope is not one): asked less unanswered. */
export function answers(counts: RuleCounts): number {
  return Math.max(0, counts.asked - counts.unanswered)
}

/** Answers that didn't count: below the threshold or not applicable. */
export function uncountedAnswers(counts: RuleCounts): number {
  return Math.max(0, answers(counts) - counts.failed - counts.passed)
}

export function ruleFlags(counts: RuleCounts, askedPrs: number, flakyPrs: number): RuleFlag[] {
  const flags: RuleFlag[] = []
  if (counts.failed >= NOISY_MIN_FAILURES && counts.waived >= NOISY_WAIVED_SHARE * counts.failed) flags.push('noisy')
  if (askedPrs >= SILENT_MIN_PRS && counts.failed === 0) flags.push('silent')
  const answered = answers(counts)
  if (answered >= UNSURE_MIN_ANSWERS && 2 * uncountedAnswers(counts) >= answered) flags.push('unsure')
  if (flakyPrs >= FLAKY_MIN_PRS) flags.push('flaky')
  return flags
}

/** One flag in words, with its numbers and what to do about it. */
export function flagWords(flag: RuleFlag, rule: RuleCounts & { asked_prs: number; flaky_prs: number }): string {
  switch (flag) {
    case 'noisy':
      return `waived on ${rule.waived} of ${plural(rule.failed, 'failure')}: consider making it advisory`
    case 'silent':
      return `asked on ${plural(rule.asked_prs, 'PR')} and never failed: check that it still asks something`
    case 'unsure':
      return `${uncountedAnswers(rule)} of ${plural(answers(rule), 'answer')} uncounted (below its threshold or not applicable): sharpen the question or its threshold`
    case 'flaky':
      return `runs on the same head disagreed on ${plural(rule.flaky_prs, 'PR')}: try it out with repeats`
  }
}

function sumRule(name: string, days: readonly HealthDay[]) {
  const counts = zeroCounts()
  const askedPrs = new Set<number>()
  const flakyPrs = new Set<number>()
  const failingRuns: string[] = []
  const byDay: Array<RuleCounts & { day: string }> = []
  for (const day of days) {
    const rule: RuleDay | undefined = day.rules.find((entry) => entry.name === name)
    if (rule === undefined) continue
    const dayCounts = zeroCounts()
    for (const outcome of RULE_OUTCOMES) {
      counts[outcome] += rule[outcome]
      dayCounts[outcome] = rule[outcome]
    }
    byDay.push({ day: day.day, ...dayCounts })
    for (const pr of rule.prs) askedPrs.add(pr)
    for (const pr of rule.flaky_prs) flakyPrs.add(pr)
    failingRuns.unshift(...rule.failing_runs)
  }
  return { counts, askedPrs: askedPrs.size, flakyPrs: flakyPrs.size, failingRuns: failingRuns.slice(0, 10), byDay }
}

/**
 * The route's body: the file's rules in its order, then each counted rule
 * no longer in the file (by name), `removed`. Days outside the 30 ending
 * `today` are left out, and so is a day after it (a clock ahead).
 */
export function rulesHealthView(input: {
  repo: string
  today: string
  path: string
  branch: string
  rules: readonly FileRule[]
  days: readonly HealthDay[]
}): RulesHealthView {
  const since = oldestHealthDay(input.today)
  const days = input.days
    .filter((day) => day.day >= since && day.day <= input.today)
    .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0))
  const inFile = new Set(input.rules.map((rule) => rule.name))
  const removed = [...new Set(days.flatMap((day) => day.rules.map((rule) => rule.name)))]
    .filter((name) => !inFile.has(name))
    .sort()
  const entry = (rule: FileRule, isRemoved: boolean): RuleHealth => {
    const sum = sumRule(rule.name, days)
    return {
      name: rule.name,
      ...sum.counts,
      flags: ruleFlags(sum.counts, sum.askedPrs, sum.flakyPrs),
      asked_prs: sum.askedPrs,
      flaky_prs: sum.flakyPrs,
      failing_runs: sum.failingRuns,
      by_day: sum.byDay,
      ...(isRemoved ? { removed: true as const } : {}),
      ...(rule.description === undefined ? {} : { description: rule.description }),
      ...(rule.threshold === undefined ? {} : { threshold: rule.threshold }),
      ...(rule.polarity === undefined ? {} : { polarity: rule.polarity }),
      ...(rule.mode === undefined ? {} : { mode: rule.mode }),
      ...(rule.paths === undefined ? {} : { paths: [...rule.paths] }),
    }
  }
  return {
    repo: input.repo,
    days: RULE_HEALTH_DAYS,
    since,
    until: input.today,
    path: input.path,
    branch: input.branch,
    rules: [...input.rules.map((rule) => entry(rule, false)), ...removed.map((name) => entry({ name }, true))],
  }
}
