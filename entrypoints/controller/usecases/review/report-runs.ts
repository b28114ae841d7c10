/**
 * The rules-change reports under way (report-job.ts), beside the review
 * places and outside them: a report never holds a review's place, so a
 * review requested while one runs starts at once (issue 28's finding that
 * two such PRs filled both places and turned every other request away).
 *
 * One report per commit at a time: a second request for the same head while
 * its report runs gets the skipped line instead of a second set of runs.
 * When the controller stops, every report is stopped and posts what it had
 * answered, and a review that finishes after that posts the skipped line.
 */
import type { Logger } from '../../../../ports/logger.ts'
import type { ReportJob } from './report-job.ts'

export const REPORT_ALREADY_RUNNING = 'a report for this commit is already being made'

export type ReportRuns = {
  /** Runs the job in the background (or posts its skipped line: one already runs for the commit). */
  start(job: ReportJob): void
  /** Resolves once no report runs or posts. */
  idle(): Promise<void>
  /** Stops every report (each posts what it had), and every one started from now on. */
  stopAll(reason: unknown): void
  /** Reports running now. */
  running(): number
}

export function createReportRuns(logger: Logger): ReportRuns {
  const running = new Map<string, AbortController>()
  const inFlight = new Set<Promise<void>>()
  let stopped: { reason: unknown } | null = null

  function track(work: () => Promise<void>): void {
    const promise = work().catch((error: unknown) => {
      logger.error('review classifier rules-change report failed', { error })
    })
    inFlight.add(promise)
    void promise.finally(() => inFlight.delete(promise))
  }

  return {
    start(job) {
      if (running.has(job.key)) {
        track(() => job.skip(REPORT_ALREADY_RUNNING))
        return
      }
      const stop = new AbortController()
      if (stopped !== null) stop.abort(stopped.reason)
      running.set(job.key, stop)
      track(async () => {
        try {
          await job.run(stop.signal)
        } finally {
          running.delete(job.key)
        }
      })
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight])
    },
    stopAll(reason) {
      stopped = { reason }
      for (const stop of running.values()) stop.abort(reason)
    },
    running: () => running.size,
  }
}
