/**
 * Decoding a Forgejo `pull_request_comment` delivery, and telling it from a
 * review request, for `POST /webhook/forge` (docs/forgejo.md §1.2,
 * docs/behaviour.md "Waivers and labels").
 *
 * Pure, like webhook.ts: the route checks the signature and parses the JSON.
 * Only a comment just `created` on a pull request by someone other than the
 * service account is read; an edit or a deletion changes nothing (a waiver
 * is given once, by the comment that gave it), and a comment on an issue
 * arrives as `issue_comment`, which isn't read at all.
 */
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { quoteInput } from '../base/text.ts'
import { SERVICE_ACCOUNT } from '../settings/service-account.ts'
import { schemaMismatch } from '../wire/decode.ts'
import type { RepoRef } from '../wire/types.ts'
import { decodeReviewRequestDelivery, REVIEW_REQUEST_EVENT_TYPE, type ReviewRequestDelivery } from './webhook.ts'

/** `X-Forgejo-Event-Type` of a comment on a PR; the coarse `X-Forgejo-Event` says `issue_comment`. */
export const PULL_COMMENT_EVENT_TYPE = 'pull_request_comment'

/** A PR comment the controller reads for commands. */
export type PullComment = {
  repo: RepoRef
  pr: number
  commentId: number
  body: string
  /** Who wrote the comment (`comment.user`). */
  commenter: string
  /** The PR's author (`issue.user`). */
  author: string
}

export type PullCommentDelivery =
  | ({ kind: 'comment' } & PullComment)
  | { kind: 'ignore'; reason: string }
  | { kind: 'invalid'; detail: string }

/** What `POST /webhook/forge` does with a delivery, by its event type. */
export type ForgeDelivery = ReviewRequestDelivery | ({ kind: 'comment' } & PullComment)

const Login = Type.Object({ login: Type.String({ minLength: 1 }) })

const CommentShape = Type.Object({
  action: Type.String(),
  is_pull: Type.Optional(Type.Boolean()),
  issue: Type.Object({ number: Type.Integer({ minimum: 1 }), user: Login }),
  comment: Type.Object({ id: Type.Integer({ minimum: 1 }), body: Type.String(), user: Login }),
  repository: Type.Object({ name: Type.String({ minLength: 1 }), owner: Login }),
  sender: Login,
})

const ActionShape = Type.Object({ action: Type.String() })

function sameLogin(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}

function problem(schema: Parameters<typeof schemaMismatch>[0], value: unknown, fallback: string): string {
  const mismatch = schemaMismatch(schema, value)
  return mismatch === null ? fallback : `${mismatch.field === '' ? 'the payload' : mismatch.field}: ${mismatch.message}`
}

/** A `pull_request_comment` delivery's body (the event type already checked). */
export function decodePullCommentDelivery(body: unknown): PullCommentDelivery {
  if (!Value.Check(ActionShape, body)) {
    return { kind: 'invalid', detail: problem(ActionShape, body, 'the payload is not an object') }
  }
  if (body.action !== 'created') {
    return { kind: 'ignore', reason: `comment action ${quoteInput(body.action)}: only a new comment gives commands` }
  }
  if (!Value.Check(CommentShape, body)) {
    return { kind: 'invalid', detail: problem(CommentShape, body, 'the payload is not a comment delivery') }
  }
  if (body.is_pull === false) return { kind: 'ignore', reason: 'a comment on an issue, not a pull request' }
  const commenter = body.comment.user.login
  if (sameLogin(commenter, SERVICE_ACCOUNT.login) || sameLogin(body.sender.login, SERVICE_ACCOUNT.login)) {
    return { kind: 'ignore', reason: `a comment by ${SERVICE_ACCOUNT.login} itself` }
  }
  return {
    kind: 'comment',
    repo: { owner: body.repository.owner.login, name: body.repository.name },
    pr: body.issue.number,
    commentId: body.comment.id,
    body: body.comment.body,
    commenter,
    author: body.issue.user.login,
  }
}

/**
 * Any delivery to `POST /webhook/forge`, by `X-Forgejo-Event-Type`: a
 * review request as `/webhook/forge/review-request` reads it, a PR comment
 * as above, anything else ignored.
 */
export function decodeForgeDelivery(headers: { eventType: string | null }, body: unknown): ForgeDelivery {
  const eventType = headers.eventType?.trim() ?? ''
  if (eventType === PULL_COMMENT_EVENT_TYPE) return decodePullCommentDelivery(body)
  if (eventType === '' || eventType === REVIEW_REQUEST_EVENT_TYPE) return decodeReviewRequestDelivery(headers, body)
  return {
    kind: 'ignore',
    reason: `event type ${quoteInput(eventType)} is neither ${REVIEW_REQUEST_EVENT_TYPE} nor ${PULL_COMMENT_EVENT_TYPE}`,
  }
}
