/**
 * A review run as the run store records it (docs/behaviour.md, "Run store
 * and retention"): every run is recorded, whatever it ended in, and a post
 * that failed is named in the log as well, since nothing on the forge says
 * so.
 */

import type { Result } from '../../../../core/base/result.ts'
import { describeStatusProblems, type StatusProblem } from '../../../../core/review/commit-status.ts'
import type { ReviewRequest } from '../../../../core/review/webhook.ts'
import type { ReviewOutcome, RunRecord } from '../../../../core/run/run-record.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { Clock } from '../../../../ports/clock.ts'
import type { PostedReview } from '../../../../ports/forge.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { RunStore } from '../run/run-store.ts'
import { type Concluded, recordedTable } from './review-conclusion.ts'
import type { RuleHealthStore } from './rule-health.ts'

/**
 * Logged, at `warn`, for each review whose post failed: nothing on the forge
 * says so and the request stays pending, so requesting it again sends no
 * webhook; the line names the PR for an operator to request it again.
 */
export const LEFT_PENDING_MESSAGE =
  'review not posted: its request stays pending on the forge; remove the reviewer and request it again'

export type ReviewRecordDeps = {
  runs: Pick<RunStore, 'record'>
  clock: Clock
  logger: Logger
  /** Each rule's health, counted from the record once it is stored; never rejects. */
  ruleHealth?: Pick<RuleHealthStore, 'recordRun'>
}

/** How one review run ended, as it is recorded. */
export type ReviewEnd = {
  base: Pick<RunRecord, 'id' | 'started_unix'>
  request: ReviewRequest
  /** What the review made of it; a failed post records `post-failed` instead. */
  outcome: ReviewOutcome
  /** The run's conclusion and what it learnt; null for a run that was never concluded (the account stopped). */
  concluded: Concluded | null
  posted: Result<PostedReview, string>
  /** The commit statuses the forge refused (review-acts.ts). */
  refused: readonly StatusProblem[]
}

/** What a conclusion makes of the run: approved, changes requested, or no verdict. */
export function outcomeOf(concluded: Concluded): ReviewOutcome {
  const { conclusion } = concluded
  if (conclusion.kind === 'no-verdict') return 'no-verdict'
  return conclusion.overall === 'approve' ? 'approved' : 'changes-requested'
}

/** Records the run (and logs a failed post); resolves with the record. */
export async function recordReview(deps: ReviewRecordDeps, end: ReviewEnd): Promise<RunRecord> {
  const { base, request, posted, concluded } = end
  const conclusion = concluded?.conclusion ?? null
  const learnt = concluded?.learnt ?? null
  const headSha = learnt?.headSha ?? null
  const redaction = learnt?.redaction ?? null
  const answered = conclusion === null ? null : recordedTable(conclusion)
  const reason = conclusion?.kind === 'no-verdict' ? conclusion.reason : null
  const failed = !posted.ok
  // A refused commit status only adds to the detail: the outcome stays what the review made it.
  const parts = [reason, failed ? posted.error : null, describeStatusProblems(end.refused)]
  // Joined by semicolons, so a part's own closing full stop goes.
  const present = parts.filter((part) => part !== null).map((part) => part.replace(/\.$/, ''))
  const detail = present.length === 0 ? null : present.join('; ')
  const reviewUrl = posted.ok ? posted.value.htmlUrl : null
  const record: RunRecord = {
    id: base.id,
    trigger: 'review',
    repo: repoName(request.repo),
    pr: request.pr,
    requester: request.requester,
    ...(headSha === null ? {} : { head_sha: headSha }),
    started_unix: base.started_unix,
    finished_unix: Math.floor(deps.clock.nowMs() / 1000),
    outcome: failed ? 'post-failed' : end.outcome,
    ...(detail === null ? {} : { detail }),
    ...(answered === null ? {} : { rows: answered.rows, overall: answered.overall }),
    ...(reviewUrl === null || reviewUrl === '' ? {} : { review_url: reviewUrl }),
    ...(redaction === null ? {} : { redacted: redaction.redacted }),
  }
  if (failed) {
    deps.logger.warn(LEFT_PENDING_MESSAGE, {
      repo: record.repo,
      pr: record.pr,
      head_sha: headSha ?? request.headSha,
      requester: request.requester,
      error: posted.error,
    })
  }
  await deps.runs.record(record)
  await deps.ruleHealth?.recordRun(record)
  return record
}
