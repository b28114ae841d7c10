/**
 * Each rule's health in production (docs/behaviour.md, "Rule health") on the
 * KV bucket `review-classifier-rule-health`: every review run (never a
 * try-out) adds, per rule, to its repo's UTC day, with compare-and-set
 * retried on conflict, so controllers writing at once lose nothing to each
 * other. A failed write is logged and costs only the counts it carried: the
 * review, its record and its post are done by then. What counts as what is
 * core's (core/review/rule-health.ts, rule-health-prs.ts).
 */
import {
  addRun,
  addWaiver,
  dayKey,
  decodeHealthDay,
  expiredHealthDays,
  type HealthDay,
  healthDay,
  healthDays,
  prsKey,
  RULE_HEALTH_BUCKET,
  type RuleRunCount,
  rowOutcome,
} from '../../../../core/review/rule-health.ts'
import { decodePrMemory, type RunOutcomes, trackRun } from '../../../../core/review/rule-health-prs.ts'
import type { RunRecord } from '../../../../core/run/run-record.ts'
import type { Clock } from '../../../../ports/clock.ts'
import type { KeyValue, KvBuckets } from '../../../../ports/kv.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { Metrics } from '../../../../ports/metrics.ts'
import { updateWithRetry } from '../../../common/base/kv-update.ts'

export const RULE_HEALTH_WRITE_FAILED = 'review classifier rule health not recorded'

export type RuleHealthDeps = {
  buckets: KvBuckets
  clock: Clock
  logger: Logger
  /** The same counts as the OTLP counter `hyperhive.review_classifier.rule.outcome`, whether or not the write succeeds. */
  metrics?: Pick<Metrics, 'addRuleOutcome'>
}

/** A waiver of one rule's failure, as the waiver comment (issue 32) records it. */
export type RuleWaiver = { repo: string; rule: string; pr?: number }

export type RuleHealthStore = {
  /**
   * Counts a finished run for each of its rules on today's (UTC) day; a
   * try-out or a run without rows counts nothing. Never rejects: a failed
   * write is logged.
   */
  recordRun(record: RunRecord): Promise<void>
  /** Adds one waiver of `rule` to today's day of `repo`; `false` (and a warning) when the write failed. */
  recordWaiver(waiver: RuleWaiver): Promise<boolean>
  /** The repo's stored days within the 30 kept, in no order. Rejects when the bucket can't be read. */
  days(repo: string): Promise<HealthDay[]>
}

/** A row as a stored run may carry it once rules have a scope (`in_scope`), read without its schema knowing it. */
type ScopedRow = NonNullable<RunRecord['rows']>[number] & { in_scope?: boolean }

export function createRuleHealthStore(deps: RuleHealthDeps): RuleHealthStore {
  const { buckets, clock, logger } = deps

  /** Deletes the repo's days past the 30 kept (core's expiredHealthDays); a failure is logged and tried again the next day. */
  async function prune(kv: KeyValue, repo: string, today: string): Promise<void> {
    try {
      const keys = expiredHealthDays(today).map((day) => dayKey(repo, day))
      const present = await Promise.all(keys.map(async (key) => ((await kv.get(key)) === null ? null : key)))
      const expired = present.filter((key) => key !== null)
      for (const key of expired) await kv.delete(key)
      if (expired.length > 0)
        logger.info('old review classifier rule health days deleted', { repo, days: expired.length })
    } catch (error) {
      logger.warn('old review classifier rule health days not deleted', { error })
    }
  }

  /** Writes `change` to the repo's day; whoever starts a day deletes the expired ones. */
  async function writeDay(repo: string, day: string, change: (current: HealthDay | null) => HealthDay) {
    const kv = await buckets.open(RULE_HEALTH_BUCKET)
    let started = false
    await updateWithRetry(kv, dayKey(repo, day), (text) => {
      started = text === null
      return JSON.stringify(change(text === null ? null : decodeHealthDay(text, repo, day).day))
    })
    if (started) await prune(kv, repo, day)
  }

  /** The run's counts with `fixed` and `flaky` from the PR memory; without it (a failed write), neither. */
  async function tracked(record: RunRecord, outcomes: RunOutcomes): Promise<RuleRunCount[]> {
    const plain = outcomes.map((outcome) => ({ ...outcome, fixed: false, flaky: false }))
    if (record.pr === undefined || record.head_sha === undefined) return plain
    const run = { pr: record.pr, head: record.head_sha, rules: outcomes }
    let counted = plain
    try {
      const kv = await buckets.open(RULE_HEALTH_BUCKET)
      await updateWithRetry(kv, prsKey(record.repo), (text) => {
        const next = trackRun(decodePrMemory(text), run)
        counted = next.rules
        return JSON.stringify(next.memory)
      })
      return counted
    } catch (error) {
      logger.warn(RULE_HEALTH_WRITE_FAILED, { what: 'pr memory', repo: record.repo, pr: record.pr, error })
      return plain
    }
  }

  function count(repo: string, rules: readonly RuleRunCount[]): void {
    const metrics = deps.metrics
    if (metrics === undefined) return
    for (const rule of rules) {
      const labels = { repo, rule: rule.name }
      metrics.addRuleOutcome(1, { ...labels, outcome: rule.outcome })
      if (rule.asked) metrics.addRuleOutcome(1, { ...labels, outcome: 'asked' })
      if (rule.fixed) metrics.addRuleOutcome(1, { ...labels, outcome: 'fixed' })
    }
  }

  return {
    async recordRun(record) {
      if (record.trigger !== 'review' || record.rows === undefined || record.rows.length === 0) return
      const outcomes = record.rows.map((row: ScopedRow) => ({ name: row.name, ...rowOutcome(row) }))
      const rules = await tracked(record, outcomes)
      count(record.repo, rules)
      const day = healthDay(clock.nowMs())
      try {
        await writeDay(record.repo, day, (current) =>
          addRun(current, { repo: record.repo, day }, { id: record.id, pr: record.pr ?? null, rules }),
        )
      } catch (error) {
        logger.warn(RULE_HEALTH_WRITE_FAILED, { what: 'day', repo: record.repo, day, id: record.id, error })
      }
    },

    async recordWaiver(waiver) {
      deps.metrics?.addRuleOutcome(1, { repo: waiver.repo, rule: waiver.rule, outcome: 'waived' })
      const day = healthDay(clock.nowMs())
      try {
        await writeDay(waiver.repo, day, (current) => addWaiver(current, { repo: waiver.repo, day }, waiver.rule))
        return true
      } catch (error) {
        logger.warn(RULE_HEALTH_WRITE_FAILED, {
          what: 'waiver',
          repo: waiver.repo,
          rule: waiver.rule,
          ...(waiver.pr === undefined ? {} : { pr: waiver.pr }),
          day,
          error,
        })
        return false
      }
    },

    async days(repo) {
      const kv = await buckets.open(RULE_HEALTH_BUCKET)
      // Each kept day by its key: listing the bucket's keys can stall while others write.
      const days = healthDays(healthDay(clock.nowMs()))
      const entries = await Promise.all(days.map(async (day) => ({ day, entry: await kv.get(dayKey(repo, day)) })))
      return entries.flatMap(({ day, entry }) => {
        if (entry === null) return []
        const decoded = decodeHealthDay(entry.value, repo, day)
        if (decoded.warning !== null) {
          logger.warn('stored review classifier rule health undecodable; counted as nothing', {
            repo,
            day,
            reason: decoded.warning,
          })
        }
        return [decoded.day]
      })
    },
  }
}
