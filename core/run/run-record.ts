/**
 * The run store: what one finished run records, how the newest 100 are kept
 * as one JSON array, and how they're read back by a build that may be older
 * or newer than the one that wrote them.
 *
 * The stored array is newest first, the order the runs route answers in, so
 * reading it back needs no sort and an append is one prepend and a cut.
 */
import type { Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { appError } from '../base/errors.ts'
import { err, ok, type Result } from '../base/result.ts'
import { quoteInput } from '../base/text.ts'
import { isRecord, keepKnownFields, schemaMismatch } from '../wire/decode.ts'
import { type RECORD_TRIGGERS, type REVIEW_OUTCOMES, RunRecordSchema, type TRY_OUT_OUTCOMES } from '../wire/schemas.ts'

export const RUNS_BUCKET = 'review-classifier-runs'
export const RUNS_KEY = 'recent'
/** How many reviews the store keeps; recording one more drops the oldest review. */
export const RUNS_KEPT = 100
/**
 * How many try-outs it keeps besides, a cap of their own: a replay records
 * one run per PR, and no number of try-outs may push a review out.
 */
export const TRY_OUT_RUNS_KEPT = 50
export const RUN_FINISHED_MESSAGE = 'review classifier run finished'

export type RunTrigger = (typeof RECORD_TRIGGERS)[number]
export type ReviewOutcome = (typeof REVIEW_OUTCOMES)[number]
export type TryOutOutcome = (typeof TRY_OUT_OUTCOMES)[number]
export type RunOutcome = ReviewOutcome | TryOutOutcome

/** One finished run, as the run store holds it and the runs route returns it (schema in schemas.ts). */
export type RunRecord = Static<typeof RunRecordSchema>

/**
 * Which triggers each outcome belongs to; a complete table, so a new outcome breaks the build until placed.
 * A waiver's re-post approves, requests changes, or failed to post.
 */
const OUTCOME_TRIGGERS: Record<RunOutcome, readonly RunTrigger[]> = {
  approved: ['review', 'waiver'],
  'changes-requested': ['review', 'waiver'],
  'no-verdict': ['review'],
  'queue-full': ['review'],
  'post-failed': ['review', 'waiver'],
  done: ['try-out'],
  failed: ['try-out'],
}
/** A try-out that is done has nothing to explain; an approval or a request for changes may still say a commit status was refused. */
const OUTCOMES_WITHOUT_DETAIL: readonly RunOutcome[] = ['done']

/** The record's optional fields; on read a stored `null` counts as absent (writers never store one, and it's no reason to hide a run). */
const OPTIONAL_FIELDS = [
  'pr',
  'labelled_prs',
  'head_sha',
  'detail',
  'rows',
  'overall',
  'review_url',
  'redacted',
  'waived',
] as const

/**
 * The record as it may be stored: only the fields the schema names (so no
 * row's `usage`, or anything else a caller's record carries), and no
 * `detail` for an outcome that carries none.
 */
export function toStoredRecord(record: RunRecord): RunRecord {
  const stored = keepKnownFields(RunRecordSchema, record)
  if (OUTCOMES_WITHOUT_DETAIL.includes(stored.outcome)) delete stored.detail
  for (const field of OPTIONAL_FIELDS) if (stored[field] === undefined) delete stored[field]
  return stored
}

/** Decodes one stored entry; unknown fields are ignored, a known one that doesn't fit is an error naming it. */
export function decodeRunRecord(raw: unknown): Result<RunRecord, string> {
  if (!isRecord(raw)) return err("the entry isn't a run object")
  const entry = Object.fromEntries(Object.entries(raw).filter(([key, value]) => !(value === null && isOptional(key))))
  if (!Value.Check(RunRecordSchema, entry)) {
    const field = schemaMismatch(RunRecordSchema, entry)?.field ?? ''
    return err(field === '' ? "the entry isn't a run object" : `field ${field} doesn't hold what this build expects`)
  }
  if (!OUTCOME_TRIGGERS[entry.outcome].includes(entry.trigger)) {
    return err(`outcome "${entry.outcome}" isn't one a ${entry.trigger} run has`)
  }
  return ok(toStoredRecord(entry))
}

function isOptional(key: string): boolean {
  return OPTIONAL_FIELDS.some((field) => field === key)
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

/** What {@link appendRun} wrote: the text, and how many of the oldest runs it left out to stay within the bytes. */
export type AppendedRuns = { text: string; kept: number; dropped: number; bytes: number }

const encoder = new TextEncoder()

/**
 * Adds a finished run to the stored list (`null` when nothing is stored yet)
 * and answers the text to write back, with how many runs it holds. Entries this build can't decode stay
 * as they were and count toward the {@link RUNS_KEPT}; a stored value that
 * isn't a list is replaced by a fresh one. The text is at most `maxBytes`
 * of UTF-8: past it, the oldest runs are left out (`dropped` says how many
 * beyond the {@link RUNS_KEPT}). A new run that alone is over is an error.
 */
export function appendRunWithin(storedText: string | null, record: RunRecord, maxBytes: number): AppendedRuns {
  const { entries } = parseStored(storedText)
  const list = keepNewest([toStoredRecord(record), ...entries])
  // Each entry's size once, then the array's: brackets and a comma between entries.
  const sizes = list.map((entry) => encoder.encode(JSON.stringify(entry)).byteLength)
  let kept = list.length
  let bytes = 2 + sizes.reduce((total, size) => total + size, 0) + kept - 1
  while (bytes > maxBytes && kept > 1) {
    kept -= 1
    bytes -= (sizes[kept] ?? 0) + 1
  }
  if (bytes > maxBytes) {
    throw appError('invalid', `the run alone is ${bytes} bytes, over the ${maxBytes} bytes the run store takes`)
  }
  return { text: JSON.stringify(list.slice(0, kept)), kept, dropped: list.length - kept, bytes }
}

/** The newest {@link RUNS_KEPT} reviews and {@link TRY_OUT_RUNS_KEPT} try-outs; an entry that isn't a try-out's counts as a review. */
function keepNewest(entries: readonly unknown[]): unknown[] {
  let reviews = 0
  let tryOuts = 0
  return entries.filter((entry) => {
    if (isRecord(entry) && entry.trigger === 'try-out') {
      tryOuts += 1
      return tryOuts <= TRY_OUT_RUNS_KEPT
    }
    reviews += 1
    return reviews <= RUNS_KEPT
  })
}

/** {@link appendRunWithin} with no bound on the bytes. */
export function appendRun(storedText: string | null, record: RunRecord): string {
  return appendRunWithin(storedText, record, Number.POSITIVE_INFINITY).text
}

function entryLabel(entry: unknown, index: number): string {
  const id = isRecord(entry) ? entry.id : undefined
  return typeof id === 'string' ? `stored run ${quoteInput(id)}` : `stored run #${index + 1}`
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
