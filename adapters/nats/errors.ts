/**
 * NATS client errors → `AppError`, in one table-like place for both the KV
 * and the queue adapter. Codes measured on 2.9.10 with the v3 clients
 * (docs/infra.md §A2–A4).
 */

import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream'
import { errors } from '@nats-io/transport-node'
import { type AppError, appError, describeError, isAppError } from '../../core/base/errors.ts'

/** The server's `err_code` for a write whose bucket would exceed its max value size (`maxValueSize`). */
const messageSizeExceedsMaximum = 10054

/** A CAS failure: a stale `update`, or a `create` over a live key. */
function isWrongLastSequence(error: JetStreamApiError): boolean {
  return (
    error.code === JetStreamApiCodes.StreamWrongLastSequence ||
    error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown
  )
}

/** The server's `err_code`s for a stream created twice at once: the name is taken, or its subjects are. */
const streamNameInUse = 10058
const streamSubjectsOverlap = 10065

/**
 * Whether a KV bucket's open lost a race to create its stream: two processes
 * opening a new bucket at once both find no stream, both add it, and the
 * later add is refused. The stream is there by then, so opening again binds it.
 */
export function isStreamCreateRace(error: unknown): boolean {
  return error instanceof JetStreamApiError && (error.code === streamNameInUse || error.code === streamSubjectsOverlap)
}

function isTimeout(error: unknown): boolean {
  return (
    error instanceof errors.TimeoutError ||
    (error instanceof errors.RequestError && error.cause instanceof errors.TimeoutError)
  )
}

/**
 * Maps what the client threw while doing `action` (e.g. "kv update of
 * review-classifier-runs/recent"). Anything unrecognised is `unavailable`:
 * the queue failed us in a way the caller can only retry later.
 */
export function natsErrorToAppError(error: unknown, action: string): AppError {
  if (isAppError(error)) return error
  if (error instanceof JetStreamApiError) {
    if (isWrongLastSequence(error)) return appError('conflict', `${action}: another write came first`, error)
    if (error.code === messageSizeExceedsMaximum)
      return appError('invalid', `${action}: value larger than the bucket allows`, error)
    return appError('unavailable', `${action}: JetStream refused (${error.code}: ${error.message})`, error)
  }
  if (isTimeout(error)) return appError('timeout', `${action}: NATS did not answer in time`, error)
  if (error instanceof errors.RequestError && error.isNoResponders()) {
    return appError('unavailable', `${action}: JetStream is not answering (no responders)`, error)
  }
  if (error instanceof errors.InvalidArgumentError) {
    if (error.message.includes('max_payload'))
      return appError('invalid', `${action}: larger than the server's max_payload`, error)
    return appError('invalid', `${action}: ${error.message}`, error)
  }
  if (error instanceof errors.ClosedConnectionError || error instanceof errors.DrainingConnectionError) {
    return appError('unavailable', `${action}: NATS connection closed`, error)
  }
  if (error instanceof errors.ConnectionError || error instanceof errors.RequestError) {
    return appError('unavailable', `${action}: NATS connection lost (${error.message})`, error)
  }
  // The KV client checks names itself and throws a plain Error.
  if (error instanceof Error && /^invalid (key|bucket name):/.test(error.message)) {
    return appError('invalid', `${action}: ${error.message}`, error)
  }
  const detail = describeError(error)
  return appError('unavailable', `${action}: NATS failed (${detail})`, error)
}

/**
 * Checked before each call: a request written while disconnected is dropped on reconnect and would only time out
 * later (docs/infra.md §A4).
 */
export function notConnected(action: string): AppError {
  return appError('unavailable', `${action}: not connected to NATS`)
}
