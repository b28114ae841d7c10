/**
 * A review run as the run store records it (docs/behaviour.md, "Run store
 * and retention"): every run is recorded, whatever it ended in, and a post
 * that failed is named in the log as well, since nothing on the forge says
 * so.
 */

import type { Result } from '../../../../core/base/result.ts'
import { describeStatusProblems } from '../../../../core/review/commit-status.ts'
import type { ReviewRequest } from '../../../../core/review/webhook.ts'
import type { ReviewOutcome, RunRecord } from '../../../../core/run/run-record.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { Clock } from '../../../../ports/clock.ts'
import type { PostedReview } from '../../../../ports/forge.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { RunStore } from '../run/run-store.ts'
import type { ReviewProgress } from './review-conclusion.ts'
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
  posted: Result<PostedReview, string>
  /** Why there is no verdict, or null. */
  reason: string | null
  progress: ReviewProgress
}

/** Records the run (and logs a failed post); resolves with the record. */
export async function recordReview(deps: ReviewRecordDeps, end: ReviewEnd): Promise<RunRecord> {
  const { base, request, posted, progress } = end
  const failed = !posted.ok
  // A refused commit status only adds to the detail: the outcome stays what the review made it.
  const parts = [end.reason, failed ? posted.error : null, describeStatusProblems(progress.acts.refused)]
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
    ...(progress.headSha === null ? {} : { head_sha: progress.headSha }),
    started_unix: base.started_unix,
    finished_unix: Math.floor(deps.clock.nowMs() / 1000),
    outcome: failed ? 'post-failed' : end.outcome,
    ...(detail === null ? {} : { detail }),
    ...(progress.answered === null ? {} : { rows: progress.answered.rows, overall: progress.answered.overall }),
    ...(reviewUrl === null || reviewUrl === '' ? {} : { review_url: reviewUrl }),
    ...(progress.redaction === null ? {} : { redacted: progress.redaction.redacted }),
  }
  if (failed) {
    deps.logger.warn(LEFT_PENDING_MESSAGE, {
      repo: record.repo,
      pr: record.pr,
      head_sha: progress.headSha ?? request.headSha,
      requester: request.requester,
      error: posted.error,
    })
  }
  await deps.runs.record(record)
  await deps.ruleHealth?.recordRun(record)
  return record
}
