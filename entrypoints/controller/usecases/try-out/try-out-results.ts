/**
 * Where try-outs' results live: in this process's memory only, for a while
 * after they finish (a controller restart drops them, as it drops a run in
 * progress). Expiry is checked against the Clock port whenever the results
 * are touched, so there is no timer to keep the process alive or to stop.
 * At most `maxKept` results are held: a new try-out past that evicts the
 * oldest finished one, or the oldest running one when none has finished
 * (that run still ends and goes into the run store, but its GET answers
 * 404). At most `maxRunning` run at once, past which a new one is refused
 * with an `exhausted` AppError.
 */
import { type AppError, appError, errorKind } from '../../../../core/base/errors.ts'
import type { TryOutView } from '../../../../core/wire/types.ts'
import type { Clock } from '../../../../ports/clock.ts'
import type { Logger } from '../../../../ports/logger.ts'

/** A try-out refused because the most that may run at once are running: `exhausted`, the route's 429. */
function tryOutsFull(running: number): AppError {
  return appError(
    'exhausted',
    `${running} try-outs are running, the most this controller runs at once; try again when one finishes`,
  )
}

/** One held result: its view, read at each GET, and when its runs were over. */
export type TryOutEntry = {
  view(): TryOutView
  finishedMs: number | null
}

export type TryOutResultsConfig = {
  clock: Clock
  logger: Logger
  /** How long a finished result stays readable. */
  keepMs: number
  /** The most results held at once, running ones included (at least one). */
  maxKept: number
  /** The most try-outs running at once (at least one). */
  maxRunning: number
}

export type TryOutResults = {
  /** Throws `exhausted` when a new try-out would be refused now. */
  checkRoom(): void
  /**
   * Holds the entry and runs `work` in the background, tracked for `idle`.
   * It counts as running until `work` calls `finish` (its runs are over; the
   * store write may follow), or ends; `finish` answers when that was.
   */
  launch(id: string, entry: TryOutEntry, work: (finish: () => number) => Promise<void>): void
  /** A copy of the result's view, or null for an unknown, evicted or expired one. */
  get(id: string): TryOutView | null
  /** Resolves once no try-out is running or being recorded. */
  idle(): Promise<void>
  /** How many results are held (expired ones pruned first). */
  size(): number
}

export function createTryOutResults(config: TryOutResultsConfig): TryOutResults {
  const { clock, logger, keepMs } = config
  const maxKept = Math.max(1, config.maxKept)
  const maxRunning = Math.max(1, config.maxRunning)
  let running = 0
  // Insertion order is POST order, which eviction relies on.
  const entries = new Map<string, TryOutEntry>()
  const inFlight = new Set<Promise<void>>()

  function prune(): void {
    const now = clock.nowMs()
    for (const [id, entry] of entries) {
      if (entry.finishedMs !== null && now >= entry.finishedMs + keepMs) entries.delete(id)
    }
  }

  function makeRoom(): void {
    while (entries.size >= maxKept) {
      const held = [...entries]
      const victim = held.find(([, entry]) => entry.finishedMs !== null) ?? held[0]
      if (victim === undefined) return
      const [id, entry] = victim
      entries.delete(id)
      if (entry.finishedMs === null) {
        logger.warn('review classifier try-out evicted while running', { id, kept_max: maxKept })
      }
    }
  }

  return {
    checkRoom() {
      if (running >= maxRunning) throw tryOutsFull(running)
    },
    launch(id, entry, work) {
      prune()
      makeRoom()
      entries.set(id, entry)
      running += 1
      const finish = (): number => {
        if (entry.finishedMs === null) {
          entry.finishedMs = clock.nowMs()
          running -= 1
        }
        return entry.finishedMs
      }
      const promise = work(finish).catch((error: unknown) => {
        // `RunStore.record` never throws by contract; a store that does must not become an unhandled rejection.
        logger.error('review classifier try-out could not be recorded', { id, kind: errorKind(error) })
      })
      inFlight.add(promise)
      void promise.finally(() => {
        finish()
        inFlight.delete(promise)
      })
    },
    get(id) {
      prune()
      const entry = entries.get(id)
      return entry === undefined ? null : structuredClone(entry.view())
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight])
    },
    size() {
      prune()
      return entries.size
    },
  } satisfies TryOutResults
}
