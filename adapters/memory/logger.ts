/** A logger that keeps its entries for assertions instead of printing them. */
import type { LogFields, Logger, LogLevel } from '../../ports/logger.ts'

export type LogEntry = { level: LogLevel; msg: string; fields: LogFields }

export type RecordingLogger = Logger & {
  readonly entries: LogEntry[]
  /** The entries with this message, in order. */
  withMessage(msg: string): LogEntry[]
}

export function createRecordingLogger(): RecordingLogger {
  const entries: LogEntry[] = []
  function record(level: LogLevel) {
    return (msg: string, fields: LogFields = {}) => {
      entries.push({ level, msg, fields: { ...fields } })
    }
  }
  return {
    entries,
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    withMessage(msg) {
      return entries.filter((e) => e.msg === msg)
    },
  } satisfies RecordingLogger
}
