/**
 * Run places for requested reviews (docs/behaviour.md, "Trigger and lifecycle", "Swarm-level
 * settings"): `max_concurrent_reviews` run at once, up to eight more wait in
 * memory, a request already running or waiting starts nothing, and one that
 * finds every place taken is turned away.
 *
 * The limit is read from the settings when a review may get its place, never
 * cached for a decision: lowering it lets the runs already going finish and
 * starts nothing until they're under it, raising it takes effect at the next
 * place. `submit` answers at once (the webhook must not wait), so its answer
 * is a forecast made with the limit read last; the places themselves are
 * handed out only after a fresh read. When that read shows fewer places
 * than forecast, reviews that no longer fit the eight waiting places are
 * turned away then, newest first, so the bounds always hold.
 *
 * When the controller stops, `close` ends the admission: no place is granted
 * again, the waiting reviews are dropped (docs/behaviour.md says a restart
 * drops them), and the running ones go on to finish or be stopped by the
 * pipeline.
 */
import { MAX_CONCURRENT_REVIEWS, MIN_CONCURRENT_REVIEWS, WAITING_PLACES } from '../../../../core/wire/limits.ts'
import type { Logger } from '../../../../ports/logger.ts'

/** `closed`: the admission is closed and the request isn't running; the caller answers it. */
export type AdmissionResult = 'started' | 'waiting' | 'duplicate' | 'queue-full' | 'closed'

/** What to do with a request once the admission has decided. Neither may reject; a rejection is logged. */
export type AdmissionTask = {
  /** Runs the review while it holds a place; the place frees when this settles. */
  run(): Promise<void>
  /** Tells the requester there was no place (posts the queue-full comment). */
  turnAway(): Promise<void>
  /** Called instead of `run` when the admission closes with the request still waiting; must not throw. */
  drop?(): void
}

export type AdmissionCounts = {
  running: number
  waiting: number
  /** The limit read last (before any read: the most the settings allow). */
  limit: number
}

export type Admission = {
  /** Takes a request in, keyed by (repo, PR, head); see the file comment on how exact the answer is. */
  submit(key: string, task: AdmissionTask): AdmissionResult
  /** Resolves once nothing runs, waits or is being turned away (tests, shutdown). */
  idle(): Promise<void>
  counts(): AdmissionCounts
  /**
   * Grants no place from now on: every waiting task is dropped (its `drop`
   * called) and the running ones go on. A request submitted after it is
   * `duplicate` while it runs, else `closed`, and none of its task is called.
   */
  close(): void
}

export type AdmissionConfig = {
  /** `max_concurrent_reviews` from the settings in force; may reject when they can't be read. */
  readLimit: () => Promise<number>
  logger?: Logger
}

type Entry = { key: string; task: AdmissionTask }

export function createAdmission(config: AdmissionConfig): Admission {
  const running = new Set<string>()
  const waiting: Entry[] = []
  const inFlight = new Set<Promise<void>>()
  // Before the first read, assume the most places the settings allow: a
  // forecast that's too generous is corrected after the read, one that's too
  // strict would turn away a request that fits.
  let knownLimit = MAX_CONCURRENT_REVIEWS
  let pumping: Promise<void> | null = null
  let pumpAgain = false
  let closed = false

  function track(work: () => Promise<void>, what: string): Promise<void> {
    const promise = (async () => {
      try {
        await work()
      } catch (error) {
        config.logger?.error('review admission task failed', { task: what, error })
      }
    })()
    inFlight.add(promise)
    void promise.finally(() => inFlight.delete(promise))
    return promise
  }

  function start(entry: Entry): void {
    running.add(entry.key)
    // The place frees, and the next one is handed out, before the tracked
    // promise settles, so `idle` never sees a gap between the two.
    void track(async () => {
      try {
        await entry.task.run()
      } finally {
        running.delete(entry.key)
        pump()
      }
    }, 'run')
  }

  async function readLimit(): Promise<number> {
    try {
      const limit = await config.readLimit()
      // A limit below one would stall every review for good.
      return Number.isInteger(limit) && limit >= MIN_CONCURRENT_REVIEWS ? limit : MIN_CONCURRENT_REVIEWS
    } catch (error) {
      // The run itself reads the settings again and posts its no-verdict
      // comment; the last limit read keeps the places bounded meanwhile.
      config.logger?.warn('review limit unreadable; using the last one read', { limit: knownLimit, error })
      return knownLimit
    }
  }

  async function grantPlaces(): Promise<void> {
    do {
      pumpAgain = false
      if (waiting.length === 0 || closed) return
      knownLimit = await readLimit()
      while (waiting.length > 0 && running.size < knownLimit) {
        const next = waiting.shift()
        if (next !== undefined) start(next)
      }
      while (waiting.length > WAITING_PLACES) {
        const last = waiting.pop()
        if (last !== undefined) void track(() => last.task.turnAway(), 'turn-away')
      }
    } while (pumpAgain)
  }

  /** One grant loop at a time; a change while it reads makes it go round again. */
  function pump(): void {
    if (pumping !== null) {
      pumpAgain = true
      return
    }
    pumping = grantPlaces().finally(() => {
      pumping = null
      // A change that came after the loop's last check but before this point.
      if (pumpAgain) pump()
    })
  }

  return {
    submit(key, task) {
      if (running.has(key) || waiting.some((entry) => entry.key === key)) return 'duplicate'
      if (closed) return 'closed'
      const free = Math.max(0, knownLimit - running.size)
      if (waiting.length >= WAITING_PLACES + free) {
        void track(() => task.turnAway(), 'turn-away')
        return 'queue-full'
      }
      waiting.push({ key, task })
      const result = waiting.length <= free ? 'started' : 'waiting'
      pump()
      return result
    },
    async idle() {
      // Something waiting always has a run in flight or a grant loop ahead of it.
      while (inFlight.size > 0 || pumping !== null) {
        await Promise.allSettled([...inFlight, ...(pumping === null ? [] : [pumping])])
      }
    },
    counts() {
      return { running: running.size, waiting: waiting.length, limit: knownLimit }
    },
    close() {
      closed = true
      for (const entry of waiting.splice(0)) {
        try {
          entry.task.drop?.()
        } catch (error) {
          config.logger?.error('review admission task failed', { task: 'drop', error })
        }
      }
    },
  } satisfies Admission
}
