/**
 * The requested-review pipeline: admission (run places, waiting places,
 * deduplication) in front of the review runner. The webhook route hands it
 * each decoded request and answers at once; everything after runs in the
 * background.
 */
import { type ReviewRequest, reviewRequestKey } from '../../../core/webhook.ts'
import { type AdmissionCounts, type AdmissionResult, createAdmission } from './admission.ts'
import { createReviewRunner, type ReviewRunDeps } from './review-run.ts'

export type ReviewPipelineDeps = ReviewRunDeps

export type ReviewPipeline = {
  /**
   * Takes a review request in and answers at once; the run, or the queue-full
   * comment, continues in the background. A request for a PR and head already
   * running or waiting starts nothing and isn't recorded (`duplicate`).
   */
  submit(request: ReviewRequest): AdmissionResult
  /** Resolves once no review runs, waits or is being turned away (tests, shutdown). */
  idle(): Promise<void>
  /** Running and waiting reviews and the limit read last, for `/readyz` and metrics. */
  counts(): AdmissionCounts
}

export function createReviewPipeline(deps: ReviewPipelineDeps): ReviewPipeline {
  const runner = createReviewRunner(deps)
  const admission = createAdmission({
    // Read when a review may get its place, so a change applies from the next place on.
    readLimit: async () => (await deps.settings.read()).max_concurrent_reviews,
    logger: deps.logger,
  })
  return {
    submit(request) {
      return admission.submit(reviewRequestKey(request), {
        run: async () => {
          await runner.review(request)
        },
        turnAway: async () => {
          await runner.queueFull(request)
        },
      })
    },
    idle: () => admission.idle(),
    counts: () => admission.counts(),
  } satisfies ReviewPipeline
}
