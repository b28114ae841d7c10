import { capText, redactSecrets } from '../../core/base/text.ts'

/**
 * Turns any value a caller puts in a log field into plain JSON that
 * `JSON.stringify` cannot choke on: BigInts, cycles, throwing getters and
 * errors all come out as readable text, and every string passes redaction.
 */

export type LogValueOptions = {
  /** The secret values to replace, read on every conversion. */
  secrets: () => readonly string[]
  /** Adds `stack` to errors. */
  errorStacks: boolean
}

/** Nesting beyond this is cut: a log line is for reading, not for dumping object graphs. */
const maxDepth = 8
/** A field longer than this (a provider's HTML error page, a diff) is cut so one line stays one line. */
const maxStringLength = 16_384

export function createLogValueConverter(options: LogValueOptions): (value: unknown) => unknown {
  function text(raw: string): string {
    // Redact before cutting, so a cut cannot leave a secret's prefix behind.
    const clean = redactSecrets(raw, options.secrets())
    const cut = capText(clean, maxStringLength + 1)
    return cut === clean ? clean : `${cut}[truncated]`
  }

  function convert(value: unknown, ancestors: object[]): unknown {
    switch (typeof value) {
      case 'string':
        return text(value)
      case 'number':
        // JSON would turn these into null, which reads as "absent".
        return Number.isFinite(value) ? value : String(value)
      case 'boolean':
      case 'undefined':
        return value
      case 'bigint':
      case 'symbol':
        return text(value.toString())
      case 'function':
        return '[function]'
      case 'object':
        return value === null ? null : convertObject(value, ancestors)
      default:
        return String(value)
    }
  }

  function convertObject(value: object, ancestors: object[]): unknown {
    if (ancestors.includes(value)) return '[circular]'
    if (ancestors.length >= maxDepth) return '[too deep]'
    const inner = [...ancestors, value]
    if (value instanceof Error) return convertError(value, inner)
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString()
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[${value.byteLength} bytes]`
    if (Array.isArray(value)) return value.map((item) => convert(item, inner) ?? null)
    if (value instanceof Map) return Array.from(value, ([k, v]) => [convert(k, inner), convert(v, inner)])
    if (value instanceof Set) return Array.from(value, (item) => convert(item, inner))
    const toJSON = readSafely(() => Reflect.get(value, 'toJSON'))
    if (typeof toJSON === 'function') {
      // URL and friends know their own text form.
      return convert(
        readSafely(() => Reflect.apply(toJSON, value, [])),
        inner,
      )
    }
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value)) {
      out[text(key)] = convert(
        readSafely(() => Reflect.get(value, key)),
        inner,
      )
    }
    return out
  }

  function convertError(error: Error, inner: object[]): Record<string, unknown> {
    // Name, message and code are what an operator acts on; stacks and the
    // error's other properties (request headers on some clients) stay out.
    const out: Record<string, unknown> = {
      name: convert(
        readSafely(() => error.name),
        inner,
      ),
      message: convert(
        readSafely(() => error.message),
        inner,
      ),
    }
    const code = readSafely(() => ('code' in error ? error.code : undefined))
    if (typeof code === 'string' || typeof code === 'number') out.code = convert(code, inner)
    if (options.errorStacks)
      out.stack = convert(
        readSafely(() => error.stack),
        inner,
      )
    const cause = readSafely(() => error.cause)
    if (cause !== undefined) out.cause = convert(cause, inner)
    return out
  }

  return (value) => convert(value, [])
}

function readSafely(read: () => unknown): unknown {
  try {
    return read()
  } catch {
    return '[unreadable]'
  }
}
