/**
 * Decoding the run's wire formats (DECISIONS.md, "Wire formats"). Both sides
 * read JSON from another process, maybe of another build: unknown fields are
 * ignored, a missing required field is an error, and the defaults of a split
 * deploy apply (no runtime → `api-key`, no model → `haiku`).
 */
import { type Static, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { err, ok, type Result } from './result.ts'
import { formatRulesProblems, validateClassifications } from './rules-file.ts'
import { decodeStoredSettings } from './settings.ts'
import type { Row, RowErrorKind, Usage, Verdict } from './types.ts'
import type { RunReply, RunRequest } from './wire.ts'

const RequestShape = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  trigger: Type.Union([Type.Literal('review'), Type.Literal('try-out')]),
  repo: Type.String({ pattern: '^[^/\\s]+/[^/\\s]+$' }),
  pr: Type.Integer({ minimum: 1 }),
  title: Type.String(),
  commits: Type.Array(Type.Object({ message: Type.String() })),
  diff: Type.String(),
  classifications: Type.Unknown(),
})

const Count = Type.Integer({ minimum: 0 })
const UsageShape = Type.Object({ input: Count, output: Count, cache_read: Count, cache_write: Count })

const RowShape = Type.Object({
  name: Type.String(),
  polarity: Type.Union([Type.Literal('positive'), Type.Literal('negative')]),
  threshold: Type.Integer({ minimum: 0, maximum: 100 }),
  verdict: Type.Union([Type.Literal('match'), Type.Literal('no-match'), Type.Literal('not-applicable'), Type.Null()]),
  certainty: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  counted: Type.Boolean(),
  fails: Type.Boolean(),
  error: Type.Union([
    Type.Null(),
    Type.Object({
      kind: Type.Union([Type.Literal('timeout'), Type.Literal('runtime'), Type.Literal('malformed-answer')]),
      detail: Type.String(),
    }),
  ]),
  usage: Type.Optional(UsageShape),
})

const ReplyShape = Type.Object({
  id: Type.String(),
  ok: Type.Boolean(),
  error: Type.Optional(Type.String()),
  rows: Type.Array(RowShape),
  overall: Type.Union([Type.Literal('approve'), Type.Literal('request-changes'), Type.Literal('no-verdict')]),
})

function parseJson(text: string, what: string): Result<unknown, string> {
  try {
    return ok(JSON.parse(text))
  } catch {
    return err(`${what} is not valid JSON`)
  }
}

/** The first schema error as one line: the field's path and what was expected. */
function firstShapeError(schema: Parameters<typeof Value.Errors>[0], value: unknown, what: string): string | null {
  const first = Value.Errors(schema, value).First()
  if (first === undefined) return null
  const path = first.path === '' ? 'the document' : first.path.slice(1).replaceAll('/', '.')
  return `${what}: ${path}: ${first.message.toLowerCase()}`
}

/**
 * A run request from the queue, checked as the controller would have built
 * it: the classifications with the rules file's own checks, the runtime
 * settings with the settings document's (so a model can't start with `-`
 * and turn into a CLI option).
 */
export function decodeRunRequest(text: string): Result<RunRequest, string> {
  const json = parseJson(text, 'run request')
  if (!json.ok) return json
  const raw = json.value
  const shapeError = firstShapeError(RequestShape, raw, 'run request')
  if (shapeError !== null || !Value.Check(RequestShape, raw)) return err(shapeError ?? 'run request: not an object')
  const shaped: Static<typeof RequestShape> = raw

  const rules = validateClassifications(shaped.classifications, 'run request')
  if (!rules.ok) return err(formatRulesProblems(rules.error).replaceAll('\n', '; '))

  const runtimeFields: Record<string, unknown> = {}
  for (const key of ['runtime', 'model', 'effort', 'acp'] as const) {
    const value: unknown = Reflect.get(shaped, key)
    if (value !== undefined) runtimeFields[key] = value
  }
  const decoded = decodeStoredSettings(runtimeFields)
  if (decoded.settings === null) return err(`run request: ${decoded.warning ?? 'bad runtime settings'}`)
  const { runtime, model, effort, acp } = decoded.settings

  return ok({
    id: shaped.id,
    trigger: shaped.trigger,
    repo: shaped.repo,
    pr: shaped.pr,
    title: shaped.title,
    commits: shaped.commits.map((c) => ({ message: c.message })),
    diff: shaped.diff,
    classifications: rules.value,
    runtime,
    model,
    effort,
    acp,
  })
}

function toRow(row: Static<typeof RowShape>): Row {
  const verdict: Verdict | null = row.verdict
  const kind: RowErrorKind | undefined = row.error?.kind
  const usage: Usage | undefined = row.usage === undefined ? undefined : { ...row.usage }
  return {
    name: row.name,
    polarity: row.polarity,
    threshold: row.threshold,
    verdict,
    certainty: row.certainty,
    reason: row.reason,
    counted: row.counted,
    fails: row.fails,
    error: kind === undefined || row.error === null ? null : { kind, detail: row.error.detail },
    ...(usage === undefined ? {} : { usage }),
  }
}

/** A run reply from the queue; the controller still re-checks the rows against what it sent. */
export function decodeRunReply(text: string): Result<RunReply, string> {
  const json = parseJson(text, 'run reply')
  if (!json.ok) return json
  const shapeError = firstShapeError(ReplyShape, json.value, 'run reply')
  if (shapeError !== null || !Value.Check(ReplyShape, json.value)) return err(shapeError ?? 'run reply: not an object')
  const reply = json.value
  return ok({
    id: reply.id,
    ok: reply.ok,
    ...(reply.error === undefined ? {} : { error: reply.error }),
    rows: reply.rows.map(toRow),
    overall: reply.overall,
  })
}
