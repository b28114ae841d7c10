/**
 * Waiting on work that a stop must cut short: the run queue's wait for a
 * reply (over NATS and in memory) and a review's wait for its conclusion
 * share this one race, so each stops the same way.
 */

function rejectWith(reason: unknown): never {
  throw reason
}

/**
 * `work`'s outcome, or, once `signal` aborts first, `onAbort`'s: its value,
 * or what it throws as the rejection (by default the signal's reason).
 * `onAbort` runs the moment the signal aborts, so what it reads is what was
 * there then. `work` itself goes on to its end, and that outcome is dropped.
 */
export function raceAbort<T, S = never>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  onAbort: (reason: unknown) => S = rejectWith,
): Promise<T | S> {
  if (signal === undefined) return work
  return new Promise<T | S>((resolve, reject) => {
    const stop = (): void => {
      try {
        resolve(onAbort(signal.reason))
      } catch (error) {
        reject(error)
      }
    }
    if (signal.aborted) stop()
    else signal.addEventListener('abort', stop, { once: true })
    // The listener goes before the outcome is passed on, so an abort after it calls nothing.
    work.then(
      (value) => {
        signal.removeEventListener('abort', stop)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', stop)
        reject(error)
      },
    )
  })
}
