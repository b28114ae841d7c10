/**
 * The requested-review pipeline: admission (run places, waiting places,
 * deduplication) in front of the review runner. The webhook route hands it
 * each decoded request and answers at once; everything after runs in the
 * background.
 *
 * When the controller stops (docs/behaviour.md, "Trigger and lifecycle"), `drain` starts no
 * new run: the waiting reviews are dropped, each named in the log so an
 * operator can request it again; the running ones get until the drain bound
 * (`DRAIN_TIMEOUT_S`) to finish, and one still running then is stopped and
 * posts a no-verdict comment saying so, with the retry hint; a request that
 * arrives meanwhile gets that comment at once. A PR left pending without a
 * word would never be reviewed: requesting a pending reviewer again sends no
 * webhook.
 *
 * A review's rules-change report runs after its verdict is posted, outside
 * the run places (report-runs.ts): a review requested meanwhile starts at
 * once. The drain stops the reports at its start (each posts what it had).
 *
 * The pipeline owns the drain's time bounds: the controller's `drain`
 * (service.ts) says when to drain and when to `settle`, and the reviews
 * themselves only honour the abort signal each gets (review-run.ts).
 */

import { type ReviewRequest, reviewRequestKey } from '../../../../core/review/webhook.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import { type AdmissionCounts, type AdmissionResult, createAdmission } from './admission.ts'
import { createReportRuns } from './report-runs.ts'
import { createReviewRunner, type ReviewRunDeps, ReviewStopped } from './review-run.ts'

export type ReviewPipelineDeps = ReviewRunDeps & {
  /** Told once a review of a key is no longer running or waiting (finished, turned away or dropped): waivers kept for it apply. */
  onSettled?: (request: ReviewRequest) => void
}

/** What `submit` answers: admission's answer, or `stopping` for a request that came while the controller stops. */
export type SubmitResult = Exclude<AdmissionResult, 'closed'> | 'stopping'

/** How long the comments of the stopped reviews and of the requests that came during the drain may take, after the bound. */
export const DRAIN_POST_MARGIN_MS = 10_000

export const DRAIN_MESSAGES = {
  draining: 'review pipeline draining: no new run starts',
  dropped: 'waiting review dropped: the controller stopped before it had a run place; request it again',
  boundReached: 'review drain bound reached: stopping the reviews still running',
  drained: 'review pipeline drained',
  unfinished: 'review pipeline drain ended with comments still being posted',
} as const

export type DrainOptions = {
  /** `DRAIN_TIMEOUT_S` in milliseconds: how long the running reviews may go on. */
  boundMs: number
  /** After the bound, how long the no-verdict comments may take; default {@link DRAIN_POST_MARGIN_MS}. */
  postMarginMs?: number
}

export type DrainReport = {
  /** Running reviews that ended on their own within the bound. */
  finished: number
  /** Running reviews still running at the bound, and so stopped (one already posting its verdict posts it). */
  stopped: number
  /** Waiting reviews dropped. */
  dropped: number
  /** Requests that came during the drain and got the stopping comment. */
  refused: number
  /** Whether everything above had been posted and recorded when the drain ended. */
  complete: boolean
}

export type ReviewPipeline = {
  /**
   * Takes a review request in and answers at once; the run, or the queue-full
   * comment, continues in the background. A request for a PR and head already
   * running or waiting starts nothing and isn't recorded (`duplicate`). Once
   * draining, a request that isn't running gets the stopping comment
   * (`stopping`).
   */
  submit(request: ReviewRequest): SubmitResult
  /** Resolves once no review runs, waits or is being turned away (tests, shutdown). */
  idle(): Promise<void>
  /** Whether a review of that PR and head is running or waiting. */
  reviewing(request: Pick<ReviewRequest, 'repo' | 'pr' | 'headSha'>): boolean
  /** Running and waiting reviews and the limit read last, for `/readyz` and metrics. */
  counts(): AdmissionCounts
  /** Stops the pipeline as the file comment says; a second call returns the first one's report. */
  drain(options: DrainOptions): Promise<DrainReport>
  /**
   * After `drain`, the stopping comments of what came in since (a delivery
   * the closing HTTP server let in), bounded by the drain's post margin
   * (before any drain, the default one); whether they all went out.
   */
  settle(): Promise<boolean>
}

/** The reason a review still running at the drain bound posts. */
export function stoppedAtBoundReason(boundMs: number): string {
  const seconds = Math.round(boundMs / 1000)
  return `the controller was stopping (restarted or shut down), and this review was still running after DRAIN_TIMEOUT_S (${seconds} s), so it was stopped before its verdict`
}

/** Whether `work` settles within `ms`. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const bound = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  try {
    return await Promise.race([work.then(() => true), bound])
  } finally {
    clearTimeout(timer)
  }
}

function requestFields(request: ReviewRequest): Record<string, unknown> {
  return { repo: repoName(request.repo), pr: request.pr, head_sha: request.headSha, requester: request.requester }
}

export function createReviewPipeline(deps: ReviewPipelineDeps): ReviewPipeline {
  const { logger } = deps
  const runner = createReviewRunner(deps)
  const admission = createAdmission({
    // Read when a review may get its place, so a change applies from the next place on.
    readLimit: async () => (await deps.settings.read()).max_concurrent_reviews,
    logger,
  })
  const reports = createReportRuns(logger)
  /** Each running review's stop, by its key. */
  const stops = new Map<string, AbortController>()
  /** The stopping comments in flight, by key, so a redelivery during the drain posts one. */
  const refusing = new Map<string, Promise<void>>()
  const counted = { finished: 0, stopped: 0, dropped: 0, refused: 0 }
  /** Keys running or waiting; a key leaves, and `onSettled` is told, in one step. */
  const active = new Set<string>()
  function settled(key: string, request: ReviewRequest): void {
    active.delete(key)
    try {
      deps.onSettled?.(request)
    } catch (error) {
      logger.error('review admission task failed', { task: 'settled', error })
    }
  }
  let draining: Promise<DrainReport> | null = null
  let postMarginMs = DRAIN_POST_MARGIN_MS

  function refuse(key: string, request: ReviewRequest): SubmitResult {
    if (refusing.has(key)) return 'duplicate'
    counted.refused += 1
    const posting = runner
      .noRun(request, { kind: 'stopping' })
      .then(
        () => undefined,
        (error: unknown) => logger.error('review admission task failed', { task: 'stopping', error }),
      )
      .finally(() => refusing.delete(key))
    refusing.set(key, posting)
    return 'stopping'
  }

  async function idle(): Promise<void> {
    await admission.idle()
    // A review hands its report over before its place frees, so none starts after this.
    await reports.idle()
    while (refusing.size > 0) await Promise.all(refusing.values())
  }

  async function drain(options: DrainOptions): Promise<DrainReport> {
    postMarginMs = options.postMarginMs ?? DRAIN_POST_MARGIN_MS
    const before = admission.counts()
    logger.info(DRAIN_MESSAGES.draining, {
      running: before.running,
      waiting: before.waiting,
      drain_timeout_s: Math.round(options.boundMs / 1000),
    })
    admission.close()
    // A report holds no place and may run for RUN_TIMEOUT_S: it stops now and posts what it had.
    reports.stopAll(new ReviewStopped('the controller is stopping'))
    const runningAtStart = stops.size
    let stopped = 0
    if (!(await settlesWithin(admission.idle(), options.boundMs))) {
      stopped = stops.size
      logger.warn(DRAIN_MESSAGES.boundReached, { running: stopped })
      const reason = new ReviewStopped(stoppedAtBoundReason(options.boundMs))
      for (const stop of stops.values()) stop.abort(reason)
    }
    counted.finished = runningAtStart - stopped
    counted.stopped = stopped
    const complete = await settlesWithin(idle(), postMarginMs)
    const report: DrainReport = { ...counted, complete }
    if (complete) logger.info(DRAIN_MESSAGES.drained, report)
    else logger.warn(DRAIN_MESSAGES.unfinished, { ...report, running: stops.size, posting: refusing.size })
    return report
  }

  return {
    submit(request) {
      const key = reviewRequestKey(request)
      const result = admission.submit(key, {
        run: async () => {
          const stop = new AbortController()
          stops.set(key, stop)
          try {
            await runner.review(request, { signal: stop.signal, report: (job) => reports.start(job) })
          } finally {
            stops.delete(key)
            settled(key, request)
          }
        },
        turnAway: async () => {
          settled(key, request)
          await runner.noRun(request, { kind: 'queue-full' })
        },
        drop: () => {
          counted.dropped += 1
          settled(key, request)
          logger.warn(DRAIN_MESSAGES.dropped, requestFields(request))
        },
      })
      if (result === 'started' || result === 'waiting') active.add(key)
      return result === 'closed' ? refuse(key, request) : result
    },
    idle,
    reviewing: (request) => active.has(reviewRequestKey(request)),
    counts: () => admission.counts(),
    drain(options) {
      draining ??= drain(options)
      return draining
    },
    settle: () => settlesWithin(idle(), postMarginMs),
  } satisfies ReviewPipeline
}
