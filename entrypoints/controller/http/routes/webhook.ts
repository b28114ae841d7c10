/**
 * `POST /webhook/forge/review-request`: Forgejo's instance-wide
 * `pull_request_review_request` hook (docs/behaviour.md, "Trigger and lifecycle";
 * docs/decisions.md, Forge; docs/forgejo.md §1).
 *
 * The body is taken as text (`parse: 'text'`) so the signature is checked
 * over what arrived, before any of it is parsed: HMAC-SHA256 with the hook
 * secret, lowercase hex in `X-Forgejo-Signature` (or `X-Gitea-Signature`),
 * compared in constant time. Only then is the JSON read. Forgejo gives a
 * delivery five seconds and retries nothing, so the answer goes out at once
 * and the review runs in the background.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { Elysia, t } from 'elysia'
import { decodeReviewRequestDelivery } from '../../../../core/review/webhook.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { ReviewPipeline } from '../../usecases/review/review-pipeline.ts'
import { ProblemSchema, problemResponse } from '../problem.ts'

/** A real delivery is a few KB; the PR body is the only part that grows. */
export const WEBHOOK_BODY_MAX_BYTES = 5 * 1024 * 1024

export const WEBHOOK_PATH = '/webhook/forge/review-request'

export type WebhookRoutesConfig = {
  /** The hook secret (`FORGE_WEBHOOK_SECRET`); `null` or empty refuses every delivery. */
  secret: string | null
  pipeline: Pick<ReviewPipeline, 'submit'>
  logger: Logger
}

const SHA256_HEX = /^[0-9a-f]{64}$/

export function json(status: number, body: Record<string, unknown>): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
}

/** The first of the header names that's present. */
function header(headers: Headers, names: readonly string[]): string | null {
  for (const name of names) {
    const value = headers.get(name)
    if (value !== null) return value
  }
  return null
}

/**
 * Whether `signature` is the body's HMAC. Both sides are compared as the
 * 32 decoded bytes, so the comparison takes the same time whatever matches;
 * only the header's shape (not secret) can end it early.
 */
export function signatureMatches(secret: string, body: string, signature: string): boolean {
  const given = signature.trim().toLowerCase()
  if (!SHA256_HEX.test(given)) return false
  const expected = createHmac('sha256', secret).update(body, 'utf8').digest()
  return timingSafeEqual(expected, Buffer.from(given, 'hex'))
}

function declaredLength(headers: Headers): number | null {
  const value = headers.get('content-length')
  if (value === null || !/^\d+$/.test(value.trim())) return null
  return Number(value)
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
  const declared = declaredLength(request.headers)
  if (
    (declared !== null && declared > WEBHOOK_BODY_MAX_BYTES) ||
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

/** The delivery's event type (`X-Forgejo-Event-Type`, or Gitea's name for it). */
export function eventTypeOf(headers: Headers): string | null {
  return header(headers, ['x-forgejo-event-type', 'x-gitea-event-type'])
}

/** Hands a requested review to the pipeline and answers the delivery with its admission. */
export function startReview(
  pipeline: Pick<ReviewPipeline, 'submit'>,
  logger: Logger,
  review: Parameters<ReviewPipeline['submit']>[0],
): Response {
  const admission = pipeline.submit(review)
  logger.info('review requested', {
    repo: repoName(review.repo),
    pr: review.pr,
    head_sha: review.headSha,
    requester: review.requester,
    admission,
  })
  // A duplicate changes nothing; the rest are taken in (a full queue gets its comment in the background).
  // So is a request while the controller stops (`stopping`): it gets its no-verdict comment at once,
  // in the background too. Not a 503: Forgejo retries no delivery, so a refusal would only mark it
  // failed in the hook's history, while the comment is what tells the requester to ask again.
  return json(admission === 'duplicate' ? 200 : 202, { status: admission })
}

/** What a review request's 202 may say it became (review-pipeline.ts's admissions). */
export const REVIEW_ADMISSIONS = ['started', 'waiting', 'queue-full', 'stopping'] as const

/** A signed delivery's answers, the 202's statuses given: both webhook routes answer alike. */
export function deliveryResponses(accepted: readonly string[]) {
  return {
    200: t.Object({
      status: t.Union([t.Literal('ignored'), t.Literal('duplicate')]),
      reason: t.Optional(t.String()),
    }),
    202: t.Object({ status: t.Union(accepted.map((status) => t.Literal(status))) }),
    400: ProblemSchema,
    401: ProblemSchema,
    413: ProblemSchema,
    503: ProblemSchema,
  }
}

export function webhookRoutes(config: WebhookRoutesConfig) {
  const { logger, pipeline } = config

  function refuse(status: number, detail: string): Response {
    logger.warn('review request delivery refused', { status, detail })
    return problemResponse(status, detail)
  }

  function handle(request: Request, body: unknown): Response {
    const read = readSignedDelivery(config.secret, request, body)
    if (!read.ok) return refuse(read.status, read.detail)
    const decoded = decodeReviewRequestDelivery({ eventType: eventTypeOf(request.headers) }, read.payload)
    if (decoded.kind === 'invalid') return refuse(400, decoded.detail)
    if (decoded.kind === 'ignore') {
      logger.debug('review request delivery ignored', { reason: decoded.reason })
      return json(200, { status: 'ignored', reason: decoded.reason })
    }
    const { kind: _kind, ...review } = decoded
    return startReview(pipeline, logger, review)
  }

  return new Elysia({ name: 'review-classifier-webhook', prefix: '/webhook/forge' }).post(
    '/review-request',
    ({ request, body }) => handle(request, body),
    {
      // The raw text, so the signature is checked over what arrived (docs/decisions.md).
      parse: 'text',
      response: deliveryResponses(REVIEW_ADMISSIONS),
      detail: {
        summary: "Forgejo's pull_request_review_request hook; signed with the hook secret",
        description:
          'A request of review-classifier starts a run in the background and answers 202 at once; any other delivery is ignored with 200. ' +
          'While the controller stops, a request answers 202 stopping and gets a no-verdict comment instead of a run.',
        tags: ['webhook'],
      },
    },
  )
}
