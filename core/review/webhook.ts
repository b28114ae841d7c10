/**
 * Decoding a Forgejo `pull_request_review_request` delivery into what the
 * controller does with it (docs/behaviour.md, "Trigger and lifecycle"; docs/forgejo.md §1).
 *
 * Pure: the route checks the signature and parses the JSON, then hands the
 * event type header and the parsed body here. Only the fields read are in
 * the schemas; everything else a real payload carries is ignored.
 */
import { type TSchema, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { quoteInput } from '../base/text.ts'
import { SERVICE_ACCOUNT } from '../settings/service-account.ts'
import { schemaMismatch } from '../wire/decode.ts'
import type { RepoRef } from '../wire/types.ts'

/** The fine-grained event type (`X-Forgejo-Event-Type`); the coarse `X-Forgejo-Event` says only `pull_request`. */
export const REVIEW_REQUEST_EVENT_TYPE = 'pull_request_review_request'

const REQUESTED = 'review_requested'
const REMOVED = 'review_request_removed'

/** A review the controller is asked to run. */
export type ReviewRequest = {
  repo: RepoRef
  pr: number
  /** The head when the forge sent the delivery; the run reads the PR again, so this may be stale. */
  headSha: string
  /** The forge user who requested the review (the delivery's `sender`). */
  requester: string
}

export type ReviewRequestDelivery =
  | ({ kind: 'start' } & ReviewRequest)
  | { kind: 'ignore'; reason: string }
  | { kind: 'invalid'; detail: string }

const Login = Type.Object({ login: Type.String({ minLength: 1 }) })

const ActionShape = Type.Object({ action: Type.String() })

// `requested_reviewer` is the one reviewer this delivery is about; the PR's
// `requested_reviewers` also lists users who already reviewed (docs/forgejo.md §5.3)
// and is deliberately not read.
const ReviewerShape = Type.Object({ requested_reviewer: Login })

const RequestShape = Type.Object({
  number: Type.Integer({ minimum: 1 }),
  pull_request: Type.Object({ head: Type.Object({ sha: Type.String() }) }),
  repository: Type.Object({ name: Type.String({ minLength: 1 }), owner: Login }),
  sender: Login,
})

/** The first schema problem as `field: message`, for a 400 `detail`. */
function shapeProblem(schema: TSchema, value: unknown): string | null {
  const mismatch = schemaMismatch(schema, value)
  return mismatch === null ? null : `${mismatch.field === '' ? 'the payload' : mismatch.field}: ${mismatch.message}`
}

/** Forgejo compares logins case-insensitively (ASCII only: logins are `[A-Za-z0-9._-]`). */
function sameLogin(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}

/**
 * What a delivery asks for. Only a `review_requested` action naming
 * {@link SERVICE_ACCOUNT.login} as `requested_reviewer` starts a run; a
 * removed request, another reviewer or another event is ignored. A payload
 * that claims to be a review request for the account but lacks a field the
 * run needs is invalid.
 */
export function decodeReviewRequestDelivery(
  headers: { eventType: string | null },
  body: unknown,
): ReviewRequestDelivery {
  if (headers.eventType === null || headers.eventType.trim() === '') {
    return { kind: 'invalid', detail: 'the delivery has no X-Forgejo-Event-Type (or X-Gitea-Event-Type) header' }
  }
  const eventType = headers.eventType.trim()
  if (eventType !== REVIEW_REQUEST_EVENT_TYPE) {
    return { kind: 'ignore', reason: `event type ${quoteInput(eventType)} is not ${REVIEW_REQUEST_EVENT_TYPE}` }
  }

  if (!Value.Check(ActionShape, body)) {
    return { kind: 'invalid', detail: shapeProblem(ActionShape, body) ?? 'the payload is not an object' }
  }
  if (body.action === REMOVED) return { kind: 'ignore', reason: 'a removed review request starts nothing' }
  if (body.action !== REQUESTED) {
    return { kind: 'ignore', reason: `action ${quoteInput(body.action)} starts nothing` }
  }

  if (!Value.Check(ReviewerShape, body)) {
    return { kind: 'invalid', detail: shapeProblem(ReviewerShape, body) ?? 'the payload names no requested reviewer' }
  }
  const reviewer = body.requested_reviewer.login
  if (!sameLogin(reviewer, SERVICE_ACCOUNT.login)) {
    return {
      kind: 'ignore',
      reason: `the review was requested from ${quoteInput(reviewer)}, not ${SERVICE_ACCOUNT.login}`,
    }
  }

  if (!Value.Check(RequestShape, body)) {
    return { kind: 'invalid', detail: shapeProblem(RequestShape, body) ?? 'the payload is not a pull request delivery' }
  }
  return {
    kind: 'start',
    repo: { owner: body.repository.owner.login, name: body.repository.name },
    pr: body.number,
    headSha: body.pull_request.head.sha,
    requester: body.sender.login,
  }
}

/**
 * The deduplication key (docs/decisions.md: repo, PR number, head sha; a
 * redelivery carries a new delivery id). Forgejo's owner and repo names are
 * case-insensitive, and a sha is hex.
 */
export function reviewRequestKey(request: Pick<ReviewRequest, 'repo' | 'pr' | 'headSha'>): string {
  return `${`${request.repo.owner}/${request.repo.name}`.toLowerCase()}#${request.pr}@${request.headSha.toLowerCase()}`
}
