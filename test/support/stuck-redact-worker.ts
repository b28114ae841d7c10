/**
 * A redaction worker for the tests that is stuck on one input: a title of
 * `stuck` holds its thread forever, as a pattern that backtracked without
 * end would; any other input is redacted as the real worker does it.
 */
import { isRedactRequest } from '../../adapters/worker/messages.ts'
import { redactSharedContext } from '../../core/redaction/redact.ts'

declare const self: Worker

/** Where the worker says it is stuck, as soon as it is. */
export const STUCK_CHANNEL = 'stuck-redact-worker'

self.onmessage = (event: MessageEvent<unknown>) => {
  const request = event.data
  if (!isRedactRequest(request)) return
  if (request.input.title === 'stuck') {
    // Says so first, for a test to wait on, then holds its thread busy (not
    // waiting), as a runaway regex would hold it.
    new BroadcastChannel(STUCK_CHANNEL).postMessage(request.id)
    for (;;) {
      Math.sqrt(Math.random())
    }
  }
  self.postMessage({ id: request.id, ok: true, redacted: redactSharedContext(request.input) })
}
