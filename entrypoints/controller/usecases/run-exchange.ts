/**
 * Sending one run to the classifier and waiting for its reply's text, for a
 * review and a try-out alike. Every failure comes back as the reason, in
 * words, never as a throw.
 */
import { isAppError } from '../../../core/errors.ts'
import { err, ok, type Result } from '../../../core/result.ts'
import type { RunRequest } from '../../../core/types.ts'
import type { RunQueue } from '../../../ports/queue.ts'
import { describeError } from './pull-read.ts'

/** Added to `RUN_TIMEOUT_S` for the reply's trip over the queue. */
export const RUN_REPLY_MARGIN_MS = 5_000

/** How long the controller waits for a run's reply: the run deadline plus a margin. */
export function runReplyTimeoutMs(runTimeoutS: number): number {
  return runTimeoutS * 1000 + RUN_REPLY_MARGIN_MS
}

/** Sends a run and waits for its reply's text. */
export async function sendRunRequest(
  queue: RunQueue,
  request: RunRequest,
  timeoutMs: number,
): Promise<Result<string, string>> {
  try {
    return ok(await queue.request(request, timeoutMs))
  } catch (error) {
    if (isAppError(error, 'timeout')) {
      return err(`the classifier didn't answer within ${Math.round(timeoutMs / 1000)} s`)
    }
    if (isAppError(error, 'unavailable') && error.message === 'classifier not running') {
      return err("the classifier isn't running (no responders)")
    }
    return err(`the run couldn't be sent to the classifier: ${describeError(error)}`)
  }
}
