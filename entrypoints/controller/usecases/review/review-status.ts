/**
 * The commit status a review run sets after its post (docs/behaviour.md,
 * "Reviewer handoff"): what the conclusion makes it, and where it links to.
 * It is set as the service account, through the same gate as the post
 * (review-acts.ts).
 */

import type { Result } from '../../../../core/base/result.ts'
import { type StatusText, verdictStatus } from '../../../../core/review/commit-status.ts'
import type { PostedReview } from '../../../../ports/forge.ts'
import type { Conclusion } from './review-conclusion.ts'

/** The status the verdict makes, also when the post failed; a no-verdict's names the rows it has, if any. */
export function conclusionStatus(conclusion: Conclusion): StatusText {
  return conclusion.kind === 'verdict'
    ? verdictStatus(conclusion.overall, conclusion.rows)
    : (conclusion.status ?? verdictStatus('no-verdict', conclusion.table?.rows ?? null))
}

/** Where the status links to: the posted review, else the PR's page when it was read, else nowhere. */
export function statusTarget(posted: Result<PostedReview, string>, pullUrl: string | null): string | null {
  return (posted.ok ? posted.value.htmlUrl : null) ?? pullUrl
}
