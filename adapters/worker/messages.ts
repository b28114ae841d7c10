/** What the redaction worker and its adapter send each other (structured clones of these). */
import type { Redacted, RedactionInput } from '../../core/redaction/redact.ts'

export type RedactRequest = { id: number; input: RedactionInput }
export type RedactResponse = { id: number; ok: true; redacted: Redacted } | { id: number; ok: false; error: string }

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

export function isRedactRequest(value: unknown): value is RedactRequest {
  if (!isRecord(value) || typeof value.id !== 'number' || !isRecord(value.input)) return false
  const input = value.input
  return (
    typeof input.title === 'string' &&
    typeof input.diff === 'string' &&
    Array.isArray(input.commits) &&
    input.commits.every((commit) => typeof commit === 'string')
  )
}

export function isRedactResponse(value: unknown): value is RedactResponse {
  if (!isRecord(value) || typeof value.id !== 'number') return false
  if (value.ok === false) return typeof value.error === 'string'
  const redacted = value.redacted
  return (
    value.ok === true &&
    isRecord(redacted) &&
    typeof redacted.title === 'string' &&
    Array.isArray(redacted.commits) &&
    Array.isArray(redacted.diff) &&
    Array.isArray(redacted.findings) &&
    typeof redacted.redacted === 'number'
  )
}
