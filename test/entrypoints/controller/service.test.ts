import { describe, expect, it } from 'bun:test'
import { createMemoryKv } from '../../../adapters/memory/kv.ts'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { CONTROLLER_TOKEN_SECRET, SERVICE_TOKEN } from '../../../core/service-account.ts'
import { type Controller, createController } from '../../../entrypoints/controller/service.ts'
import { signedDelivery } from '../../support/webhook.ts'
import { approveAll, createWorld, REPO, SERVICE_ACCOUNT_TOKEN, type World } from './review-world.ts'

const SECRET = 'service-hook-secret-5e0a'

function aController(world: World): Controller {
  return createController({
    forge: { api: world.forge, webUrl: 'https://forge.example', noreplyDomain: 'forge.example' },
    queue: { link: { connected: () => true }, runQueue: world.queue, buckets: createMemoryKv() },
    secrets: createMemorySecretStore({
      [CONTROLLER_TOKEN_SECRET.path]: { [CONTROLLER_TOKEN_SECRET.field]: 'admin-token' },
      [SERVICE_TOKEN.secret.path]: { [SERVICE_TOKEN.secret.field]: SERVICE_ACCOUNT_TOKEN },
    }),
    clock: world.clock,
    ids: world.deps.ids,
    logger: world.logger,
    webhookSecret: SECRET,
    runTimeoutMs: 5_000,
    drainTimeoutMs: 1_000,
  })
}

describe('createController, draining', () => {
  it('answers a delivery the closing server let in with stopping, posts its comment before it ends, and refuses a try-out with 503', async () => {
    const world = createWorld()
    await world.serve(approveAll)
    const controller = aController(world)
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

    const tryOut = await controller.app.handle(
      new Request('http://localhost/api/review-classifier/try-out', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Remote-User': 'alice' },
        body: JSON.stringify({
          repo: 'acme/widgets',
          pr: 42,
          classifications: [
            { name: 'datetime', description: 'All datetimes carry a zone.', threshold: 80, polarity: 'positive' },
          ],
        }),
      }),
    )
    expect(tryOut.status).toBe(503)
    expect(await tryOut.text()).toContain('the controller is stopping')
    expect(world.requests).toEqual([])
  })
})

describe('createController, refusing try-outs while it stops', () => {
  /** The POST of a try-out of the given kind for acme/widgets. */
  function tryOutPost(kind: Record<string, unknown>): Request {
    return new Request('http://localhost/api/review-classifier/try-out', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Remote-User': 'alice' },
      body: JSON.stringify({
        repo: 'acme/widgets',
        ...kind,
        classifications: [
          { name: 'datetime', description: 'All datetimes carry a zone.', threshold: 80, polarity: 'positive' },
        ],
      }),
    })
  }

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
    const controller = aController(world)
    await controller.drain()
    calls.length = 0
    for (const kind of [{ replay: 3 }, { pr: 42, repeat: 2 }, { examples: true }]) {
      const answer = await controller.app.handle(tryOutPost(kind))
      expect({ kind, status: answer.status }).toEqual({ kind, status: 503 })
      expect(await answer.text()).toContain('the controller is stopping')
    }
    expect(calls).toEqual([])
    expect(world.requests).toEqual([])
  })
})
