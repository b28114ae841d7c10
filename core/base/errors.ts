/**
 * The one error type every port throws, and the controller's routes and use
 * cases raise. `code` is stable across process boundaries; the controller
 * maps it to an HTTP status in one place (http/problem.ts).
 */
export type ErrorCode =
  | 'invalid'
  | 'not_found'
  | 'conflict'
  /** Well-formed, but what it meets makes it impossible (a rules file that doesn't load, nothing to change). */
  | 'unprocessable'
  | 'unauthorized'
  | 'forbidden'
  /** A limit is reached for now (too many running, today's budget spent): the same request may work later. */
  | 'exhausted'
  | 'unavailable'
  | 'timeout'
  /** Something outside refused in a way nobody can act on from here; a person should look. */
  | 'internal'

export class AppError extends Error {
  override readonly name = 'AppError'
  readonly code: ErrorCode

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
}

export function appError(code: ErrorCode, message: string, cause?: unknown): AppError {
  return new AppError(code, message, cause === undefined ? undefined : { cause })
}

export function isAppError(value: unknown, code?: ErrorCode): value is AppError {
  return value instanceof AppError && (code === undefined || value.code === code)
}

/*
 * Describing an error: three ways, which differ on purpose in what they
 * reveal. `describeError` for a log line or a reason built from what this
 * process's own adapters throw; `errorReason` where only words this code
 * wrote itself may go (an HTTP detail, a secret store's failure);
 * `errorKind` for a log line that may not carry the message at all.
 */

/** An Error's own message, else `unknown error`: a thrown non-Error (or an empty message) says nothing worth repeating. */
export function describeError(error: unknown): string {
  if (error instanceof Error && error.message.trim() !== '') return error.message
  return 'unknown error'
}

/** An AppError's message, never another error's (it may hold anything): a short reason fit for a `detail` or a log field. */
export function errorReason(error: unknown): string {
  return isAppError(error) ? error.message : 'an internal error'
}

/** What kind of error it was, for a log field where its message must not go: an Error's name, else the value's type. */
export function errorKind(error: unknown): string {
  return error instanceof Error ? error.name : typeof error
}
