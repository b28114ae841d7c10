/**
 * The daily budget's ledger (docs/behaviour.md, "Daily budget") on the
 * queue's KV bucket `review-classifier-spend`: one key per UTC day holding
 * the day's total and each repo's, added to with compare-and-set as each
 * run's reply arrives, so two controllers lose no spend and a restart
 * forgets none. The days past the last 31 are deleted when a new day starts.
 *
 * `whyNoRun` is the one question the rest of the controller asks of the
 * budget before a run: the refusal's words, or `null` while a run may start.
 * The decisions and the words are core's (core/spend.ts).
 */
import {
  addSpend,
  budgetRefusal,
  type DaySpend,
  dayIsExpired,
  decodeDaySpend,
  SPEND_BUCKET,
  spendView,
  utcDay,
} from '../../../core/spend.ts'
import type { RepoRef, SpendView } from '../../../core/types.ts'
import { decodeRunReply } from '../../../core/wire-decode.ts'
import type { Clock } from '../../../ports/clock.ts'
import type { KeyValue, KvBuckets } from '../../../ports/kv.ts'
import type { Logger } from '../../../ports/logger.ts'
import type { Metrics } from '../../../ports/metrics.ts'
import type { RunQueue } from '../../../ports/queue.ts'
import { updateWithRetry } from './kv-update.ts'
import type { SettingsStore } from './settings-store.ts'

export type SpendLedgerDeps = {
  buckets: KvBuckets
  settings: Pick<SettingsStore, 'read'>
  clock: Clock
  logger: Logger
  /** The day's spend as a gauge, set whenever the controller reads or writes today's total. */
  metrics?: Pick<Metrics, 'setDaySpend'>
}

export type SpendLedger = {
  /**
   * Adds a run's cost to today's total and `repo`'s (`owner/name`) (compare-and-set,
   * retried on conflict). Never rejects: a failed write is logged, and the
   * run it belongs to goes on.
   */
  add(repo: string, usd: number): Promise<void>
  /**
   * May a run start now for `repo`? The refusal's words (a lower-case
   * sentence for after `**No verdict:** `, and a try-out's 429) once today's
   * spend has reached `budget.daily_usd`, `null` while it may. Without a
   * budget it reads no ledger. Rejects as the settings store does when the
   * settings or the ledger can't be read.
   */
  whyNoRun(repo: RepoRef): Promise<string | null>
  /** The spend route's body. Rejects when the settings or the ledger can't be read. */
  view(): Promise<SpendView>
}

export const SPEND_WRITE_FAILED_MESSAGE = 'review classifier spend not recorded in the ledger'

export function createSpendLedger(deps: SpendLedgerDeps): SpendLedger {
  const { buckets, clock, logger } = deps

  function today(): string {
    return utcDay(clock.nowMs())
  }

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

  async function readDay(kv: KeyValue, day: string): Promise<DaySpend> {
    const entry = await kv.get(day)
    const spend = entry === null ? { day, spent_usd: 0, by_repo: {} } : decode(entry.value, day, entry.revision)
    if (day === today()) deps.metrics?.setDaySpend(spend.spent_usd, day)
    return spend
  }

  /** Deletes the days past the kept ones; a failure is logged and retried when the next day starts. */
  async function prune(kv: KeyValue, day: string): Promise<void> {
    try {
      const expired = (await kv.keys()).filter((key) => dayIsExpired(key, day))
      for (const key of expired) await kv.delete(key)
      if (expired.length > 0) logger.info('old review classifier spend days deleted', { days: expired })
    } catch (error) {
      logger.warn('old review classifier spend days not deleted', { error })
    }
  }

  return {
    async add(repo, usd) {
      if (!(Number.isFinite(usd) && usd > 0)) return
      const day = today()
      const name = repo
      try {
        const kv = await buckets.open(SPEND_BUCKET)
        let startedDay = false
        const written = await updateWithRetry(kv, day, (current) => {
          startedDay = current === null
          const base = current === null ? null : decodeDaySpend(current, day).spend
          return JSON.stringify(addSpend(base, day, name, usd))
        })
        deps.metrics?.setDaySpend(decode(written.value, day, written.revision).spent_usd, day)
        if (startedDay) await prune(kv, day)
      } catch (error) {
        logger.warn(SPEND_WRITE_FAILED_MESSAGE, { day, repo: name, cost_usd: usd, error })
      }
    },

    async whyNoRun() {
      const { budget } = await deps.settings.read()
      if (budget === null) return null
      const spend = await readDay(await buckets.open(SPEND_BUCKET), today())
      return budgetRefusal(budget, spend.spent_usd)
    },

    async view() {
      const [{ budget }, kv] = await Promise.all([deps.settings.read(), buckets.open(SPEND_BUCKET)])
      const day = today()
      const older = (await kv.keys()).filter((key) => key < day && !dayIsExpired(key, day))
      const [spend, days] = await Promise.all([readDay(kv, day), Promise.all(older.map((key) => readDay(kv, key)))])
      return spendView(spend, budget, [spend, ...days])
    },
  } satisfies SpendLedger
}

/**
 * The run queue with each reply's cost added to the ledger before the reply
 * is handed on, for reviews and try-outs alike. A reply without a cost (a
 * classifier older than the budget) counts 0 and is logged; one that can't
 * be read is the caller's to report, and counts nothing.
 */
export function spendCountingQueue(queue: RunQueue, ledger: Pick<SpendLedger, 'add'>, logger: Logger): RunQueue {
  return {
    async request(request, timeoutMs, options) {
      const text = await queue.request(request, timeoutMs, options)
      const reply = decodeRunReply(text)
      if (!reply.ok || reply.value.id !== request.id) return text
      const usd = reply.value.cost_usd
      if (usd === undefined) {
        logger.info('review classifier reply carries no cost; counted as 0', {
          id: request.id,
          repo: request.repo,
          pr: request.pr,
        })
        return text
      }
      await ledger.add(request.repo, usd)
      return text
    },
  } satisfies RunQueue
}
