/**
 * The daily budget's ledger (docs/behaviour.md, "Daily budget") on the
 * queue's KV bucket `review-classifier-spend`, one key per UTC day, as the
 * controller uses it: every run reserves its estimated cost before it
 * starts (`reserve`, a compare-and-set that refuses once the day's spend and
 * the reservations under way reach `budget.daily_usd`), and the run's reply
 * settles the reservation. The classifier records each session's cost
 * itself as it ends (spend-writes.ts), so a reply adds only what its
 * classifier didn't record: all of it from a classifier older than that.
 *
 * `whyNoRun` is the question asked before any work (a review before it
 * reads the PR, a try-out's POST): the refusal's words, or `null`. The
 * decisions and the words are core's (core/settings/spend.ts, core/settings/spend-reservations.ts,
 * core/run/spend-estimate.ts).
 */

import { estimateRunUsd } from '../../../../core/run/spend-estimate.ts'
import { decodeRunReply } from '../../../../core/run/wire-decode.ts'
import {
  type DaySpend,
  decodeDaySpend,
  emptyDay,
  keptDays,
  SPEND_BUCKET,
  spendView,
  utcDay,
} from '../../../../core/settings/spend.ts'
import { dayRefusal, reservedUsd, reserveRun, settleRun } from '../../../../core/settings/spend-reservations.ts'
import type { RepoRef, RunRequest, SpendView } from '../../../../core/wire/types.ts'
import type { Clock } from '../../../../ports/clock.ts'
import type { KeyValue, KvBuckets } from '../../../../ports/kv.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { Metrics } from '../../../../ports/metrics.ts'
import { DayLeftAsIs, writeDay } from '../../../common/settings/spend-writes.ts'
import type { SettingsStore } from './settings-store.ts'

/**
 * How long a reservation outlives the controller's own wait for its reply:
 * room for a classifier that is still ending the run's sessions. Past it,
 * an unsettled reservation (its controller died) is dropped.
 */
export const RESERVATION_GRACE_MS = 60_000

export type SpendLedgerDeps = {
  buckets: KvBuckets
  settings: Pick<SettingsStore, 'read'>
  clock: Clock
  logger: Logger
  /** How long a reservation holds unsettled: the controller's wait for a reply plus {@link RESERVATION_GRACE_MS}. */
  reservationTtlMs: number
  /** The day's spend as a gauge, set whenever the controller reads or writes today's total. */
  metrics?: Pick<Metrics, 'setDaySpend'>
}

/** A run's place in the budget: refused with the words, or granted until its reply settles it. */
export type RunBudget =
  | { kind: 'refused'; reason: string }
  | {
      kind: 'granted'
      /**
       * The run's reply is in (its text, as it came): the reservation is
       * dropped and what the classifier didn't record is added. Never
       * rejects: a failed write is logged. A run that got no reply is not
       * settled: its reservation holds until it expires, as its classifier
       * may still be spending.
       */
      settle(replyText: string): Promise<void>
    }

export type SpendLedger = {
  /**
   * Reserves the run's estimated cost (core/run/spend-estimate.ts) in today's
   * ledger, or refuses once today's spend and the reservations under way
   * have reached `budget.daily_usd`. Without a budget nothing is reserved.
   * Rejects as the settings store does when the settings or the ledger can't
   * be read or written: no run starts then.
   */
  reserve(request: RunRequest): Promise<RunBudget>
  /**
   * May a run start now for `repo`? The refusal's words (a lower-case
   * sentence for after `**No verdict:** `, and a try-out's 429) once today's
   * spend and reservations have reached `budget.daily_usd`, `null` while it
   * may. Without a budget it reads no ledger. Rejects when the settings or
   * the ledger can't be read.
   */
  whyNoRun(repo: RepoRef): Promise<string | null>
  /** The spend route's body. Rejects when the settings or the ledger can't be read. */
  view(): Promise<SpendView>
}

export const SPEND_WRITE_FAILED_MESSAGE = 'review classifier spend not recorded in the ledger'

export function createSpendLedger(deps: SpendLedgerDeps): SpendLedger {
  const { buckets, clock, logger } = deps

  const nowUnix = () => Math.floor(clock.nowMs() / 1000)
  const today = () => utcDay(clock.nowMs())

  function decode(text: string, day: string, revision: number | null): DaySpend {
    const decoded = decodeDaySpend(text, day)
    if (decoded.warning !== null) {
      logger.warn('stored review classifier spend undecodable; counted as 0', {
        bucket: SPEND_BUCKET,
        key: day,
        revision,
        reason: decoded.warning,
      })
    }
    return decoded.spend
  }

  function seen(spend: DaySpend): DaySpend {
    if (spend.day === today()) deps.metrics?.setDaySpend(spend.spent_usd, spend.day)
    return spend
  }

  async function readDay(kv: KeyValue, day: string): Promise<DaySpend> {
    const entry = await kv.get(day)
    return seen(entry === null ? emptyDay(day) : decode(entry.value, day, entry.revision))
  }

  /** What the reply says it cost beyond what its classifier recorded; 0 for a reply that isn't this run's. */
  function unrecordedCost(request: RunRequest, replyText: string): number {
    const reply = decodeRunReply(replyText)
    if (!reply.ok || reply.value.id !== request.id) return 0
    const { cost_usd: usd, cost_recorded_usd: recorded } = reply.value
    if (usd === undefined) {
      logger.info('review classifier reply carries no cost; counted as 0', {
        id: request.id,
        repo: request.repo,
        pr: request.pr,
      })
      return 0
    }
    return Math.max(0, usd - (recorded ?? 0))
  }

  /** The settle of a run reserved (or, `reserved` false, only checked) on `day`. */
  function settler(request: RunRequest, day: string, reserved: boolean) {
    return async (replyText: string): Promise<void> => {
      const unrecordedUsd = unrecordedCost(request, replyText)
      if (!reserved && !(unrecordedUsd > 0)) return
      const run = { id: request.id, repo: request.repo, unrecordedUsd }
      try {
        const kv = await buckets.open(SPEND_BUCKET)
        seen(await writeDay(kv, day, (current) => settleRun(current, day, run, nowUnix()), logger))
      } catch (error) {
        logger.warn(SPEND_WRITE_FAILED_MESSAGE, {
          day,
          id: request.id,
          repo: request.repo,
          cost_usd: unrecordedUsd,
          error,
        })
      }
    }
  }

  return {
    async reserve(request) {
      const { budget } = await deps.settings.read()
      const day = today()
      if (budget === null) return { kind: 'granted', settle: settler(request, day, false) }
      const kv = await buckets.open(SPEND_BUCKET)
      const usd = estimateRunUsd(request)
      if (!(usd > 0)) {
        // A run that costs nothing (the subscription) holds nothing, but a spent day starts none.
        const reason = dayRefusal(await readDay(kv, day), budget, nowUnix())
        return reason === null ? { kind: 'granted', settle: settler(request, day, false) } : { kind: 'refused', reason }
      }
      const claim = {
        id: request.id,
        repo: request.repo,
        usd,
        expiresUnix: Math.ceil((clock.nowMs() + deps.reservationTtlMs) / 1000),
      }
      try {
        seen(
          await writeDay(
            kv,
            day,
            (current) => {
              const outcome = reserveRun(current, day, budget, claim, nowUnix())
              if (outcome.kind === 'refused') throw new DayLeftAsIs(outcome.reason)
              return outcome.day
            },
            logger,
          ),
        )
      } catch (error) {
        if (error instanceof DayLeftAsIs) return { kind: 'refused', reason: error.message }
        throw error
      }
      return { kind: 'granted', settle: settler(request, day, true) }
    },

    async whyNoRun() {
      const { budget } = await deps.settings.read()
      if (budget === null) return null
      return dayRefusal(await readDay(await buckets.open(SPEND_BUCKET), today()), budget, nowUnix())
    },

    async view() {
      const [{ budget }, kv] = await Promise.all([deps.settings.read(), buckets.open(SPEND_BUCKET)])
      const day = today()
      // Each kept day by name (keptDays): listing the bucket's keys can stall while others write.
      const older = keptDays(day).filter((key) => key < day)
      const [spend, stored] = await Promise.all([
        readDay(kv, day),
        Promise.all(older.map(async (key) => ({ key, entry: await kv.get(key) }))),
      ])
      const days = stored.flatMap(({ key, entry }) =>
        entry === null ? [] : [seen(decode(entry.value, key, entry.revision))],
      )
      return spendView(spend, budget, [spend, ...days], reservedUsd(spend, nowUnix()))
    },
  } satisfies SpendLedger
}
