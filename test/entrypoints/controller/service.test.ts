import { describe, expect, it } from 'bun:test'
import { signedDelivery } from '../../support/webhook.ts'
import { aController } from './controller-world.ts'
import { approveAll, createWorld, REPO } from './review-world.ts'
import { aTryOutBody, postTryOut } from './try-out-world.ts'

const SECRET = 'service-hook-secret-5e0a'

describe('createController, draining', () => {
  it('answers a delivery the closing server let in with stopping, posts its comment before it ends, and refuses a try-out with 503', async () => {
    const world = createWorld()
    await world.serve(approveAll)
    const controller = aController(world, { webhookSecret: SECRET })
    const late: Response[] = []
    const report = await controller.drain(async () => {
      late.push(await controller.app.handle(signedDelivery({ secret: SECRET }, { pr: 42 })))
    })
    expect(report).toMatchObject({ finished: 0, stopped: 0, dropped: 0, complete: true })
    const [answer] = late
    if (answer === undefined) throw new Error('the server was never closed')
    expect(answer.status).toBe(202)
    expect(await answer.json()).toEqual({ status: 'stopping' })
    // Posted before `drain` resolved, though the delivery came after the pipeline had drained.
    expect(world.forge.reviews(REPO, 42).map((r) => r.event)).toEqual(['COMMENT'])
    expect(world.requests).toEqual([])

    const tryOut = await controller.app.handle(postTryOut(aTryOutBody()))
    expect(tryOut.status).toBe(503)
    expect(await tryOut.text()).toContain('the controller is stopping')
    expect(world.requests).toEqual([])
  })
})

describe('createController, refusing try-outs while it stops', () => {
  it('refuses a replay, a repeat and a run on the examples with 503, before any forge read', async () => {
    const world = createWorld()
    await world.serve(approveAll)
    const calls: string[] = []
    const forge: Record<string, unknown> = world.forge
    for (const [name, value] of Object.entries(forge)) {
      if (typeof value !== 'function') continue
      forge[name] = (...args: unknown[]) => {
        calls.push(name)
        return value.apply(world.forge, args)
      }
    }
    const controller = aController(world, { webhookSecret: SECRET })
    await controller.drain()
    calls.length = 0
    const { pr: _pr, ...onRepo } = aTryOutBody()
    for (const kind of [{ replay: 3 }, { pr: 42, repeat: 2 }, { examples: true }]) {
      const answer = await controller.app.handle(postTryOut({ ...onRepo, ...kind }))
      expect({ kind, status: answer.status }).toEqual({ kind, status: 503 })
      expect(await answer.text()).toContain('the controller is stopping')
    }
    expect(calls).toEqual([])
    expect(world.requests).toEqual([])
  })
})
