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
import { Elysia, t } from 'elysia'
import { decodeForgeDelivery } from '../../../../core/review/comment-webhook.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { CommentCommands } from '../../usecases/review/comment-commands.ts'
import type { ReviewPipeline } from '../../usecases/review/review-pipeline.ts'
import { ProblemSchema, problemResponse } from '../problem.ts'
import { signatureMatches, WEBHOOK_BODY_MAX_BYTES } from '../webhook.ts'

export const FORGE_WEBHOOK_PATH = '/webhook/forge'

export type ForgeWebhookRoutesConfig = {
  /** The hook secret (`FORGE_WEBHOOK_SECRET`); `null` or empty refuses every delivery. */
  secret: string | null
  pipeline: Pick<ReviewPipeline, 'submit'>
  comments: Pick<CommentCommands, 'handle'>
  logger: Logger
}

function json(status: number, body: Record<string, unknown>): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
}

function header(headers: Headers, names: readonly string[]): string | null {
  for (const name of names) {
    const value = headers.get(name)
    if (value !== null) return value
  }
  return null
}

/** The delivery's JSON once its size and signature check out, or the refusal to answer. */
export function readSignedDelivery(
  secret: string | null,
  request: Request,
  body: unknown,
): { ok: true; payload: unknown } | { ok: false; status: number; detail: string } {
  if (secret === null || secret === '') {
    return { ok: false, status: 503, detail: 'the controller has no webhook secret (FORGE_WEBHOOK_SECRET)' }
  }
  const text = typeof body === 'string' ? body : ''
  const declared = request.headers.get('content-length')
  const declaredBytes = declared !== null && /^\d+$/.test(declared.trim()) ? Number(declared) : null
  if (
    (declaredBytes !== null && declaredBytes > WEBHOOK_BODY_MAX_BYTES) ||
    Buffer.byteLength(text, 'utf8') > WEBHOOK_BODY_MAX_BYTES
  ) {
    return { ok: false, status: 413, detail: `a delivery may be at most ${WEBHOOK_BODY_MAX_BYTES} bytes` }
  }
  const signature = header(request.headers, ['x-forgejo-signature', 'x-gitea-signature'])
  if (signature === null || signature.trim() === '') {
    return { ok: false, status: 401, detail: 'the delivery has no X-Forgejo-Signature (or X-Gitea-Signature)' }
  }
  if (!signatureMatches(secret, text, signature)) {
    return { ok: false, status: 401, detail: "the delivery's signature doesn't match its body" }
  }
  try {
    return { ok: true, payload: JSON.parse(text) }
  } catch {
    return { ok: false, status: 400, detail: "the delivery's body isn't JSON" }
  }
}

export function forgeWebhookRoutes(config: ForgeWebhookRoutesConfig) {
  const { logger, pipeline, comments } = config

  function handle(request: Request, body: unknown): Response {
    const read = readSignedDelivery(config.secret, request, body)
    if (!read.ok) {
      logger.warn('forge delivery refused', { status: read.status, detail: read.detail })
      return problemResponse(read.status, read.detail)
    }
    const eventType = header(request.headers, ['x-forgejo-event-type', 'x-gitea-event-type'])
    const decoded = decodeForgeDelivery({ eventType }, read.payload)
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
        const admission = pipeline.submit(review)
        logger.info('review requested', {
          repo: repoName(review.repo),
          pr: review.pr,
          head_sha: review.headSha,
          requester: review.requester,
          admission,
        })
        return json(admission === 'duplicate' ? 200 : 202, { status: admission })
      }
    }
  }

  return new Elysia({ name: 'review-classifier-forge-webhook' }).post(
    FORGE_WEBHOOK_PATH,
    ({ request, body }) => handle(request, body),
    {
      parse: 'text',
      response: {
        200: t.Object({
          status: t.Union([t.Literal('ignored'), t.Literal('duplicate')]),
          reason: t.Optional(t.String()),
        }),
        202: t.Object({
          status: t.Union([
            t.Literal('started'),
            t.Literal('waiting'),
            t.Literal('queue-full'),
            t.Literal('stopping'),
            t.Literal('accepted'),
          ]),
        }),
        400: ProblemSchema,
        401: ProblemSchema,
        413: ProblemSchema,
        503: ProblemSchema,
      },
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
