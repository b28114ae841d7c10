/**
 * Decoding the run's wire formats (docs/decisions.md, "Wire formats"). Both
 * sides read JSON from another process, maybe of another build: unknown
 * fields are ignored, a missing required field is an error, and the defaults
 * of a split deploy apply (no runtime → `api-key`, no model → `haiku`, no
 * `max_output_tokens` → 1024).
 */
import { Type } from '@sinclair/typebox'
import { err, ok, type Result } from '../base/result.ts'
import { formatRulesProblems, validateClassifications } from '../repo-files/rules-file.ts'
import { readSettingsLeniently } from '../settings/settings.ts'
import { decodeWith, isRecord, parseJsonText } from '../wire/decode.ts'
import { RunCancelSchema, RunProgressSchema, RunReplySchema, RunRequestSchema } from '../wire/schemas.ts'
import type { RunCancel, RunProgress, RunReply, RunRequest } from '../wire/types.ts'

/**
 * The request's shape without the classifications and the runtime fields:
 * those two are checked by the rules file's and the settings' own checks,
 * whose messages name the entry or the field in words a person can act on.
 */
const RUNTIME_FIELDS = ['runtime', 'model', 'effort', 'acp', 'max_output_tokens'] as const
const RequestEnvelopeSchema = Type.Omit(RunRequestSchema, ['classifications', ...RUNTIME_FIELDS])

/**
 * A run request from the queue, checked as the controller would have built
 * it: the classifications with the rules file's own checks, the runtime
 * settings with the settings document's (so a model can't start with `-`
 * and turn into a CLI option).
 */
export function decodeRunRequest(text: string): Result<RunRequest, string> {
  const json = parseJsonText(text, 'run request')
  if (!json.ok) return json
  const envelope = decodeWith(RequestEnvelopeSchema, json.value, 'run request')
  if (!envelope.ok) return envelope
  const raw = json.value
  if (!isRecord(raw)) return err('run request: the document: expected object')

  const rules = validateClassifications(raw.classifications, 'run request')
  if (!rules.ok) return err(formatRulesProblems(rules.error).replaceAll('\n', '; '))

  const runtimeFields: Record<string, unknown> = {}
  for (const key of RUNTIME_FIELDS) {
    if (raw[key] !== undefined) runtimeFields[key] = raw[key]
  }
  // The settings' own checks, so a run request's runtime means what a stored document would.
  const settings = readSettingsLeniently(runtimeFields)
  if (!settings.ok) return err(`run request: ${settings.error}`)
  const { runtime, model, effort, acp, max_output_tokens } = settings.value
  return ok({ ...envelope.value, classifications: rules.value, runtime, model, effort, acp, max_output_tokens })
}

/** A run reply from the queue; the controller still re-checks the rows against what it sent. */
export function decodeRunReply(text: string): Result<RunReply, string> {
  const json = parseJsonText(text, 'run reply')
  if (!json.ok) return json
  return decodeWith(RunReplySchema, json.value, 'run reply')
}

/** A progress message from the queue; one that doesn't decode is the caller's to drop. */
export function decodeRunProgress(text: string): Result<RunProgress, string> {
  const json = parseJsonText(text, 'run progress')
  if (!json.ok) return json
  return decodeWith(RunProgressSchema, json.value, 'run progress')
}

/** A cancel from the queue; one that doesn't decode is the caller's to drop. */
export function decodeRunCancel(text: string): Result<RunCancel, string> {
  const json = parseJsonText(text, 'run cancel')
  if (!json.ok) return json
  return decodeWith(RunCancelSchema, json.value, 'run cancel')
}
