/**
 * How a review run ends before anything is posted (docs/behaviour.md, "The
 * review"): a verdict, or a no-verdict with its reason and whatever table
 * the classifier answered; what the run learnt along the way; and the
 * review that conclusion posts. A run with no clean verdict never approves.
 */
import type { StatusText } from '../../../../core/review/commit-status.ts'
import { type NoRunCause, noRunText } from '../../../../core/review/no-run.ts'
import { renderNoVerdictBody, renderReviewBody, reviewEvent } from '../../../../core/review/review-body.ts'
import { readRunReply } from '../../../../core/run/run-reply.ts'
import type { Overall, RedactionSummary, Row, RunRequest } from '../../../../core/wire/types.ts'
import type { NewReview } from '../../../../ports/forge.ts'
import type { ReportBasis } from './rules-change-report.ts'

export type Table = { rows: Row[]; overall: Overall }

/** How the run ended before anything is posted. */
export type Conclusion =
  | { kind: 'verdict'; overall: 'approve' | 'request-changes'; rows: Row[] }
  | {
      kind: 'no-verdict'
      reason: string
      /** The table the classifier answered and the comment shows, if any. */
      table: Table | null
      /** The classifier replied, if with no rows: the record keeps an empty table then. */
      replied?: true
      /** The commit status it sets, when not the one its table makes (a spent budget, an unreadable ledger). */
      status?: StatusText
    }

/**
 * What the run learnt on its way to the conclusion, for the post, the
 * commit status, the record and the rules-change report: the head and the
 * PR's web page once read, what the reply said was redacted.
 */
export type Learnt = {
  headSha: string | null
  pullUrl: string | null
  /** What the classifier said its redaction took out, once it replied (null: no reply, or an older classifier). */
  redaction: RedactionSummary | null
  /** What the rules-change report needs, once the PR, the rules and the settings are read. */
  basis: ReportBasis | null
}

/** What a run that read nothing learnt. */
export const NOTHING_LEARNT: Learnt = { headSha: null, pullUrl: null, redaction: null, basis: null }

/** A run's one result: how it ended and what it learnt by then; the post, the status and the record are made from it. */
export type Concluded = { conclusion: Conclusion; learnt: Learnt }

/**
 * Why a review was stopped before its verdict (the controller is stopping):
 * the abort reason the review's signal carries, and the no-verdict's text.
 */
export class ReviewStopped extends Error {
  override readonly name = 'ReviewStopped'
}

export function noVerdict(reason: string, table: Table | null = null, status?: StatusText): Conclusion {
  return status === undefined ? { kind: 'no-verdict', reason, table } : { kind: 'no-verdict', reason, table, status }
}

/** The no-verdict of a run the budget kept from starting once the PR was read: the no-run's reason and status. */
export function noRunConclusion(cause: NoRunCause): Conclusion {
  const { reason, status } = noRunText(cause)
  return noVerdict(reason, null, status)
}

/** The no-verdict's reason for a review stopped with `reason` (its signal's). */
export function stoppedReason(reason: unknown): string {
  return reason instanceof ReviewStopped ? reason.message : 'the review was stopped'
}

/** The reply, re-checked against what was sent and its diff: its own `counted`, `fails` and `overall` are never trusted. */
export function concludeReply(
  request: Pick<RunRequest, 'id' | 'classifications' | 'diff'>,
  text: string,
): { conclusion: Conclusion; redaction: RedactionSummary | null } {
  const reading = readRunReply(request.id, request.classifications, text, request.diff)
  if (reading.kind === 'unreadable') return { conclusion: noVerdict(reading.reason), redaction: null }
  if (reading.kind === 'failed') {
    const table: Table | null = reading.rows === null ? null : { rows: reading.rows, overall: 'no-verdict' }
    return {
      conclusion: { kind: 'no-verdict', reason: reading.reason, table, replied: true },
      redaction: reading.redaction,
    }
  }
  const { checked } = reading
  const conclusion: Conclusion =
    checked.overall === 'no-verdict'
      ? noVerdict(checked.reason ?? 'the run has no clean verdict', { rows: checked.rows, overall: checked.overall })
      : { kind: 'verdict', overall: checked.overall, rows: checked.rows }
  return { conclusion, redaction: reading.redaction }
}

/** The table the run's record keeps: the classifier's answer, checked; none when it never replied. */
export function recordedTable(conclusion: Conclusion): Table | null {
  if (conclusion.kind === 'verdict') return { rows: conclusion.rows, overall: conclusion.overall }
  return conclusion.table ?? (conclusion.replied === true ? { rows: [], overall: 'no-verdict' } : null)
}

/**
 * The review a conclusion posts on `commitId`: the verdict's table, or the
 * no-verdict's comment; either says what was redacted. A rules-change
 * report is a post of its own, after this one (report-job.ts).
 */
export function newReview(
  conclusion: Conclusion,
  commitId: string,
  redaction: RedactionSummary | null = null,
): NewReview {
  if (conclusion.kind === 'verdict') {
    return {
      event: reviewEvent(conclusion.overall),
      body: renderReviewBody(conclusion.rows, conclusion.overall, redaction),
      commitId,
    }
  }
  return { event: 'COMMENT', body: renderNoVerdictBody(conclusion.reason, conclusion.table, redaction), commitId }
}
