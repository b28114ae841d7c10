/**
 * A review that can't reach the swarm queue waits for it (docs/behaviour.md,
 * "Trigger and lifecycle"): Forgejo sends a webhook once, so a review
 * requested while the controller isn't connected yet (a tenth of a second
 * after `/healthz` first answered) or while NATS restarts would otherwise
 * be lost to a no-verdict at once. Each step that needs the queue (the
 * settings, the ledger, the run request) is tried; a failure that says the
 * queue isn't reachable waits for the connection and tries again, until
 * the review's own bound (`RUN_TIMEOUT_S` from its place) or its stop.
 *
 * The wait is the connection's own event (its first connect, a reconnect:
 * `QueueWatch.untilConnected`), not a poll. Two waits have no event to wait
 * on and are short retries instead: a failure while connected (JetStream
 * still starting after a server restart answers "no responders" or times
 * out for a moment), and a run request that finds no classifier just after
 * the controller's own connection came back, since the classifiers'
 * subscriptions come back with their connections a moment later.
 */
import { type AppError, appError, describeError, isAppError } from '../../../../core/base/errors.ts'
import type { QueueWatch, RunQueue } from '../../../../ports/queue.ts'

/** Between tries while connected and still failing: no event says when JetStream or a classifier is back. */
export const QUEUE_RETRY_MS = 500
/** How long after the controller's connection came back a run that finds no classifier is tried again. */
export const RESUBSCRIBE_GRACE_MS = 15_000

/** Tries `step` until it gets through or the reach's bound passes; its last failure is then thrown, saying so. */
export type QueueReach = <T>(step: () => Promise<T>) => Promise<T>

/** A failure that says the queue isn't reachable now (not connected, not answering), rather than that the step failed. */
export function isQueueUnreachable(error: unknown): boolean {
  return isAppError(error, 'unavailable') || isAppError(error, 'timeout')
}

function isNoResponders(error: unknown): boolean {
  return isAppError(error, 'unavailable') && error.message === 'classifier not running'
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done(): void {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}

export type QueueReachOptions = {
  watch: QueueWatch
  /** `RUN_TIMEOUT_S` in milliseconds: the most a review waits for the queue, from its place. */
  boundMs: number
  /** The review's stop (the drain): the wait ends with it. */
  signal?: AbortSignal
}

/** One review's reach: its bound starts now. */
export function createQueueReach(options: QueueReachOptions): {
  reach: QueueReach
  /** The run queue for this review's run requests: a request the queue couldn't take is sent again once it can. */
  runQueue(queue: RunQueue): RunQueue
} {
  const { watch } = options
  const bound = AbortSignal.timeout(options.boundMs)
  const signal = options.signal === undefined ? bound : AbortSignal.any([bound, options.signal])
  /** Set once this review waited for the connection to come back: a missing classifier then gets a grace. */
  let reconnectedAt: number | null = null

  function exhausted(error: unknown): AppError {
    const seconds = Math.round(options.boundMs / 1000)
    if (options.signal?.aborted) return appError('unavailable', describeError(error), error)
    return appError(
      'unavailable',
      `the swarm queue couldn't be reached within RUN_TIMEOUT_S (${seconds} s): ${describeError(error)}`,
      error,
    )
  }

  async function waitOnce(): Promise<void> {
    if (!watch.connected()) {
      if (await watch.untilConnected(signal)) reconnectedAt = performance.now()
      return
    }
    await pause(QUEUE_RETRY_MS, signal)
  }

  async function reach<T>(step: () => Promise<T>, retryable = isQueueUnreachable): Promise<T> {
    for (;;) {
      try {
        return await step()
      } catch (error) {
        if (!retryable(error)) throw error
        if (signal.aborted) throw exhausted(error)
        await waitOnce()
      }
    }
  }

  /** A run request is tried again only when it wasn't taken: the queue was down, or nobody was subscribed yet. */
  function notTaken(error: unknown): boolean {
    if (isNoResponders(error)) {
      return reconnectedAt !== null && performance.now() - reconnectedAt < RESUBSCRIBE_GRACE_MS
    }
    // A timeout means the run was sent and not answered: that is the run's own outcome.
    return isAppError(error, 'unavailable') && !watch.connected()
  }

  return {
    reach: (step) => reach(step),
    runQueue: (queue) => ({
      request: (request, timeoutMs, requestOptions) =>
        reach(() => queue.request(request, timeoutMs, requestOptions), notTaken),
    }),
  }
}
