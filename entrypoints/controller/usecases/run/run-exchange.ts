/**
 * Sending one run to the classifier and waiting for its reply's text, for a
 * review and a try-out alike. Every failure comes back as the reason, in
 * words, never as a throw.
 *
 * Two bounds: `RUN_TIMEOUT_S` (plus a margin for the trip back) is the outer
 * one, as before; and once the classifier has said it took the run, its
 * heartbeats must keep coming. A classifier that was killed with the run in
 * hand falls silent, and the run ends a few heartbeat intervals later with
 * a no-verdict that says so, instead of holding a review place for the full
 * timeout. A classifier that never says it took the run (one older than
 * heartbeats) is waited for up to the outer bound alone.
 */
import { describeError, isAppError } from '../../../../core/base/errors.ts'
import { err, ok, type Result } from '../../../../core/base/result.ts'
import { MISSED_HEARTBEATS } from '../../../../core/wire/schemas.ts'
import type { Row, RunRequest } from '../../../../core/wire/types.ts'
import type { RunQueue } from '../../../../ports/queue.ts'

/** Added to `RUN_TIMEOUT_S` for the reply's trip over the queue. */
export const RUN_REPLY_MARGIN_MS = 5_000

export type RunExchangeOptions = {
  /** `RUN_TIMEOUT_S` in milliseconds: how long a run may take, as the no-verdict names it. */
  runTimeoutMs: number
  /** Waited for on top of `runTimeoutMs` for the reply's trip back; default {@link RUN_REPLY_MARGIN_MS}. */
  replyMarginMs?: number
  /** Each row as the classifier finishes it, before the reply (a try-out shows them as they come). */
  onRow?: (row: Row) => void
  /** Stops the wait (the controller is stopping); the reason's message is the result's error. Nothing is sent once it has aborted. */
  signal?: AbortSignal
}

/** Why the wait was stopped: the classifier fell silent. */
class ClassifierSilent extends Error {
  constructor(readonly silentMs: number) {
    super('the classifier stopped answering')
  }
}

/** Seconds for a message: whole ones, and at least one. */
function seconds(ms: number): number {
  return Math.max(1, Math.round(ms / 1000))
}

/** Sends a run and waits for its reply's text. */
export async function sendRunRequest(
  queue: RunQueue,
  request: RunRequest,
  options: RunExchangeOptions,
): Promise<Result<string, string>> {
  const waitMs = options.runTimeoutMs + (options.replyMarginMs ?? RUN_REPLY_MARGIN_MS)
  if (options.signal?.aborted) return err(describeError(options.signal.reason))
  const stop = new AbortController()
  let watchdog: ReturnType<typeof setTimeout> | undefined
  let silenceMs: number | null = null
  const heard = (): void => {
    if (silenceMs === null) return
    clearTimeout(watchdog)
    const allowed = silenceMs
    watchdog = setTimeout(() => stop.abort(new ClassifierSilent(allowed)), allowed)
  }
  try {
    return ok(
      await queue.request(request, waitMs, {
        signal: options.signal === undefined ? stop.signal : AbortSignal.any([stop.signal, options.signal]),
        onProgress(event) {
          if (event.id !== request.id) return
          if (event.kind === 'taken') silenceMs = event.heartbeat_ms * MISSED_HEARTBEATS
          if (event.kind === 'row') options.onRow?.(event.row)
          heard()
        },
      }),
    )
  } catch (error) {
    if (options.signal?.aborted) return err(describeError(options.signal.reason))
    if (error instanceof ClassifierSilent) {
      return err(
        `the classifier stopped answering: it took the run, then sent nothing for ${seconds(error.silentMs)} s ` +
          '(it was stopped or lost its connection)',
      )
    }
    if (isAppError(error, 'timeout')) {
      return err(`the classifier didn't answer within ${seconds(options.runTimeoutMs)} s`)
    }
    if (isAppError(error, 'unavailable') && error.message === 'classifier not running') {
      return err("the classifier isn't running (no responders)")
    }
    return err(`the run couldn't be sent to the classifier: ${describeError(error)}`)
  } finally {
    clearTimeout(watchdog)
  }
}
