/**
 * Turning a finished `claude --print` into a classification result. Success
 * is exit 0 and a `result` line with `is_error: false`: a failed API call
 * also exits with a `result` line (its `subtype` still "success"), and a
 * killed process leaves none.
 */
import { type Static, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { err, ok } from '../../core/base/result.ts'
import { capLine, REDACTED, redactSecrets as redactAll } from '../../core/base/text.ts'
import type { Usage } from '../../core/wire/types.ts'
import type { ClassifyResult } from '../../ports/model-runtime.ts'

/** Longest failure detail; enough for the status and the gist of the message. */
export const DETAIL_MAX_CHARS = 300

const Count = Type.Number({ minimum: 0 })

const ResultLine = Type.Object({
  type: Type.Literal('result'),
  is_error: Type.Boolean(),
  result: Type.Optional(Type.String()),
  api_error_status: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  total_cost_usd: Type.Optional(Count),
  usage: Type.Optional(
    Type.Object({
      input_tokens: Type.Optional(Count),
      output_tokens: Type.Optional(Count),
      cache_read_input_tokens: Type.Optional(Count),
      cache_creation_input_tokens: Type.Optional(Count),
    }),
  ),
})

export type ResultLine = Static<typeof ResultLine>

/** The last `result` line of the CLI's stream-json output, if it printed one. */
export function findResultLine(stdout: string): ResultLine | null {
  const lines = stdout.split('\n')
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    const line = lines[index]?.trim() ?? ''
    if (!line.startsWith('{') || !line.includes('"result"')) continue
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      continue
    }
    if (Value.Check(ResultLine, parsed)) return parsed
  }
  return null
}

export function usageOf(line: ResultLine): Usage | null {
  const usage = line.usage
  if (usage === undefined) return null
  return {
    input: usage.input_tokens ?? 0,
    output: usage.output_tokens ?? 0,
    cache_read: usage.cache_read_input_tokens ?? 0,
    cache_write: usage.cache_creation_input_tokens ?? 0,
  }
}

export type Exit = {
  /** `null` when a signal ended the process. */
  exitCode: number | null
  signalCode: string | number | null
  stdout: string
  /** The end of stderr; the CLI writes nothing there on API errors, but does on bad invocations. */
  stderrTail: string
}

export function outcomeOf(exit: Exit, apiKey: string): ClassifyResult {
  const line = findResultLine(exit.stdout)
  if (exit.exitCode === 0 && line !== null && !line.is_error && line.result !== undefined) {
    const cost = line.total_cost_usd === undefined ? {} : { costUsd: line.total_cost_usd }
    return ok({ text: line.result, usage: usageOf(line), ...cost })
  }
  const parts = [
    exit.signalCode === null
      ? `claude exited with code ${exit.exitCode ?? 'none'}`
      : `claude ended by ${exit.signalCode}`,
  ]
  if (line === null) parts.push('no result line')
  if (line?.api_error_status != null) parts.push(`API status ${line.api_error_status}`)
  if (line?.result !== undefined && line.result !== '') parts.push(line.result)
  if (exit.stderrTail.trim() !== '') parts.push(`stderr: ${exit.stderrTail}`)
  return err({ kind: 'runtime', detail: failureDetail(parts.join(': '), apiKey) })
}

/**
 * One line, key material out, at most {@link DETAIL_MAX_CHARS}. Redacting
 * comes first, so a cut cannot leave half a key behind.
 */
export function failureDetail(text: string, apiKey: string): string {
  return capLine(redactSecrets(text, apiKey), DETAIL_MAX_CHARS)
}

/** Replaces the key and anything shaped like an Anthropic-style key (`sk-…`) with `[redacted]`. */
export function redactSecrets(text: string, apiKey: string): string {
  return redactAll(text, [apiKey]).replace(/sk-[A-Za-z0-9_-]+/g, REDACTED)
}
