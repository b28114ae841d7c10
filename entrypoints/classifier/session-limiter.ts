/**
 * At most `limit` model sessions at once across every run in hand
 * (docs/decisions.md: one claude process is ~190 MiB, one opencode ~600 MiB).
 * Waiters are served first come, first served, so a run's warm-first order
 * holds: its first question asks for a place before the rest do.
 *
 * Hand-written rather than p-limit: it is a dozen lines, and it needs to let
 * a waiter leave the line when the run is aborted, which p-limit can't.
 */
export type SessionLimiter = {
  /** Runs `task` once a place is free; rejects with the signal's reason if aborted while waiting. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>
  /** Sessions running now. */
  active(): number
  /** Tasks waiting for a place. */
  waiting(): number
}

export function createSessionLimiter(limit: number): SessionLimiter {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`session limit must be a whole number of at least 1, got ${limit}`)
  let running = 0
  const queue: Array<() => void> = []

  function release(): void {
    const next = queue.shift()
    if (next === undefined) running -= 1
    else next()
  }

  function acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason)
    if (running < limit) {
      running += 1
      return Promise.resolve()
    }
    return new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }
      const onAbort = (): void => {
        const at = queue.indexOf(grant)
        if (at !== -1) queue.splice(at, 1)
        reject(signal?.reason)
      }
      queue.push(grant)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  return {
    async run(task, signal) {
      await acquire(signal)
      try {
        return await task()
      } finally {
        release()
      }
    },
    active: () => running,
    waiting: () => queue.length,
  }
}
