/** `max_output_tokens` through the settings routes: its default on GET, stored by a PUT, or a 400 naming it. */
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

async function stored(app: ReturnType<typeof anApp>): Promise<unknown> {
  return (await app.handle(aRequest(SETTINGS))).json()
}

describe('max_output_tokens on the settings routes', () => {
  it('answers 1024 with no document stored, and stores what a PUT sends', async () => {
    const app = anApp()
    expect(await stored(app)).toEqual(aSettings({ max_output_tokens: 1024 }))
    const response = await app.handle(put({ max_output_tokens: 4096 }))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(aSettings({ max_output_tokens: 4096 }))
    expect(await stored(app)).toEqual(aSettings({ max_output_tokens: 4096 }))
  })

  it('answers 400 outside 256 to 8192 or for a number that is not whole, and stores nothing', async () => {
    const app = anApp()
    for (const tokens of [255, 8193, 0, -1]) {
      await expectProblem(
        await app.handle(put({ max_output_tokens: tokens })),
        400,
        `max_output_tokens must be 256 to 8192 tokens, not ${tokens}`,
      )
    }
    for (const value of [1024.5, '1024', null]) {
      await expectProblem(
        await app.handle(put({ max_output_tokens: value })),
        400,
        /^max_output_tokens must be a whole/,
      )
    }
    expect(await stored(app)).toEqual(aSettings())
  })
})
