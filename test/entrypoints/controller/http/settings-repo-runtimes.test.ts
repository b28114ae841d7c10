/** `repo_runtimes` and the subscription runtime through the settings routes: stored and answered, or a 400 naming the field. */
import { describe, expect, it } from 'bun:test'
import { createMemoryKv } from '../../../../adapters/memory/kv.ts'
import { createRecordingLogger } from '../../../../adapters/memory/logger.ts'
import { createControllerApp } from '../../../../entrypoints/controller/http/app.ts'
import { settingsRoutes } from '../../../../entrypoints/controller/http/routes/settings.ts'
import { createKvSettingsStore } from '../../../../entrypoints/controller/usecases/settings/settings-store.ts'
import { aSettings } from '../../../support/builders.ts'
import { aRequest, expectProblem } from './http-support.ts'

const SETTINGS = '/api/review-classifier/settings'

function anApp() {
  const buckets = createMemoryKv()
  const logger = createRecordingLogger()
  return createControllerApp({
    logger,
    routes: [
      settingsRoutes({
        queue: { connected: () => true },
        settings: createKvSettingsStore({ buckets, logger }),
        logger,
      }),
    ],
  })
}

function put(body: unknown): Request {
  return aRequest(SETTINGS, {
    method: 'PUT',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', 'remote-user': 'ann' },
  })
}

describe('PUT /api/review-classifier/settings with repo_runtimes and the subscription', () => {
  it('stores the subscription runtime and a policy, and answers them on GET', async () => {
    const app = anApp()
    const body = { runtime: 'subscription', repo_runtimes: { 'acme/*': 'none', 'globex/web': 'api-key' } } as const
    const response = await app.handle(put(body))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(aSettings(body))
    expect(await (await app.handle(aRequest(SETTINGS))).json()).toEqual(aSettings(body))
  })

  it('answers 400 problem+json naming the field, and stores nothing', async () => {
    const app = anApp()
    await expectProblem(
      await app.handle(put({ repo_runtimes: { 'acme/*': 'local' } })),
      400,
      'repo_runtimes["acme/*"] must be one of "api-key", "acp", "subscription", "none", not the string "local"',
    )
    await expectProblem(await app.handle(put({ repo_runtimes: { acme: 'none' } })), 400, /^repo_runtimes key "acme"/)
    await expectProblem(
      await app.handle(put({ repo_runtimes: { 'acme/*': 'acp' } })),
      400,
      /repo_runtimes sends "acme\/\*" to "acp", which needs a provider/,
    )
    expect(await (await app.handle(aRequest(SETTINGS))).json()).toEqual(aSettings())
  })
})
