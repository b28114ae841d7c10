import { afterEach, describe, expect, it } from 'bun:test'
import { Elysia } from 'elysia'
import { createRecordingLogger } from '../../../../adapters/memory/logger.ts'
import type { ReviewRequest } from '../../../../core/review/webhook.ts'
import { createControllerApp } from '../../../../entrypoints/controller/http/app.ts'
import { PROBLEM_CONTENT_TYPE } from '../../../../entrypoints/controller/http/problem.ts'
import {
  signatureMatches,
  WEBHOOK_BODY_MAX_BYTES,
  webhookRoutes,
} from '../../../../entrypoints/controller/http/routes/webhook.ts'
import {
  createReviewPipeline,
  type SubmitResult,
} from '../../../../entrypoints/controller/usecases/review/review-pipeline.ts'
import { deliveryHeaders, goJson, reviewRequestPayload, signBody, signedDelivery } from '../../../support/webhook.ts'
import { approveAll, createWorld, gate, REPO, until } from '../review-world.ts'

const SECRET = 'hook-secret-0b7d5e'

/** A pipeline that only remembers what it was handed. */
function recordingPipeline(answer: SubmitResult = 'started') {
  const submitted: ReviewRequest[] = []
  return {
    submitted,
    submit(request: ReviewRequest): SubmitResult {
      submitted.push(request)
      return answer
    },
  }
}

function anApp(options: { secret?: string | null; answer?: SubmitResult } = {}) {
  const pipeline = recordingPipeline(options.answer)
  const logger = createRecordingLogger()
  const secret = options.secret === undefined ? SECRET : options.secret
  const app = new Elysia().use(webhookRoutes({ secret, pipeline, logger }))
  return { app, pipeline, logger }
}

async function expectProblem(response: Response, status: number, detail?: RegExp): Promise<void> {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toBe(PROBLEM_CONTENT_TYPE)
  const body: unknown = await response.json()
  expect(body).toMatchObject({ type: 'about:blank', status })
  if (detail !== undefined) expect(JSON.stringify(body)).toMatch(detail)
}

describe('POST /webhook/forge/review-request', () => {
  it('starts a review for a signed request of review-classifier and answers 202', async () => {
    const { app, pipeline } = anApp()
    const response = await app.handle(signedDelivery({ secret: SECRET }, { headSha: 'abc0123', sender: 'bob', pr: 7 }))
    expect(response.status).toBe(202)
    expect(await response.json()).toEqual({ status: 'started' })
    expect(pipeline.submitted).toEqual([{ repo: REPO, pr: 7, headSha: 'abc0123', requester: 'bob' }])
  })

  it('refuses a forged, missing or re-serialised signature with 401, and starts nothing', async () => {
    const { app, pipeline, logger } = anApp()
    const body = goJson(reviewRequestPayload())
    const forged = signBody('another-secret', body)
    await expectProblem(
      await app.handle(signedDelivery({ secret: SECRET, signature: forged }, body)),
      401,
      /doesn't match/,
    )
    await expectProblem(
      await app.handle(signedDelivery({ secret: SECRET, signature: null }, body)),
      401,
      /no X-Forgejo-Signature/,
    )
    await expectProblem(await app.handle(signedDelivery({ secret: SECRET, signature: '' }, body)), 401)
    await expectProblem(await app.handle(signedDelivery({ secret: SECRET, signature: 'zz' }, body)), 401)
    // The GitHub-style prefixed form belongs in X-Hub-Signature-256, not here.
    await expectProblem(
      await app.handle(signedDelivery({ secret: SECRET, signature: `sha256=${signBody(SECRET, body)}` }, body)),
      401,
    )

    // Signed over the bytes Forgejo sent; the same JSON serialised another way doesn't verify.
    const compact = JSON.stringify(JSON.parse(body))
    const request = new Request('http://localhost/webhook/forge/review-request', {
      method: 'POST',
      headers: deliveryHeaders(body, { secret: SECRET }),
      body: compact,
    })
    await expectProblem(await app.handle(request), 401)
    expect(pipeline.submitted).toEqual([])
    expect(JSON.stringify(logger.entries)).not.toContain(SECRET)
    expect(JSON.stringify(logger.entries)).not.toContain(forged)
  })

  it('accepts a delivery with only the X-Gitea-* headers', async () => {
    const { app, pipeline } = anApp()
    const response = await app.handle(signedDelivery({ secret: SECRET, headerSet: 'gitea' }))
    expect(response.status).toBe(202)
    expect(pipeline.submitted).toHaveLength(1)
  })

  it('ignores a removed request and a request of another reviewer with 200', async () => {
    const { app, pipeline } = anApp()
    const removed = await app.handle(signedDelivery({ secret: SECRET }, { action: 'review_request_removed' }))
    expect(removed.status).toBe(200)
    expect(await removed.json()).toEqual({ status: 'ignored', reason: 'a removed review request starts nothing' })

    const other = await app.handle(
      signedDelivery({ secret: SECRET }, { reviewer: 'carol', requestedReviewers: ['review-classifier', 'carol'] }),
    )
    expect(other.status).toBe(200)
    expect(await other.json()).toMatchObject({ status: 'ignored' })

    const approvedEvent = await app.handle(signedDelivery({ secret: SECRET, eventType: 'pull_request_approved' }))
    expect(approvedEvent.status).toBe(200)
    expect(pipeline.submitted).toEqual([])
  })

  it('answers 200 for a duplicate and 202 for a full queue', async () => {
    expect((await anApp({ answer: 'duplicate' }).app.handle(signedDelivery({ secret: SECRET }))).status).toBe(200)
    const full = await anApp({ answer: 'queue-full' }).app.handle(signedDelivery({ secret: SECRET }))
    expect(full.status).toBe(202)
    expect(await full.json()).toEqual({ status: 'queue-full' })
  })

  it('answers 413 for a body over the limit, before checking its signature', async () => {
    const { app, pipeline } = anApp()
    const payload = reviewRequestPayload()
    const big = goJson({
      ...payload,
      pull_request: { ...asObject(payload.pull_request), body: 'x'.repeat(WEBHOOK_BODY_MAX_BYTES) },
    })
    await expectProblem(await app.handle(signedDelivery({ secret: SECRET }, big)), 413)
    await expectProblem(await app.handle(signedDelivery({ secret: SECRET, signature: null }, big)), 413)
    expect(pipeline.submitted).toEqual([])
  })

  it('answers 400 for a signed body that is not JSON or not a review request', async () => {
    const { app, pipeline } = anApp()
    await expectProblem(
      await app.handle(signedDelivery({ secret: SECRET }, '{"action": "review_requested",')),
      400,
      /isn't JSON/,
    )
    const noPull = goJson({ ...reviewRequestPayload(), pull_request: null })
    await expectProblem(await app.handle(signedDelivery({ secret: SECRET }, noPull)), 400, /pull_request/)
    await expectProblem(await app.handle(signedDelivery({ secret: SECRET, eventType: null })), 400, /Event-Type/)
    expect(pipeline.submitted).toEqual([])
  })

  it('refuses every delivery with 503 while no secret is configured', async () => {
    for (const secret of [null, '']) {
      const { app, pipeline } = anApp({ secret })
      await expectProblem(await app.handle(signedDelivery({ secret: '' })), 503, /FORGE_WEBHOOK_SECRET/)
      expect(pipeline.submitted).toEqual([])
    }
  })

  it('answers before the review finishes, which then posts in the background', async () => {
    const world = createWorld()
    const held = gate()
    await world.serve(async (request) => {
      await held.wait
      return approveAll(request)
    })
    const pipeline = createReviewPipeline(world.deps)
    const app = new Elysia().use(webhookRoutes({ secret: SECRET, pipeline, logger: world.logger }))
    const pull = await world.forge.getPullRequest(REPO, 42)

    const response = await app.handle(signedDelivery({ secret: SECRET }, { headSha: pull.headSha }))
    expect(response.status).toBe(202)
    await until(() => world.requests.length === 1, 'the run request')
    expect(world.forge.reviews(REPO, 42)).toEqual([])
    expect(world.runs.records).toEqual([])

    // A redelivery while it runs starts nothing.
    const again = await app.handle(signedDelivery({ secret: SECRET }, { headSha: pull.headSha }))
    expect(await again.json()).toEqual({ status: 'duplicate' })

    held.open()
    await pipeline.idle()
    expect(world.forge.reviews(REPO, 42).map((r) => [r.event, r.commitId])).toEqual([['APPROVED', pull.headSha]])
    expect(world.runs.records.map((r) => r.outcome)).toEqual(['approved'])
  })
})

describe('the webhook in the controller app', () => {
  it('answers through the app and is listed in the OpenAPI document with its statuses', async () => {
    const world = createWorld()
    const pipeline = recordingPipeline()
    const app = createControllerApp({
      logger: world.logger,
      routes: [webhookRoutes({ secret: SECRET, pipeline, logger: world.logger })],
    })
    expect((await app.handle(signedDelivery({ secret: SECRET }))).status).toBe(202)
    await expectProblem(await app.handle(signedDelivery({ secret: SECRET, signature: null })), 401)
    expect(pipeline.submitted).toHaveLength(1)

    const document: { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> } = JSON.parse(
      await (await app.handle(new Request('http://localhost/openapi/json'))).text(),
    )
    const route = document.paths['/webhook/forge/review-request']?.post
    expect(Object.keys(route?.responses ?? {}).sort()).toEqual(['200', '202', '400', '401', '403', '413', '415', '503'])
  })
})

describe('the webhook on a real server', () => {
  let stop: (() => Promise<void>) | null = null
  afterEach(async () => {
    await stop?.()
    stop = null
  })

  it('answers its own 413 past the limit, and Bun answers 413 past maxRequestBodySize', async () => {
    const { app, pipeline } = anApp()
    // The composition's setting: above the webhook's limit, so the route answers first.
    app.listen({ hostname: '127.0.0.1', port: 0, maxRequestBodySize: 8 * 1024 * 1024 })
    stop = async () => {
      await app.stop()
    }
    const url = `http://127.0.0.1:${app.server?.port ?? 0}/webhook/forge/review-request`
    const body = 'x'.repeat(WEBHOOK_BODY_MAX_BYTES + 1)

    const over = await fetch(url, { method: 'POST', headers: deliveryHeaders(body, { secret: SECRET }), body })
    await expectProblem(over, 413)
    const farOver = 'x'.repeat(9 * 1024 * 1024)
    const refused = await fetch(url, {
      method: 'POST',
      headers: deliveryHeaders(farOver, { secret: SECRET }),
      body: farOver,
    })
    expect(refused.status).toBe(413)

    const ok = await fetch(url, { method: 'POST', ...toInit(signedDelivery({ secret: SECRET })) })
    expect(ok.status).toBe(202)
    expect(pipeline.submitted).toHaveLength(1)
  })
})

describe('signatureMatches', () => {
  it('accepts the hex HMAC in either case and refuses anything else', () => {
    const body = goJson(reviewRequestPayload())
    const signature = signBody(SECRET, body)
    expect(signatureMatches(SECRET, body, signature)).toBe(true)
    expect(signatureMatches(SECRET, body, signature.toUpperCase())).toBe(true)
    expect(signatureMatches(SECRET, `${body} `, signature)).toBe(false)
    expect(signatureMatches('other', body, signature)).toBe(false)
    expect(signatureMatches(SECRET, body, signature.slice(0, 63))).toBe(false)
    expect(signatureMatches(SECRET, body, `${signature}00`)).toBe(false)
  })
})

function asObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null) throw new Error('not an object')
  return Object.fromEntries(Object.entries(value))
}

function toInit(request: Request): RequestInit {
  return { headers: request.headers, body: request.body, duplex: 'half' } satisfies RequestInit & { duplex: 'half' }
}
