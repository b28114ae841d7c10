/**
 * The budget as a reservation through the controller (docs/behaviour.md,
 * "Daily budget"): every run of a try-out reserves its estimate before it
 * starts, and a try-out whose next run finds the budget spent stops there,
 * its remaining runs skipped with the budget's words. The classifier here
 * answers each run at exactly its estimate, the dearest an honest run may
 * cost, and records nothing itself (as a classifier older than the ledger
 * writes), so each reply's cost is what settles.
 */
import { describe, expect, it } from 'bun:test'
import { estimateRunUsd } from '../../../core/run/spend-estimate.ts'
import type { RunRequest } from '../../../core/wire/types.ts'
import type { Controller } from '../../../entrypoints/controller/service.ts'
import { BUDGET_SKIPPED } from '../../../entrypoints/controller/usecases/try-out/try-out-slots.ts'
import { aController } from './controller-world.ts'
import { approveAll, createWorld } from './review-world.ts'
import { aTryOutBody, getTryOut, postTryOut } from './try-out-world.ts'

const SECRET = 'reservations-hook-secret-1a2b'

async function put(controller: Controller, body: unknown): Promise<number> {
  const answer = await controller.app.handle(
    new Request('http://localhost/api/review-classifier/settings', {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'Remote-User': 'admin' },
      body: JSON.stringify(body),
    }),
  )
  return answer.status
}

async function json(response: Response): Promise<Record<string, unknown>> {
  const body: unknown = await response.json()
  if (typeof body !== 'object' || body === null) throw new Error(`not an object: ${JSON.stringify(body)}`)
  return { ...body }
}

describe('the budget as a reservation', () => {
  it('stops a repeat at the first run the budget refuses, and skips the rest with the budget’s words', async () => {
    const world = createWorld()
    let estimate = 0
    await world.serve((request: RunRequest) => {
      estimate = estimateRunUsd(request)
      return { ...approveAll(request), cost_usd: estimate }
    })
    const controller = aController(world, { webhookSecret: SECRET })
    // Learn one run's estimate from a try-out under a budget far away.
    expect(await put(controller, { budget: { daily_usd: 100 } })).toBe(200)
    const body = aTryOutBody({ repeat: 5 })
    const probe = await json(await controller.app.handle(postTryOut(aTryOutBody())))
    await controller.tryOuts.idle()
    expect(typeof probe.id).toBe('string')
    const spentBefore = Number((await json(await spend(controller))).spent_usd)
    expect(spentBefore).toBe(estimate)

    // Two and a half runs' worth left: the first run alone, then four at once, of which two fit.
    expect(await put(controller, { budget: { daily_usd: spentBefore + 2.5 * estimate } })).toBe(200)
    const started = await json(await controller.app.handle(postTryOut(body)))
    await controller.tryOuts.idle()
    const view = await json(await controller.app.handle(getTryOut(String(started.id))))
    expect(view.status).toBe('failed')
    expect(String(view.detail)).toMatch(new RegExp(`^run [45] of 5: ${BUDGET_SKIPPED}$`))
    const repeat = view.repeat as { classifications: Array<{ answers: unknown[] }> }
    for (const classification of repeat.classifications) expect(classification.answers).toHaveLength(3)
    expect(world.requests).toHaveLength(4)

    // The day went past the budget by less than one run's cost.
    const after = await json(await spend(controller))
    expect(Number(after.spent_usd)).toBeCloseTo(spentBefore + 3 * estimate, 10)
    expect(Number(after.reserved_usd)).toBe(0)
    expect(Number(after.spent_usd) - Number(after.budget_usd)).toBeLessThan(estimate)
  })
})

function spend(controller: Controller): Promise<Response> {
  return controller.app.handle(new Request('http://localhost/api/review-classifier/spend'))
}
