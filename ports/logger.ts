/**
 * Structured logging: one JSON object per line with `time`, `level`, `msg`
 * and the fields. Messages are static text; what varies goes in fields
 * (lower-case names), and no field ever holds a secret.
 */

export type LogFields = Record<string, unknown>

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

export type Logger = {
  /** Detail for debugging, off unless `LOG_LEVEL=debug`. */
  debug(msg: string, fields?: LogFields): void
  /** Something happened as it should. */
  info(msg: string, fields?: LogFields): void
  /** Something is off but the process carries on (an undecodable document, a missing key). */
  warn(msg: string, fields?: LogFields): void
  /** A failure an operator should look at. */
  error(msg: string, fields?: LogFields): void
}
