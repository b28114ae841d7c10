/**
 * The rules-change report as its own post (docs/behaviour.md, "The
 * rules-change report"): made after the review's verdict and commit status
 * are on the forge, outside the review's run place, and posted as a
 * `COMMENT` review on the commit the verdict went to. A `COMMENT` review
 * touches no reviewer's official flag and leaves the verdict standing
 * (docs/forgejo.md §5.1), and the service account's token may post reviews
 * but no issue comments (§2.3), so that is the post it makes.
 *
 * The pipeline runs the jobs (report-runs.ts): one report per commit at a
 * time, and each stopped when the controller stops.
 */

import { renderReportSkipped } from '../../../../core/review/rules-change-body.ts'
import { type ReviewRequest, reviewRequestKey } from '../../../../core/review/webhook.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { ReviewActs } from './review-acts.ts'
import { type ReportBasis, type RulesChangeReportDeps, reportIsDue, rulesChangeReport } from './rules-change-report.ts'

/** A report to make once the review's verdict is posted. */
export type ReportJob = {
  /** The review's (repo, PR, head): one report per commit runs at a time. */
  key: string
  /** Makes the report and posts it; `signal` stops it early (what was answered is posted). Never rejects. */
  run(signal?: AbortSignal): Promise<void>
  /** Posts the one line saying why no report was made. Never rejects. */
  skip(reason: string): Promise<void>
}

export const REPORT_NOT_POSTED_MESSAGE = 'review classifier rules-change report not posted'

/** The report job of a review whose verdict went to `commitId`, or null when the review gets no report. */
export function reportJob(
  deps: RulesChangeReportDeps & { logger: Logger },
  request: ReviewRequest,
  basis: ReportBasis,
  commitId: string,
  acts: Pick<ReviewActs, 'post'>,
): ReportJob | null {
  if (!reportIsDue(basis)) return null

  async function post(body: string): Promise<void> {
    const posted = await acts.post({ event: 'COMMENT', body, commitId })
    if (posted.ok) return
    deps.logger.warn(REPORT_NOT_POSTED_MESSAGE, {
      repo: repoName(request.repo),
      pr: request.pr,
      head_sha: commitId,
      error: posted.error,
    })
  }

  return {
    key: reviewRequestKey({ ...request, headSha: commitId }),
    async run(signal) {
      const report = await rulesChangeReport(deps, basis, request.requester, signal)
      if (report !== null) await post(report)
    },
    skip: (reason) => post(renderReportSkipped(reason)),
  }
}
