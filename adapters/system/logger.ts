/**
 * The process logger: one JSON object per line (`time`, `level`, `msg`, then
 * the fields), for the journal that ships to VictoriaLogs.
 */
import { appError } from '../../core/base/errors.ts'
import type { LogFields, Logger, LogLevel } from '../../ports/logger.ts'
import { createLogValueConverter } from './log-value.ts'

export type JsonLoggerConfig = {
  /** The least severe level written; `info` by default. */
  level?: LogLevel
  /** Receives each line, newline included; stdout by default. */
  write?: (line: string) => void
  /**
   * Secret values replaced by `[redacted]` wherever they appear. Read on every
   * call, so the owner may add a secret it learns later (a key fetched from bao).
   */
  redact?: readonly string[]
  /** Adds `stack` to logged errors; off because stacks bloat the journal. */
  errorStacks?: boolean
  /** The timestamp source; the wall clock by default. */
  now?: () => Date
}

const levelRank = { debug: 10, info: 20, warn: 30, error: 40 } satisfies Record<LogLevel, number>

/** The names a field may not take because the line's own keys use them. */
const reservedKeys = new Set(['time', 'level', 'msg'])

/** Reads `LOG_LEVEL`: unset or empty means `info`; anything else unknown is a configuration error. */
export function parseLogLevel(text: string | undefined): LogLevel {
  const wanted = (text ?? '').trim().toLowerCase()
  if (wanted === '') return 'info'
  if (isLogLevel(wanted)) return wanted
  throw appError('invalid', `LOG_LEVEL must be one of debug, info, warn, error (got ${JSON.stringify(text)})`)
}

function isLogLevel(text: string): text is LogLevel {
  return Object.hasOwn(levelRank, text)
}

export function createJsonLogger(config: JsonLoggerConfig = {}): Logger {
  const threshold = levelRank[config.level ?? 'info']
  const write = config.write ?? ((line: string) => void process.stdout.write(line))
  const now = config.now ?? (() => new Date())
  const toLogValue = createLogValueConverter({
    secrets: () => config.redact ?? [],
    errorStacks: config.errorStacks ?? false,
  })

  function formatLine(level: LogLevel, msg: string, fields: LogFields): string {
    const time = now().toISOString()
    const line: Record<string, unknown> = { time, level, msg: toLogValue(msg) }
    for (const [key, value] of Object.entries(fields)) {
      // A field called `level` must not overwrite the line's own level, nor vanish.
      const name = reservedKeys.has(key) ? `field_${key}` : key
      line[redactedKey(name)] = toLogValue(value)
    }
    return `${JSON.stringify(line)}\n`
  }

  function redactedKey(key: string): string {
    const converted = toLogValue(key)
    return typeof converted === 'string' ? converted : key
  }

  function log(level: LogLevel) {
    return (msg: string, fields: LogFields = {}) => {
      if (levelRank[level] < threshold) return
      let line: string
      try {
        line = formatLine(level, msg, fields)
      } catch {
        // The converter guards against every value we know of; this is the net for one we do not.
        line = `${JSON.stringify({ time: new Date().toISOString(), level, msg: toLogValue(msg), log_error: 'fields could not be written' })}\n`
      }
      try {
        write(line)
      } catch {
        // Logging must never take the caller down (a closed stdout, a full pipe).
      }
    }
  }

  return {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
  } satisfies Logger
}
