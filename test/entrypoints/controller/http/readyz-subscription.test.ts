/**
 * `/readyz` and the subscription runtime's OAuth token: named as not
 * configured while the stored settings send any run to the subscription
 * and the token isn't in the store; nothing to check otherwise. The token
 * itself never shows.
 */
import { describe, expect, it } from 'bun:test'
import { createRecordingLogger } from '../../../../adapters/memory/logger.ts'
import { createMemorySecretStore } from '../../../../adapters/memory/secret-store.ts'
import { RUNTIME_KEY_SECRETS } from '../../../../core/settings/service-account.ts'
import type { Settings } from '../../../../core/wire/types.ts'
import { createControllerApp } from '../../../../entrypoints/controller/http/app.ts'
import { healthRoutes } from '../../../../entrypoints/controller/http/routes/health.ts'
import { subscriptionTokenCheck } from '../../../../entrypoints/controller/usecases/settings/readiness.ts'
import { createTestSettingsStore } from '../review-world.ts'
import { aRequest } from './http-support.ts'

const TOKEN = 'sk-ant-oat01-readyz-test-61f0'
const MISSING = {
  name: 'subscription',
  state: 'not_configured',
  reason:
    'the settings use the subscription runtime, and secret/swarm/services/review-classifier/claude-subscription has no oauth_token',
}

async function readyz(settings: Partial<Settings>, token: string | null) {
  const logger = createRecordingLogger()
  const store = createTestSettingsStore(settings)
  const secrets = createMemorySecretStore(
    token === null ? {} : { [RUNTIME_KEY_SECRETS.subscription.path]: { oauth_token: token } },
  )
  const app = createControllerApp({
    logger,
    routes: [healthRoutes({ checks: [subscriptionTokenCheck({ settings: store, secrets })], checkTimeoutMs: 1_000 })],
  })
  const response = await app.handle(aRequest('/readyz'))
  return { status: response.status, text: await response.text() }
}

describe('/readyz and the subscription token', () => {
  it('names the secret while the stored runtime is subscription and it has no token', async () => {
    const { status, text } = await readyz({ runtime: 'subscription' }, null)
    expect(status).toBe(503)
    expect(JSON.parse(text)).toEqual({ status: 'not_ready', checks: [MISSING] })
  })

  it('names it too while only a repo_runtimes pattern sends runs there, and for an empty token', async () => {
    const { status, text } = await readyz({ repo_runtimes: { 'acme/*': 'subscription' } }, '')
    expect(status).toBe(503)
    expect(JSON.parse(text).checks).toEqual([MISSING])
  })

  it('is ok with the token stored, and never shows it', async () => {
    const { status, text } = await readyz({ runtime: 'subscription' }, TOKEN)
    expect(status).toBe(200)
    expect(JSON.parse(text).checks).toEqual([{ name: 'subscription', state: 'ok' }])
    expect(text).not.toContain(TOKEN)
  })

  it('checks nothing while no run goes to the subscription', async () => {
    const { status } = await readyz({ runtime: 'api-key', repo_runtimes: { 'acme/*': 'none' } }, null)
    expect(status).toBe(200)
  })
})
