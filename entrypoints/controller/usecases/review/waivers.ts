/**
 * Applying a waiver (docs/behaviour.md, "Waivers and labels"): when the
 * classifier's latest review is on the waiver's head and the rule fails
 * there, a new review of the same head is posted at once, without asking
 * the model: the rows as they were, the waived one saying so, the overall
 * computed again without it, and the commit status that follows. When that
 * head's review is still running or waiting, the waiver waits for it to
 * finish. Every re-post is recorded in the run store (trigger `waiver`) and
 * logged, and {@link WaiversDeps.onWaiver} is told: the one point where a
 * waiver is counted (issue 33's rule health).
 *
 * Waivers of one PR are applied one at a time, so two at once both end up
 * in the latest review.
 */
import { err, ok, type Result } from '../../../../core/base/result.ts'
import { reviewEvent } from '../../../../core/review/review-body.ts'
import {
  earlierWaivers,
  latestReview,
  renderWaiverBody,
  renderWaiverReminder,
  type Waiver,
  waiverStatus,
  waiverTarget,
} from '../../../../core/review/waiver.ts'
import { type ReviewRequest, reviewRequestKey } from '../../../../core/review/webhook.ts'
import type { RunRecord } from '../../../../core/run/run-record.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { RepoRef } from '../../../../core/wire/types.ts'
import type { Clock } from '../../../../ports/clock.ts'
import type { Forge, NewReview } from '../../../../ports/forge.ts'
import type { Ids } from '../../../../ports/ids.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { SecretStore } from '../../../../ports/secret-store.ts'
import type { RunStore } from '../run/run-store.ts'
import type { ServiceAccountGate } from '../settings/service-token.ts'
import { createReviewActs } from './review-acts.ts'

/** Logged, at `info`, for every waiver applied (the run store's entry has the same fields). */
export const WAIVER_APPLIED_MESSAGE = 'review classifier waiver applied'

export type WaiversDeps = {
  forge: Pick<Forge, 'forAccount'>
  secrets: SecretStore
  runs: Pick<RunStore, 'record' | 'list'>
  clock: Clock
  ids: Ids
  logger: Logger
  serviceAccount?: ServiceAccountGate
  tokenWaitMs?: number
  /** Whether that PR's review of that head is running or waiting (the pipeline's). */
  reviewing(request: Pick<ReviewRequest, 'repo' | 'pr' | 'headSha'>): boolean
  /** Told of every waiver applied, with its record: where issue 33 counts `waived`. */
  onWaiver?: (waiver: Waiver, record: RunRecord) => void
}

/** What became of a waiver: applied (re-posted), waiting for the head's review, or refused with why. */
export type WaiverOutcome =
  | { kind: 'applied'; record: RunRecord }
  | { kind: 'waiting' }
  | { kind: 'refused'; reason: string }

export type WaiverRequest = { repo: RepoRef; pr: number; waiver: Waiver }

export type Waivers = {
  /** Applies the waiver now, or keeps it for when the head's review finishes. */
  apply(request: WaiverRequest): Promise<WaiverOutcome>
  /**
   * Called by the pipeline once a review of `request`'s key has finished (or was turned away):
   * the waivers kept for it are applied, each refusal handed to `refused`.
   */
  reviewSettled(request: Pick<ReviewRequest, 'repo' | 'pr' | 'headSha'>): void
  /** Where the waivers kept until a review settles are told why one was refused after all. */
  onLateRefusal(handler: (request: WaiverRequest, reason: string) => void): void
  /** The reminder a later head's review carries, or `null`: the PR's waivers of other heads. */
  reminder(repo: RepoRef, pr: number, head: string): Promise<string | null>
  /** Resolves once no waiver is being applied (tests, shutdown). */
  idle(): Promise<void>
}

/** A review's body with the PR's earlier waivers below it, when there are any; the review unchanged when they can't be read. */
export async function withReminder(
  waivers: Pick<Waivers, 'reminder'> | undefined,
  request: Pick<ReviewRequest, 'repo' | 'pr'>,
  review: NewReview,
): Promise<NewReview> {
  if (waivers === undefined) return review
  const reminder = await waivers.reminder(request.repo, request.pr, review.commitId).catch(() => null)
  return reminder === null ? review : { ...review, body: `${review.body}\n\n${reminder}` }
}

export function createWaivers(deps: WaiversDeps): Waivers {
  const { logger } = deps
  /** Per PR, the chain its waivers are applied on. */
  const chains = new Map<string, Promise<unknown>>()
  /** Per review key, the waivers waiting for that review to finish. */
  const waiting = new Map<string, WaiverRequest[]>()
  let lateRefusal: (request: WaiverRequest, reason: string) => void = () => undefined

  function prKey(repo: RepoRef, pr: number): string {
    return `${repoName(repo).toLowerCase()}#${pr}`
  }

  function serially<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = chains.get(key) ?? Promise.resolve()
    const next = before.then(work, work)
    const settled = next.then(
      () => undefined,
      () => undefined,
    )
    chains.set(key, settled)
    void settled.then(() => {
      if (chains.get(key) === settled) chains.delete(key)
    })
    return next
  }

  async function repost(request: WaiverRequest): Promise<Result<RunRecord, string>> {
    const { repo, pr, waiver } = request
    const started = Math.floor(deps.clock.nowMs() / 1000)
    const target = waiverTarget(latestReview(await deps.runs.list(), repoName(repo), pr), waiver)
    if (target.kind === 'refuse') return err(target.reason)
    const review: ReviewRequest = { repo, pr, headSha: waiver.head_sha, requester: waiver.by }
    const acts = createReviewActs(deps, review)
    const posted = await acts.post({
      event: reviewEvent(target.overall),
      body: renderWaiverBody(target.rows, target.overall, target.waived),
      commitId: waiver.head_sha,
    })
    const url = posted.ok ? posted.value.htmlUrl : null
    await acts.status(waiver.head_sha, waiverStatus(target.rows, target.overall), url)
    const problems = [posted.ok ? null : posted.error, ...acts.refused.map((p) => `status ${p.state}: ${p.error}`)]
    const detail = problems.filter((part) => part !== null).join('; ')
    const record: RunRecord = {
      id: deps.ids.runId(),
      trigger: 'waiver',
      repo: repoName(repo),
      pr,
      requester: waiver.by,
      head_sha: waiver.head_sha,
      started_unix: started,
      finished_unix: Math.floor(deps.clock.nowMs() / 1000),
      outcome: !posted.ok ? 'post-failed' : target.overall === 'approve' ? 'approved' : 'changes-requested',
      ...(detail === '' ? {} : { detail }),
      rows: target.rows,
      overall: target.overall,
      ...(url === null || url === '' ? {} : { review_url: url }),
      waived: target.waived,
    }
    logger.info(WAIVER_APPLIED_MESSAGE, {
      repo: record.repo,
      pr,
      head_sha: waiver.head_sha,
      rule: waiver.rule,
      by: waiver.by,
      overall: target.overall,
      outcome: record.outcome,
    })
    await deps.runs.record(record)
    if (!posted.ok) return err(posted.error)
    try {
      deps.onWaiver?.(waiver, record)
    } catch (error) {
      logger.error('waiver listener failed', { error })
    }
    return ok(record)
  }

  async function applyNow(request: WaiverRequest): Promise<WaiverOutcome> {
    const result = await repost(request)
    return result.ok ? { kind: 'applied', record: result.value } : { kind: 'refused', reason: result.error }
  }

  return {
    apply(request) {
      const review = { repo: request.repo, pr: request.pr, headSha: request.waiver.head_sha }
      return serially(prKey(request.repo, request.pr), async () => {
        // Checked and kept in one step, with nothing awaited between: `reviewSettled` can't slip in.
        if (deps.reviewing(review)) {
          const key = reviewRequestKey(review)
          waiting.set(key, [...(waiting.get(key) ?? []), request])
          return { kind: 'waiting' }
        }
        return applyNow(request)
      })
    },
    reviewSettled(review) {
      const key = reviewRequestKey(review)
      const kept = waiting.get(key) ?? []
      waiting.delete(key)
      for (const request of kept) {
        void serially(prKey(request.repo, request.pr), () => applyNow(request)).then(
          (outcome) => {
            if (outcome.kind === 'refused') lateRefusal(request, outcome.reason)
          },
          (error: unknown) => logger.error('waiver not applied', { error }),
        )
      }
    },
    onLateRefusal(handler) {
      lateRefusal = handler
    },
    async reminder(repo, pr, head) {
      return renderWaiverReminder(earlierWaivers(await deps.runs.list(), repoName(repo), pr, head))
    },
    async idle() {
      while (chains.size > 0) await Promise.all(chains.values())
    },
  } satisfies Waivers
}
