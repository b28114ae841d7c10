/**
 * `POST /webhook/forge`: one hook for both events the controller reads
 * (docs/behaviour.md, "Trigger and lifecycle", "Waivers and labels";
 * docs/forgejo.md §1), dispatched on `X-Forgejo-Event-Type`: a
 * `pull_request_review_request` starts a review as
 * `/webhook/forge/review-request` does, a `pull_request_comment` is read
 * for commands, anything else is ignored with 200.
 *
 * Signed like the review-request route (webhook.ts): the signature is
 * checked over the raw text before any of it is parsed, with the same
 * bounds, and the answer goes out at once.
 */
import { Elysia } from 'elysia'
import { decodeForgeDelivery } from '../../../../core/review/comment-webhook.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { CommentCommands } from '../../usecases/review/comment-commands.ts'
import type { ReviewPipeline } from '../../usecases/review/review-pipeline.ts'
import { problemResponse } from '../problem.ts'
import { deliveryResponses, eventTypeOf, json, REVIEW_ADMISSIONS, readSignedDelivery, startReview } from './webhook.ts'

export const FORGE_WEBHOOK_PATH = '/webhook/forge'

export type ForgeWebhookRoutesConfig = {
  /** The hook secret (`FORGE_WEBHOOK_SECRET`); `null` or empty refuses every delivery. */
  secret: string | null
  pipeline: Pick<ReviewPipeline, 'submit'>
  comments: Pick<CommentCommands, 'handle'>
  logger: Logger
}

export function forgeWebhookRoutes(config: ForgeWebhookRoutesConfig) {
  const { logger, pipeline, comments } = config

  function handle(request: Request, body: unknown): Response {
    const read = readSignedDelivery(config.secret, request, body)
    if (!read.ok) {
      logger.warn('forge delivery refused', { status: read.status, detail: read.detail })
      return problemResponse(read.status, read.detail)
    }
    const decoded = decodeForgeDelivery({ eventType: eventTypeOf(request.headers) }, read.payload)
    switch (decoded.kind) {
      case 'invalid':
        logger.warn('forge delivery refused', { status: 400, detail: decoded.detail })
        return problemResponse(400, decoded.detail)
      case 'ignore':
        logger.debug('forge delivery ignored', { reason: decoded.reason })
        return json(200, { status: 'ignored', reason: decoded.reason })
      case 'comment': {
        const { kind: _kind, ...comment } = decoded
        logger.info('pull request comment received', {
          repo: repoName(comment.repo),
          pr: comment.pr,
          comment_id: comment.commentId,
          commenter: comment.commenter,
        })
        return json(202, { status: comments.handle(comment) })
      }
      case 'start': {
        const { kind: _kind, ...review } = decoded
        return startReview(pipeline, logger, review)
      }
    }
  }

  return new Elysia({ name: 'review-classifier-forge-webhook' }).post(
    FORGE_WEBHOOK_PATH,
    ({ request, body }) => handle(request, body),
    {
      // The raw text, so the signature is checked over what arrived (docs/decisions.md).
      parse: 'text',
      response: deliveryResponses([...REVIEW_ADMISSIONS, 'accepted']),
      detail: {
        summary: "Forgejo's hook for review requests and PR comments; signed with the hook secret",
        description:
          'Dispatches on X-Forgejo-Event-Type: pull_request_review_request starts a review (202, as /webhook/forge/review-request); ' +
          'pull_request_comment is read for waive and label commands in the background (202 accepted); anything else is ignored with 200.',
        tags: ['webhook'],
      },
    },
  )
}
