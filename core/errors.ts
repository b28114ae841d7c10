/**
 * The one error type every port throws. `code` is stable across process
 * boundaries; the controller maps it to an HTTP status in one place.
 */
export type ErrorCode =
  | 'invalid'
  | 'not_found'
  | 'conflict'
  /** Well-formed, but what it meets makes it impossible (a rules file that doesn't load, nothing to change). */
  | 'unprocessable'
  | 'unauthorized'
  | 'forbidden'
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
