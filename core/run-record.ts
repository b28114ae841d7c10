/**
 * The run store: what one finished run records, how the newest 100 are kept
 * as one JSON array, and how they're read back by a build that may be older
 * or newer than the one that wrote them.
 *
 * The stored array is newest first, the order the runs route answers in, so
 * reading it back needs no sort and an append is one prepend and a cut.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { Value, type ValueError } from '@sinclair/typebox/value'
import { err, ok, type Result } from './result.ts'
import type { Overall, Row } from './types.ts'

export const RUNS_BUCKET = 'review-classifier-runs'
export const RUNS_KEY = 'recent'
/** How many runs the store keeps; recording one more drops the oldest. */
export const RUNS_KEPT = 100
export const RUN_FINISHED_MESSAGE = 'review classifier run finished'

export type RunTrigger = 'review' | 'try-out'
export type ReviewOutcome = 'approved' | 'changes-requested' | 'no-verdict' | 'queue-full' | 'post-failed'
export type TryOutOutcome = 'done' | 'failed'
export type RunOutcome = ReviewOutcome | TryOutOutcome

/** A row as a run keeps it: a run holds no token count, so never `usage`. */
export type RecordedRow = Omit<Row, 'usage'>

/** One finished run, as the run store holds it and the runs route returns it. */
export type RunRecord = {
  /** A try-out's is the id its POST answered with. */
  id: string
  trigger: RunTrigger
  /** `owner/name` */
  repo: string
  pr: number
  /** The swarm UI user who started the try-out, or the forge user who requested the review. */
  requester: string
  /** The commit the run read; absent when the PR wasn't read. */
  head_sha?: string
  started_unix: number
  finished_unix: number
  /** A review's outcome is a {@link ReviewOutcome}, a try-out's a {@link TryOutOutcome}. */
  outcome: RunOutcome
  /** The reason, for every outcome but approved, changes-requested and done. */
  detail?: string
  /** Present when the classifier answered. */
  rows?: RecordedRow[]
  overall?: Overall
  /** The posted review, when the forge names its URL. */
  review_url?: string
}

/** Which trigger each outcome belongs to; a complete table, so a new outcome breaks the build until placed. */
const OUTCOME_TRIGGER: Record<RunOutcome, RunTrigger> = {
  approved: 'review',
  'changes-requested': 'review',
  'no-verdict': 'review',
  'queue-full': 'review',
  'post-failed': 'review',
  done: 'try-out',
  failed: 'try-out',
}
const OUTCOMES_WITHOUT_DETAIL: readonly RunOutcome[] = ['approved', 'changes-requested', 'done']

/** Optional on read, and a `null` reads as absent: writers never store one, but a null is no reason to hide a run. */
function absentOr<T extends TSchema>(schema: T) {
  return Type.Optional(Type.Union([schema, Type.Null()]))
}

// Objects allow properties they don't list, so a field a newer build added is ignored, not fatal.
const RecordedRowSchema = Type.Object({
  name: Type.String(),
  polarity: Type.Union([Type.Literal('positive'), Type.Literal('negative')]),
  threshold: Type.Number(),
  verdict: Type.Union([Type.Literal('match'), Type.Literal('no-match'), Type.Literal('not-applicable'), Type.Null()]),
  certainty: Type.Union([Type.Number(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  counted: Type.Boolean(),
  fails: Type.Boolean(),
  error: Type.Union([
    Type.Object({
      kind: Type.Union([Type.Literal('timeout'), Type.Literal('runtime'), Type.Literal('malformed-answer')]),
      detail: Type.String(),
    }),
    Type.Null(),
  ]),
})

const RunRecordSchema = Type.Object({
  id: Type.String(),
  trigger: Type.Union([Type.Literal('review'), Type.Literal('try-out')]),
  repo: Type.String(),
  pr: Type.Integer(),
  requester: Type.String(),
  head_sha: absentOr(Type.String()),
  started_unix: Type.Number(),
  finished_unix: Type.Number(),
  outcome: Type.Union([
    Type.Literal('approved'),
    Type.Literal('changes-requested'),
    Type.Literal('no-verdict'),
    Type.Literal('queue-full'),
    Type.Literal('post-failed'),
    Type.Literal('done'),
    Type.Literal('failed'),
  ]),
  detail: absentOr(Type.String()),
  rows: absentOr(Type.Array(RecordedRowSchema)),
  overall: absentOr(Type.Union([Type.Literal('approve'), Type.Literal('request-changes'), Type.Literal('no-verdict')])),
  review_url: absentOr(Type.String()),
})

// An outcome the type has but the schema lacks would hide every such run as undecodable: fail the build instead.
type SchemaOutcome = Static<typeof RunRecordSchema>['outcome']
type IsTrue<T extends true> = T
// biome-ignore lint/correctness/noUnusedVariables: a check the compiler makes, never used as a value
type SchemaKnowsEveryOutcome = IsTrue<[RunOutcome] extends [SchemaOutcome] ? true : false>

function recordedRow(row: RecordedRow): RecordedRow {
  // Built field by field so `usage`, or anything else a caller's row carries, never reaches the store.
  return {
    name: row.name,
    polarity: row.polarity,
    threshold: row.threshold,
    verdict: row.verdict,
    certainty: row.certainty,
    reason: row.reason,
    counted: row.counted,
    fails: row.fails,
    error: row.error === null ? null : { kind: row.error.kind, detail: row.error.detail },
  }
}

type RecordFields = Omit<RunRecord, 'head_sha' | 'detail' | 'rows' | 'overall' | 'review_url'> & {
  head_sha?: string | null
  detail?: string | null
  rows?: RecordedRow[] | null
  overall?: Overall | null
  review_url?: string | null
}

function buildRecord(fields: RecordFields): RunRecord {
  const keepsDetail = !OUTCOMES_WITHOUT_DETAIL.includes(fields.outcome)
  return {
    id: fields.id,
    trigger: fields.trigger,
    repo: fields.repo,
    pr: fields.pr,
    requester: fields.requester,
    ...(fields.head_sha == null ? {} : { head_sha: fields.head_sha }),
    started_unix: fields.started_unix,
    finished_unix: fields.finished_unix,
    outcome: fields.outcome,
    ...(fields.detail == null || !keepsDetail ? {} : { detail: fields.detail }),
    ...(fields.rows == null ? {} : { rows: fields.rows.map(recordedRow) }),
    ...(fields.overall == null ? {} : { overall: fields.overall }),
    ...(fields.review_url == null ? {} : { review_url: fields.review_url }),
  }
}

/**
 * The record as it may be stored: rows without `usage` (a caller may pass the
 * reply's rows as they came), no `detail` for an outcome that carries none,
 * and no field a {@link RunRecord} doesn't name.
 */
export function toStoredRecord(record: RunRecord): RunRecord {
  return buildRecord(record)
}

/** A union's own error names only the union; the branch that went deepest names the field that doesn't fit. */
function deepestPath(error: ValueError): string {
  let deepest = error.path
  for (const branch of error.errors) {
    for (const inner of branch) {
      const path = deepestPath(inner)
      if (path.split('/').length > deepest.split('/').length) deepest = path
    }
  }
  return deepest
}

/** Decodes one stored entry; unknown fields are ignored, a known one that doesn't fit is an error naming it. */
export function decodeRunRecord(raw: unknown): Result<RunRecord, string> {
  if (!Value.Check(RunRecordSchema, raw)) {
    const first = Value.Errors(RunRecordSchema, raw).First()
    const field = first === undefined ? '' : deepestPath(first).replace(/^\//, '').replaceAll('/', '.')
    return err(field === '' ? "the entry isn't a run object" : `field ${field} doesn't hold what this build expects`)
  }
  if (OUTCOME_TRIGGER[raw.outcome] !== raw.trigger) {
    return err(`outcome "${raw.outcome}" isn't one a ${raw.trigger} run has`)
  }
  return ok(buildRecord(raw))
}

function parseStored(storedText: string | null): { entries: unknown[]; warning: string | null } {
  if (storedText === null) return { entries: [], warning: null }
  let stored: unknown
  try {
    stored = JSON.parse(storedText)
  } catch {
    return { entries: [], warning: "the stored runs aren't JSON; reading them as no runs" }
  }
  if (!Array.isArray(stored)) {
    return { entries: [], warning: "the stored runs aren't a list; reading them as no runs" }
  }
  return { entries: stored, warning: null }
}

/**
 * Adds a finished run to the stored list (`null` when nothing is stored yet)
 * and answers the text to write back. Entries this build can't decode stay
 * as they were and count toward the {@link RUNS_KEPT}; a stored value that
 * isn't a list is replaced by a fresh one.
 */
export function appendRun(storedText: string | null, record: RunRecord): string {
  const { entries } = parseStored(storedText)
  return JSON.stringify([toStoredRecord(record), ...entries].slice(0, RUNS_KEPT))
}

function entryLabel(entry: unknown, index: number): string {
  const id = typeof entry === 'object' && entry !== null && 'id' in entry ? entry.id : undefined
  return typeof id === 'string' ? `stored run ${JSON.stringify(id)}` : `stored run #${index + 1}`
}

/** The stored runs, newest first, leaving out (with a warning each) the ones this build can't decode. */
export function listRuns(storedText: string | null): { runs: RunRecord[]; warnings: string[] } {
  const { entries, warning } = parseStored(storedText)
  const runs: RunRecord[] = []
  const warnings: string[] = warning === null ? [] : [warning]
  entries.forEach((entry, index) => {
    const decoded = decodeRunRecord(entry)
    if (decoded.ok) runs.push(decoded.value)
    else warnings.push(`${entryLabel(entry, index)} can't be decoded (${decoded.error}); left out of the list`)
  })
  return { runs, warnings }
}

/** The fields of the `review classifier run finished` log event: the record's, with `rows` as JSON. */
export type RunFinishedFields = Omit<RunRecord, 'rows'> & { rows?: string }

export function runFinishedEvent(record: RunRecord): RunFinishedFields {
  const { rows, ...rest } = toStoredRecord(record)
  return rows === undefined ? rest : { ...rest, rows: JSON.stringify(rows) }
}
