/**
 * The daily budget through the controller (docs/behaviour.md, "Daily
 * budget"): the settings PUT, a review whose reply costs the day's budget,
 * the next review refused with its comment and no model call, a try-out's
 * 429, and the spend route. The memory forge, queue and KV stand in.
 */
import { describe, expect, it } from 'bun:test'
import { createMemoryKv } from '../../../adapters/memory/kv.ts'
import { appError } from '../../../core/base/errors.ts'
import { RULES_YML_PATH } from '../../../core/repo-files/rules-file.ts'
import { NO_RUN } from '../../../core/review/no-run.ts'
import { renderNoVerdictBody } from '../../../core/review/review-body.ts'
import type { Controller } from '../../../entrypoints/controller/service.ts'
import { aSeedPull } from '../../support/builders.ts'
import { signedDelivery } from '../../support/webhook.ts'
import { aController } from './controller-world.ts'
import { approveAll, createWorld, REPO, until } from './review-world.ts'
import { aTryOutBody, postTryOut } from './try-out-world.ts'

const SECRET = 'budget-hook-secret-7c1d'
const SCOPED_RULES =
  'classifications:\n  - name: docs\n    description: Every page has a title.\n    polarity: positive\n' +
  '    threshold: 80\n    paths: ["docs/**"]\n'
const DOCS_DIFF = 'diff --git a/docs/a.md b/docs/a.md\n--- a/docs/a.md\n+++ b/docs/a.md\n@@ -1 +1 @@\n-a\n+b\n'
const REFUSAL =
  "today's budget of $0.50 (UTC) is spent ($0.60 so far), so no run starts: request it again after 00:00 UTC, " +
  'or an admin raises budget.daily_usd in the settings'

function put(controller: Controller, body: unknown): Promise<Response> {
  return controller.app.handle(
    new Request('http://localhost/api/review-classifier/settings', {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'Remote-User': 'admin' },
      body: JSON.stringify(body),
    }),
  )
}

function tryOut(controller: Controller): Promise<Response> {
  return controller.app.handle(postTryOut(aTryOutBody()))
}

async function detailOf(answer: Response): Promise<string> {
  const body: unknown = await answer.json()
  return typeof body === 'object' && body !== null && 'detail' in body ? String(body.detail) : ''
}

async function spend(controller: Controller): Promise<Response> {
  return controller.app.handle(new Request('http://localhost/api/review-classifier/spend'))
}

/** A $0.50 budget spent by one approved review of PR 42 that cost $0.60 (it started under the budget, so it finished). */
async function aSpentDay(): Promise<{ world: ReturnType<typeof createWorld>; controller: Controller }> {
  const world = createWorld()
  await world.serve((request) => ({ ...approveAll(request), cost_usd: 0.6 }))
  const controller = aController(world, { webhookSecret: SECRET })
  expect((await put(controller, { budget: { daily_usd: 0.5 } })).status).toBe(200)
  expect((await controller.app.handle(signedDelivery({ secret: SECRET }, { pr: 42 }))).status).toBe(202)
  await until(() => world.forge.reviews(REPO, 42).length === 1, 'the review that spends the day')
  await controller.pipeline?.idle()
  expect(world.forge.reviews(REPO, 42)[0]?.event).toBe('APPROVED')
  return { world, controller }
}

describe('the daily budget', () => {
  it('refuses a budget of 0 with a 400 naming budget.daily_usd', async () => {
    const controller = aController(createWorld(), { webhookSecret: SECRET })
    const answer = await put(controller, { budget: { daily_usd: 0 } })
    expect(answer.status).toBe(400)
    expect(answer.headers.get('content-type')).toContain('application/problem+json')
    expect(await detailOf(answer)).toContain('budget.daily_usd must be more than 0 USD')
  })

  it('counts a reply’s cost, then refuses the next review with a comment and no model call, and a try-out with 429', async () => {
    const { world, controller } = await aSpentDay()

    expect((await controller.app.handle(signedDelivery({ secret: SECRET }, { pr: 42 }))).status).toBe(202)
    await until(() => world.forge.reviews(REPO, 42).length === 2, 'the refusal')
    await controller.pipeline?.idle()
    const refused = world.forge.reviews(REPO, 42)[1]
    expect(refused?.event).toBe('COMMENT')
    expect(refused?.body).toBe(renderNoVerdictBody(REFUSAL, null))
    expect(refused?.body).toContain('request it again after 00:00 UTC')
    expect(world.requests).toHaveLength(1)
    const head = refused?.commitId ?? ''
    expect(world.forge.statuses(REPO, head).at(-1)).toMatchObject(NO_RUN['budget-spent'].status)
    const runs: unknown = await (
      await controller.app.handle(new Request('http://localhost/api/review-classifier/runs'))
    ).json()
    const latest: unknown = Array.isArray(runs) ? runs[0] : null
    expect(latest).toMatchObject({ trigger: 'review', outcome: 'no-verdict', detail: REFUSAL })
    expect(latest).not.toHaveProperty('cost_usd')

    const answer = await tryOut(controller)
    expect(answer.status).toBe(429)
    expect(answer.headers.get('content-type')).toContain('application/problem+json')
    expect(await detailOf(answer)).toBe(REFUSAL)
    expect(world.requests).toHaveLength(1)

    const view = await spend(controller)
    expect(view.status).toBe(200)
    expect(await view.json()).toEqual({
      day: '2026-01-01',
      spent_usd: 0.6,
      estimated_usd: 0,
      reserved_usd: 0,
      budget_usd: 0.5,
      by_repo: { 'acme/widgets': 0.6 },
      days: [{ day: '2026-01-01', spent_usd: 0.6 }],
    })

    // 00:00 UTC: a new day's budget, and the review runs again.
    world.clock.advance(86_400_000)
    expect((await controller.app.handle(signedDelivery({ secret: SECRET }, { pr: 42 }))).status).toBe(202)
    await until(() => world.forge.reviews(REPO, 42).length === 3, 'the next day’s review')
    expect(world.forge.reviews(REPO, 42)[2]?.event).toBe('APPROVED')
    expect(world.requests).toHaveLength(2)
  })

  it('approves on a spent day a PR that leaves every rule out of scope, with no run, and refuses one in scope', async () => {
    const { world, controller } = await aSpentDay()

    // The rule now asks only about docs: PR 42 changes app.py, PR 43 a page under docs/.
    world.forge.changeFile(REPO, 'main', RULES_YML_PATH, SCOPED_RULES)
    world.forge.upsertPull(REPO, aSeedPull({ number: 43, headSha: 'c'.repeat(40), diff: DOCS_DIFF }))
    expect((await controller.app.handle(signedDelivery({ secret: SECRET }, { pr: 42 }))).status).toBe(202)
    await until(() => world.forge.reviews(REPO, 42).length === 2, 'the out-of-scope review')
    const approved = world.forge.reviews(REPO, 42)[1]
    expect(approved?.event).toBe('APPROVED')
    expect(approved?.body).toContain('No changed file matches its paths.')
    expect(world.forge.statuses(REPO, approved?.commitId ?? '').at(-1)?.state).toBe('success')

    expect((await controller.app.handle(signedDelivery({ secret: SECRET }, { pr: 43 }))).status).toBe(202)
    await until(() => world.forge.reviews(REPO, 43).length === 1, 'the in-scope refusal')
    await controller.pipeline?.idle()
    const refused = world.forge.reviews(REPO, 43)[0]
    expect(refused?.event).toBe('COMMENT')
    expect(refused?.body).toBe(renderNoVerdictBody(REFUSAL, null))
    // The refusal goes on the head it read, after its pending status.
    expect(refused?.commitId).toBe('c'.repeat(40))
    expect(world.forge.statuses(REPO, 'c'.repeat(40)).map((status) => status.state)).toEqual(['pending', 'error'])
    expect(world.requests).toHaveLength(1)
  })

  it('starts no review run when the budget cannot be checked, and says why', async () => {
    const world = createWorld()
    await world.serve(approveAll)
    const buckets = createMemoryKv()
    const controller = aController(world, { webhookSecret: SECRET, buckets })
    expect((await put(controller, { budget: { daily_usd: 1 } })).status).toBe(200)
    buckets.simulateFailure(appError('timeout', 'the queue did not answer'))
    expect((await controller.app.handle(signedDelivery({ secret: SECRET }, { pr: 42 }))).status).toBe(202)
    await until(() => world.forge.reviews(REPO, 42).length === 1, 'the no-verdict')
    expect(world.forge.reviews(REPO, 42)[0]?.body).toContain('budget couldn')
    expect(world.requests).toHaveLength(0)
    const answer = await tryOut(controller)
    expect(answer.status).toBe(503)
  })

  it('documents the spend route and its body in the OpenAPI document', async () => {
    const answer = await aController(createWorld(), { webhookSecret: SECRET }).app.handle(
      new Request('http://localhost/openapi/json'),
    )
    const document: { paths: Record<string, { get?: { responses?: Record<string, unknown> } }> } = JSON.parse(
      await answer.text(),
    )
    const responses = document.paths['/api/review-classifier/spend']?.get?.responses ?? {}
    expect(Object.keys(responses).sort()).toEqual(['200', '500', '503'])
    const body = JSON.stringify(responses['200'])
    for (const field of ['day', 'spent_usd', 'estimated_usd', 'reserved_usd', 'budget_usd', 'by_repo', 'days'])
      expect(body).toContain(`"${field}"`)
  })

  it('answers the spend route with 503 without a connected queue', async () => {
    const answer = await spend(aController(createWorld(), { webhookSecret: SECRET, connected: false }))
    expect(answer.status).toBe(503)
    expect(await detailOf(answer)).toBe('the swarm queue is not connected')
  })
})
