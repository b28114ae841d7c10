/**
 * How a review run ends before anything is posted (docs/behaviour.md, "The
 * review"): a verdict, or a no-verdict with its reason and whatever table
 * the classifier answered; what the run learnt along the way; and the
 * review that conclusion posts. A run with no clean verdict never approves.
 */
import type { StatusText } from '../../../../core/review/commit-status.ts'
import { renderNoVerdictBody, renderReviewBody, reviewEvent } from '../../../../core/review/review-body.ts'
import { readRunReply } from '../../../../core/run/run-reply.ts'
import type { Overall, RedactionSummary, Row, RunRequest } from '../../../../core/wire/types.ts'
import type { NewReview } from '../../../../ports/forge.ts'
import type { ReviewActs } from './review-acts.ts'
import type { ReportBasis } from './rules-change-report.ts'

export type Table = { rows: Row[]; overall: Overall }

/** How the run ended before anything is posted. */
export type Conclusion =
  | { kind: 'verdict'; overall: 'approve' | 'request-changes'; rows: Row[] }
  | {
      kind: 'no-verdict'
      reason: string
      table: Table | null
      /** The commit status it sets, when not the one its table makes (a spent budget, an unreadable ledger). */
      status?: StatusText
    }

/**
 * What the run learnt along the way, for the post, the commit status and the
 * record: the head and the PR's web page once read, the answered table; and
 * its acts as the service account, which keep each status the forge refused
 * (shared by the copy a stopped run takes).
 */
export type ReviewProgress = {
  headSha: string | null
  answered: Table | null
  /** What the classifier said its redaction took out, once it replied (null: no reply, or an older classifier). */
  redaction: RedactionSummary | null
  pullUrl: string | null
  /** What the rules-change report needs, once the PR, the rules and the settings are read. */
  basis: ReportBasis | null
  acts: ReviewActs
}

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

/** The no-verdict's reason for a review stopped with `reason` (its signal's). */
export function stoppedReason(reason: unknown): string {
  return reason instanceof ReviewStopped ? reason.message : 'the review was stopped'
}

/** The reply, re-checked against what was sent and its diff: its own `counted`, `fails` and `overall` are never trusted. */
export function concludeReply(
  request: Pick<RunRequest, 'id' | 'classifications' | 'diff'>,
  text: string,
  progress: ReviewProgress,
): Conclusion {
  const reading = readRunReply(request.id, request.classifications, text, request.diff)
  if (reading.kind === 'unreadable') return noVerdict(reading.reason)
  if (reading.kind === 'failed') {
    progress.redaction = reading.redaction
    const table: Table = { rows: reading.rows ?? [], overall: 'no-verdict' }
    progress.answered = table
    return noVerdict(reading.reason, reading.rows === null ? null : table)
  }
  const { checked } = reading
  progress.redaction = reading.redaction
  progress.answered = { rows: checked.rows, overall: checked.overall }
  if (checked.overall === 'no-verdict') {
    return noVerdict(checked.reason ?? 'the run has no clean verdict', progress.answered)
  }
  return { kind: 'verdict', overall: checked.overall, rows: checked.rows }
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
