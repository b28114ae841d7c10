/**
 * Writes to the daily budget's ledger (the KV bucket `review-classifier-spend`,
 * one key per UTC day): a compare-and-set on the day's document, retried on
 * conflict, so the controllers reserving and settling runs and the
 * classifiers recording their sessions' costs lose nothing to each other.
 * Whoever starts a new day's key deletes the days past the last 31, by name
 * (core/settings/spend.ts, expiredDays).
 *
 * Both processes write here: the controller's spend ledger reserves and
 * settles runs, and the classifier records each session's cost itself, so
 * a session nobody waits for any more still counts. The ledger's writes are
 * one piece of code whichever process makes them, which is why this file
 * lives in `entrypoints/common/`, not in either process's folder.
 */
import { type DaySpend, decodeDaySpend, expiredDays, SPEND_BUCKET, utcDay } from '../../../core/settings/spend.ts'
import { recordSessionCost, type SessionCost } from '../../../core/settings/spend-reservations.ts'
import type { Clock } from '../../../ports/clock.ts'
import type { KeyValue, KvBuckets } from '../../../ports/kv.ts'
import type { Logger } from '../../../ports/logger.ts'
import { updateWithRetry } from '../base/kv-update.ts'

/** Thrown from a change to leave the day as it is (a reservation refused): nothing is written. */
export class DayLeftAsIs extends Error {
  override readonly name = 'DayLeftAsIs'
}

/** Deletes the days past the kept ones; a failure is logged and retried when the next day starts. */
async function prune(kv: KeyValue, day: string, logger: Logger): Promise<void> {
  try {
    const named = await Promise.all(expiredDays(day).map(async (key) => ((await kv.get(key)) === null ? null : key)))
    const expired = named.filter((key) => key !== null)
    for (const key of expired) await kv.delete(key)
    if (expired.length > 0) logger.info('old review classifier spend days deleted', { days: expired })
  } catch (error) {
    logger.warn('old review classifier spend days not deleted', { error })
  }
}

/**
 * Writes `change(current)` to `day` with compare-and-set, retried on
 * conflict (`change` may run several times and must be pure), and answers
 * what was written. A change that throws {@link DayLeftAsIs} writes nothing
 * and rethrows it; any other failure (the queue down) rejects.
 */
export async function writeDay(
  kv: KeyValue,
  day: string,
  change: (current: DaySpend | null) => DaySpend,
  logger: Logger,
): Promise<DaySpend> {
  let startedDay = false
  const written = await updateWithRetry(kv, day, (text) => {
    startedDay = text === null
    return JSON.stringify(change(text === null ? null : decodeDaySpend(text, day).spend))
  })
  if (startedDay) await prune(kv, day, logger)
  return decodeDaySpend(written.value, day).spend
}

export const SESSION_COST_NOT_RECORDED = 'review classifier session cost not recorded in the ledger'

/** Records one session's cost in today's ledger; `false` (and a warning) when the write failed. */
export type SessionCostRecorder = (cost: SessionCost) => Promise<boolean>

export function createSessionCostRecorder(deps: {
  buckets: KvBuckets
  clock: Clock
  logger: Logger
}): SessionCostRecorder {
  return async (cost) => {
    if (!(Number.isFinite(cost.usd) && cost.usd > 0)) return true
    const nowMs = deps.clock.nowMs()
    const day = utcDay(nowMs)
    try {
      const kv = await deps.buckets.open(SPEND_BUCKET)
      await writeDay(kv, day, (current) => recordSessionCost(current, day, cost, Math.floor(nowMs / 1000)), deps.logger)
      return true
    } catch (error) {
      deps.logger.warn(SESSION_COST_NOT_RECORDED, {
        day,
        id: cost.id,
        repo: cost.repo,
        cost_usd: cost.usd,
        estimated: cost.estimated,
        error,
      })
      return false
    }
  }
}
