import { describe, expect, it } from 'bun:test'
import { type Static, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { createMemoryForge } from '../../../../adapters/memory/forge.ts'
import { createMemoryKv } from '../../../../adapters/memory/kv.ts'
import { createRecordingLogger } from '../../../../adapters/memory/logger.ts'
import { createMemorySecretStore } from '../../../../adapters/memory/secret-store.ts'
import { appError } from '../../../../core/base/errors.ts'
import { SERVICE_ACCOUNT, SERVICE_TOKEN } from '../../../../core/settings/service-account.ts'
import { createControllerApp } from '../../../../entrypoints/controller/http/app.ts'
import { healthRoutes } from '../../../../entrypoints/controller/http/routes/health.ts'
import { runsRoutes } from '../../../../entrypoints/controller/http/routes/runs.ts'
import { settingsRoutes } from '../../../../entrypoints/controller/http/routes/settings.ts'
import { createKvRunStore } from '../../../../entrypoints/controller/usecases/run/run-store.ts'
import {
  forgeCheck,
  queueCheck,
  type ReadinessCheck,
  secretStoreCheck,
} from '../../../../entrypoints/controller/usecases/settings/readiness.ts'
import { createKvSettingsStore } from '../../../../entrypoints/controller/usecases/settings/settings-store.ts'
import type { QueueLink } from '../../../../ports/queue.ts'
import { aRequest } from './http-support.ts'

const ADMIN_TOKEN_PATH = 'swarm/services/swarm-controller/forge/token'

function anApp(checks: ReadinessCheck[], queue: QueueLink | null = { connected: () => true }) {
  const buckets = createMemoryKv()
  const logger = createRecordingLogger()
  return createControllerApp({
    logger,
    routes: [
      healthRoutes({ checks, checkTimeoutMs: 200 }),
      settingsRoutes({ queue, settings: createKvSettingsStore({ buckets, logger }), logger }),
      runsRoutes({ queue, runs: createKvRunStore({ buckets, logger }), logger }),
    ],
  })
}

/** The three checks the controller runs, over memory fakes a test can break. */
function theUsualChecks(options: { forgeConfigured?: boolean; adminToken?: string | null; connected?: boolean } = {}) {
  const forge = createMemoryForge({ users: [{ login: 'root', admin: true }] })
  const secrets = createMemorySecretStore(
    options.adminToken === null ? {} : { [ADMIN_TOKEN_PATH]: { token: options.adminToken ?? 'admin-token-0000' } },
  )
  const link = { up: options.connected ?? true }
  const queue: QueueLink = { connected: () => link.up }
  const checks = [
    queueCheck(queue),
    forgeCheck({
      forge: options.forgeConfigured === false ? null : forge,
      hasToken: async () => (await secrets.read(ADMIN_TOKEN_PATH, 'token')) !== null,
      login: SERVICE_ACCOUNT.login,
    }),
    secretStoreCheck(secrets, SERVICE_TOKEN.secret.path, SERVICE_TOKEN.secret.field),
  ]
  return { forge, secrets, link, queue, checks }
}

const ReadinessBody = Type.Object({
  status: Type.String(),
  checks: Type.Array(Type.Object({ name: Type.String(), state: Type.String(), reason: Type.Optional(Type.String()) })),
})

async function readiness(response: Response): Promise<Static<typeof ReadinessBody>> {
  const body: unknown = await response.json()
  // Checked, not parsed: parsing would strip a field the route shouldn't have sent before the test could see it.
  if (!Value.Check(ReadinessBody, body)) throw new Error(`not a readiness body: ${JSON.stringify(body)}`)
  return body
}

describe('/healthz', () => {
  it('answers 200 while the process is up, whatever its dependencies do', async () => {
    const broken: ReadinessCheck = { name: 'forge', check: async () => ({ state: 'failing', reason: 'down' }) }
    const response = await anApp([broken], null).handle(aRequest('/healthz'))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: 'ok' })
  })
})

describe('/readyz', () => {
  it('answers 200 when NATS is connected, the forge answers and the secret store answers', async () => {
    const { checks } = theUsualChecks()
    const response = await anApp(checks).handle(aRequest('/readyz'))
    expect(response.status).toBe(200)
    expect(await readiness(response)).toEqual({
      status: 'ready',
      checks: [
        { name: 'nats', state: 'ok' },
        { name: 'forge', state: 'ok' },
        { name: 'secrets', state: 'ok' },
      ],
    })
  })

  it('answers 503 naming NATS when the queue is down', async () => {
    const { checks, link } = theUsualChecks()
    link.up = false
    const response = await anApp(checks).handle(aRequest('/readyz'))
    expect(response.status).toBe(503)
    const body = await readiness(response)
    expect(body.status).toBe('not_ready')
    expect(body.checks[0]).toEqual({ name: 'nats', state: 'failing', reason: 'not connected to the swarm queue' })
    expect(body.checks.slice(1).map((check) => check.state)).toEqual(['ok', 'ok'])
  })

  it('reports a host with no queue as not configured', async () => {
    const response = await anApp([queueCheck(null)], null).handle(aRequest('/readyz'))
    expect(response.status).toBe(503)
    expect((await readiness(response)).checks).toEqual([
      { name: 'nats', state: 'not_configured', reason: 'this host has no swarm queue' },
    ])
  })

  it('reports no forge URL and no forge token as not configured, asking the forge nothing', async () => {
    for (const [options, reason] of [
      [{ forgeConfigured: false }, 'FORGE_URL is not set'],
      [{ adminToken: null }, "the controller's forge token isn't in the secret store yet"],
    ] as const) {
      const usual = theUsualChecks(options)
      usual.forge.simulateFailure(appError('unavailable', 'should not be asked'))
      const response = await anApp(usual.checks).handle(aRequest('/readyz'))
      expect(response.status).toBe(503)
      expect((await readiness(response)).checks[1]).toEqual({ name: 'forge', state: 'not_configured', reason })
    }
  })

  it('reports a forge that fails with its reason', async () => {
    const { checks, forge } = theUsualChecks()
    forge.simulateFailure(appError('unavailable', 'the forge answered 502'))
    const response = await anApp(checks).handle(aRequest('/readyz'))
    expect(response.status).toBe(503)
    expect((await readiness(response)).checks[1]).toEqual({
      name: 'forge',
      state: 'failing',
      reason: 'unavailable: the forge answered 502',
    })
  })

  it.each([
    [{ active: false }, 'deactivated'],
    [{ prohibitLogin: true }, 'prohibited from signing in'],
    [{ active: false, prohibitLogin: true }, 'deactivated and prohibited from signing in'],
  ] as const)('reports the forge failing while an admin has stopped the service account (%p)', async (flags, how) => {
    const { checks, forge } = theUsualChecks()
    const app = anApp(checks)
    await forge.createUser({ login: SERVICE_ACCOUNT.login, email: SERVICE_ACCOUNT.email, fullName: '' })
    expect((await app.handle(aRequest('/readyz'))).status).toBe(200)
    forge.changeAccount(SERVICE_ACCOUNT.login, flags)
    const response = await app.handle(aRequest('/readyz'))
    expect(response.status).toBe(503)
    expect((await readiness(response)).checks[1]).toEqual({
      name: 'forge',
      state: 'failing',
      reason: `the forge account review-classifier is ${how} by an admin, so nothing is posted as it until that is undone`,
    })
  })

  it('reports a secret store that fails, without any secret it holds', async () => {
    const { checks, secrets } = theUsualChecks({ adminToken: 'admin-token-sk-9f8e7d' })
    secrets.simulateFailure(appError('unavailable', 'the store is sealed'))
    const response = await anApp(checks).handle(aRequest('/readyz'))
    const text = await response.text()
    expect(response.status).toBe(503)
    expect(text).not.toContain('admin-token-sk-9f8e7d')
    const body: { checks: { name: string; state: string; reason?: string }[] } = JSON.parse(text)
    expect(body.checks.find((check) => check.name === 'secrets')).toEqual({
      name: 'secrets',
      state: 'failing',
      reason: 'unavailable: the store is sealed',
    })
  })

  it("counts a check that doesn't answer in time as failing, and one that throws something odd without its message", async () => {
    const hangs: ReadinessCheck = { name: 'forge', check: () => new Promise(() => undefined) }
    const odd: ReadinessCheck = {
      name: 'secrets',
      check: async () => {
        throw new Error('token=s3cr3t-value leaked into a message')
      },
    }
    const response = await anApp([hangs, odd]).handle(aRequest('/readyz'))
    const text = await response.text()
    expect(response.status).toBe(503)
    expect(text).not.toContain('s3cr3t-value')
    expect(JSON.parse(text)).toEqual({
      status: 'not_ready',
      checks: [
        { name: 'forge', state: 'failing', reason: 'no answer within 200 ms' },
        { name: 'secrets', state: 'failing', reason: 'the check failed unexpectedly' },
      ],
    })
  })
})
