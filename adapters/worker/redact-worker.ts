/**
 * The worker thread of createWorkerRedactor (redactor.ts beside it): loads
 * the rules once, then redacts each input it is sent and posts the result
 * back with the request's id. A redaction that throws is answered as such.
 */
import { redactSharedContext } from '../../core/redaction/redact.ts'
import { isRedactRequest, type RedactResponse } from './messages.ts'

declare const self: Worker

self.onmessage = (event: MessageEvent<unknown>) => {
  const request = event.data
  if (!isRedactRequest(request)) return
  let response: RedactResponse
  try {
    response = { id: request.id, ok: true, redacted: redactSharedContext(request.input) }
  } catch (error) {
    response = { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) }
  }
  self.postMessage(response)
}
