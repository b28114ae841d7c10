import { describe, expect, it } from 'bun:test'
import { type AnyElysia, Elysia, t } from 'elysia'
import { createMemoryKv, type MemoryKv } from '../../../../adapters/memory/kv.ts'
import { createRecordingLogger, type RecordingLogger } from '../../../../adapters/memory/logger.ts'
import { appError, type ErrorCode } from '../../../../core/base/errors.ts'
import { SETTINGS_BUCKET, SETTINGS_KEY } from '../../../../core/settings/settings.ts'
import { createControllerApp } from '../../../../entrypoints/controller/http/app.ts'
import { PROBLEM_CONTENT_TYPE } from '../../../../entrypoints/controller/http/problem.ts'
import { healthRoutes } from '../../../../entrypoints/controller/http/routes/health.ts'
import { runsRoutes } from '../../../../entrypoints/controller/http/routes/runs.ts'
import { settingsRoutes } from '../../../../entrypoints/controller/http/routes/settings.ts'
import { createKvRunStore } from '../../../../entrypoints/controller/usecases/run/run-store.ts'
import { createKvSettingsStore } from '../../../../entrypoints/controller/usecases/settings/settings-store.ts'
import type { QueueLink } from '../../../../ports/queue.ts'
import { aRunRecord, aSettings } from '../../../support/builders.ts'
import { aRequest, expectProblem } from './http-support.ts'

const SETTINGS = '/api/review-classifier/settings'
const RUNS = '/api/review-classifier/runs'
const ACP = { base_url: 'https://llm.example/v1', model: 'qwen3-coder', prices: { input: 0.2, output: 0.8 } }

type Harness = { buckets: MemoryKv; app: ReturnType<typeof createControllerApp>; link: { up: boolean } }

/** The app as the controller mounts health, settings and runs, then `routes`. */
function anApp(overrides: { queue?: QueueLink | null; logger?: RecordingLogger; routes?: AnyElysia[] } = {}): Harness {
  const buckets = createMemoryKv()
  const logger = overrides.logger ?? createRecordingLogger()
  const link = { up: true }
  const queue = overrides.queue === undefined ? { connected: () => link.up } : overrides.queue
  const app = createControllerApp({
    logger,
    routes: [
      healthRoutes({ checks: [] }),
      settingsRoutes({ queue, settings: createKvSettingsStore({ buckets, logger }), logger }),
      runsRoutes({ queue, runs: createKvRunStore({ buckets, logger }), logger }),
      ...(overrides.routes ?? []),
    ],
  })
  return { buckets, app, link }
}

function put(body: string, headers: Record<string, string> = { 'remote-user': 'ann' }): Request {
  return aRequest(SETTINGS, { method: 'PUT', body, headers: { 'content-type': 'application/json', ...headers } })
}

describe('GET /api/review-classifier/settings', () => {
  it('answers the defaults with nothing stored', async () => {
    const { app } = anApp()
    const response = await app.handle(aRequest(SETTINGS))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(aSettings())
  })

  it('answers the stored settings, acp included', async () => {
    const { app, buckets } = anApp()
    await (await buckets.open(SETTINGS_BUCKET)).create(
      SETTINGS_KEY,
      JSON.stringify(aSettings({ runtime: 'acp', acp: ACP, effort: 'xhigh' })),
    )
    expect(await (await app.handle(aRequest(SETTINGS))).json()).toEqual(
      aSettings({ runtime: 'acp', acp: ACP, effort: 'xhigh' }),
    )
  })

  it('answers 503 without a queue, with the queue down, and when the bucket is unavailable or slow', async () => {
    await expectProblem(
      await anApp({ queue: null }).app.handle(aRequest(SETTINGS)),
      503,
      'this host has no swarm queue',
    )
    const down = anApp()
    down.link.up = false
    await expectProblem(await down.app.handle(aRequest(SETTINGS)), 503, 'the swarm queue is not connected')
    for (const code of ['unavailable', 'timeout'] as const) {
      const failing = anApp()
      failing.buckets.simulateFailure(appError(code, 'kv get of review-classifier-settings/all: no answer'))
      await expectProblem(await failing.app.handle(aRequest(SETTINGS)), 503, /can't be read: kv get/)
    }
  })

  it('answers 500 when the settings cannot be read for any other reason', async () => {
    const { app, buckets } = anApp()
    buckets.simulateFailure(appError('forbidden', 'permissions violation for the bucket'))
    await expectProblem(await app.handle(aRequest(SETTINGS)), 500, /can't be read: permissions violation/)
  })
})

describe('PUT /api/review-classifier/settings', () => {
  it('changes only the fields given and answers the whole document stored', async () => {
    const { app } = anApp()
    const first = await app.handle(put(JSON.stringify({ runtime: 'acp', acp: ACP })))
    expect(first.status).toBe(200)
    expect(await first.json()).toEqual(aSettings({ runtime: 'acp', acp: ACP }))
    const second = await app.handle(put(JSON.stringify({ model: 'sonnet', effort: 'high', max_concurrent_reviews: 3 })))
    expect(await second.json()).toEqual(
      aSettings({ model: 'sonnet', effort: 'high', max_concurrent_reviews: 3, runtime: 'acp', acp: ACP }),
    )
    expect(await (await app.handle(aRequest(SETTINGS))).json()).toEqual(
      aSettings({ model: 'sonnet', effort: 'high', max_concurrent_reviews: 3, runtime: 'acp', acp: ACP }),
    )
  })

  it('answers 415 for a body not sent as application/json, and changes nothing', async () => {
    const { app } = anApp()
    const response = await app.handle(
      aRequest(SETTINGS, {
        method: 'PUT',
        body: '{"model":"opus"}',
        headers: { 'remote-user': 'ann', 'content-type': 'text/plain' },
      }),
    )
    await expectProblem(response, 415, /Content-Type: application\/json .*"text\/plain"/)
    expect(await (await app.handle(aRequest(SETTINGS))).json()).toEqual(aSettings())
  })

  it('answers 401 without a Remote-User header, or a blank one, and changes nothing', async () => {
    const { app } = anApp()
    await expectProblem(await app.handle(put('{"model":"opus"}', {})), 401, /Remote-User/)
    await expectProblem(await app.handle(put('{"model":"opus"}', { 'remote-user': '  ' })), 401)
    expect(await (await app.handle(aRequest(SETTINGS))).json()).toEqual(aSettings())
  })

  it("answers 400 with core's detail for a body that isn't JSON or isn't the shape", async () => {
    const { app } = anApp()
    await expectProblem(await app.handle(put('{"model":')), 400, /isn't JSON/)
    await expectProblem(await app.handle(put('')), 400, /isn't JSON/)
    await expectProblem(
      await app.handle(put('[1]')),
      400,
      'the settings must be a JSON object of fields to change, not a list',
    )
    await expectProblem(
      await app.handle(put('{"api_key":"sk-test-secret"}')),
      400,
      'unknown field "api_key": keys belong in the secret store, never in the settings',
    )
    await expectProblem(
      await app.handle(put('{"effort":"extreme"}')),
      400,
      /effort must be one of low, medium, high, xhigh, max or null/,
    )
    await expectProblem(await app.handle(put('{"model":null}')), 400, /model can't be null/)
    await expectProblem(await app.handle(put('{"max_concurrent_reviews":2.5}')), 400, /whole number/)
    await expectProblem(await app.handle(put('{"acp":{"model":"x"}}')), 400, /acp needs base_url and prices/)
  })

  it('answers 400 for a document that would break a rule, and changes nothing', async () => {
    const { app } = anApp()
    await expectProblem(await app.handle(put('{"model":"-p"}')), 400, /can't start with "-"/)
    await expectProblem(
      await app.handle(put('{"max_concurrent_reviews":9}')),
      400,
      'max_concurrent_reviews must be 1 to 8, not 9',
    )
    await expectProblem(await app.handle(put('{"runtime":"acp"}')), 400, /runtime "acp" needs a provider/)
    await expectProblem(
      await app.handle(put(JSON.stringify({ acp: { ...ACP, base_url: 'http://llm.example' } }))),
      400,
      /https:\/\//,
    )
    expect(await (await app.handle(aRequest(SETTINGS))).json()).toEqual(aSettings())
  })

  it('answers 503 without a queue or with it down, and 500 when the write fails otherwise', async () => {
    await expectProblem(
      await anApp({ queue: null }).app.handle(put('{"model":"opus"}')),
      503,
      'this host has no swarm queue',
    )
    const down = anApp()
    down.link.up = false
    await expectProblem(await down.app.handle(put('{"model":"opus"}')), 503, 'the swarm queue is not connected')
    const slow = anApp()
    slow.buckets.simulateFailure(appError('timeout', 'kv update timed out'))
    await expectProblem(await slow.app.handle(put('{"model":"opus"}')), 503, /can't be written: kv update timed out/)
    const refused = anApp()
    refused.buckets.simulateFailure(appError('invalid', 'value too large for the server'))
    await expectProblem(await refused.app.handle(put('{"model":"opus"}')), 500, /can't be written/)
  })
})

describe('GET /api/review-classifier/runs', () => {
  it('answers the runs newest first, checking no header', async () => {
    const { app, buckets } = anApp()
    const runs = createKvRunStore({ buckets, logger: createRecordingLogger() })
    const older = aRunRecord({ id: 'older' })
    const newer = aRunRecord({
      id: 'try-1',
      trigger: 'try-out',
      outcome: 'failed',
      detail: 'classifier not running',
      head_sha: undefined,
      rows: undefined,
      overall: undefined,
      review_url: undefined,
    })
    await runs.record(older)
    await runs.record(newer)
    const response = await app.handle(aRequest(RUNS))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual([newer, older])
  })

  it('answers an empty list with nothing stored', async () => {
    expect(await (await anApp().app.handle(aRequest(RUNS))).json()).toEqual([])
  })

  it('answers 503 without a queue, with it down or unavailable, and 500 otherwise', async () => {
    await expectProblem(await anApp({ queue: null }).app.handle(aRequest(RUNS)), 503, 'this host has no swarm queue')
    const down = anApp()
    down.link.up = false
    await expectProblem(await down.app.handle(aRequest(RUNS)), 503)
    const cases: [ErrorCode, number][] = [
      ['unavailable', 503],
      ['timeout', 503],
      ['forbidden', 500],
      ['conflict', 500],
    ]
    for (const [code, status] of cases) {
      const failing = anApp()
      failing.buckets.simulateFailure(appError(code, `kv get failed (${code})`))
      await expectProblem(await failing.app.handle(aRequest(RUNS)), status, /the runs can't be read/)
    }
  })
})

describe('problem+json for every error', () => {
  const hooks = new Elysia({ name: 'test-hooks', prefix: '/hooks' })
    .post('/json', ({ body }) => body, { body: t.Object({ n: t.Number() }) })
    .get('/app-error', () => {
      throw appError('not_found', 'no such repo acme/nothing')
    })
    .get('/unprocessable', () => {
      throw appError('unprocessable', 'the rules file does not load')
    })
    .get('/internal', () => {
      throw appError('internal', 'the forge refused the push: a reason')
    })
    .get('/exhausted', () => {
      throw appError('exhausted', '5 try-outs are running')
    })
    .get('/thrown-status', ({ status }) => {
      throw status(409, 'the branch exists already')
    })
    .get('/bug', () => {
      throw new Error('secret sk-ant-test-0000 in a bug')
    })

  it('mounts route plugins passed in and answers through them', async () => {
    const { app } = anApp({ routes: [hooks] })
    const response = await app.handle(
      aRequest('/hooks/json', { method: 'POST', body: '{"n":1}', headers: { 'content-type': 'application/json' } }),
    )
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ n: 1 })
  })

  it("answers Elysia's own 404, parse and validation errors as problem+json", async () => {
    const { app } = anApp({ routes: [hooks] })
    await expectProblem(await app.handle(aRequest('/nowhere')), 404, 'no route for GET /nowhere')
    await expectProblem(await app.handle(aRequest(SETTINGS, { method: 'DELETE' })), 404)
    await expectProblem(
      await app.handle(
        aRequest('/hooks/json', { method: 'POST', body: '{"n":', headers: { 'content-type': 'application/json' } }),
      ),
      400,
      /can't be parsed/,
    )
    const detail = await expectProblem(
      await app.handle(
        aRequest('/hooks/json', {
          method: 'POST',
          body: '{"n":"sk-ant-echo"}',
          headers: { 'content-type': 'application/json' },
        }),
      ),
      400,
      /body field n/,
    )
    expect(detail).not.toContain('sk-ant-echo')
  })

  it("maps an AppError's code to its status, and an unknown error to 500 without its message", async () => {
    const logger = createRecordingLogger()
    const { app } = anApp({ routes: [hooks], logger })
    await expectProblem(await app.handle(aRequest('/hooks/app-error')), 404, 'no such repo acme/nothing')
    await expectProblem(await app.handle(aRequest('/hooks/unprocessable')), 422, 'the rules file does not load')
    await expectProblem(await app.handle(aRequest('/hooks/exhausted')), 429, '5 try-outs are running')
    // A coded 500 is an outcome its thrower logged; only the bug below counts as a failed request.
    await expectProblem(await app.handle(aRequest('/hooks/internal')), 500, 'the forge refused the push: a reason')
    await expectProblem(await app.handle(aRequest('/hooks/thrown-status')), 409, 'the branch exists already')
    const detail = await expectProblem(await app.handle(aRequest('/hooks/bug')), 500)
    expect(detail).not.toContain('sk-ant-test-0000')
    expect(JSON.stringify(logger.entries)).not.toContain('sk-ant-test-0000')
    expect(logger.withMessage('controller request failed')).toHaveLength(1)
  })
})

describe('the OpenAPI document', () => {
  it('lists every route with its statuses, mounted plugins included', async () => {
    const { app } = anApp({ routes: [new Elysia({ name: 'extra', prefix: '/hooks' }).post('/forgejo', () => 'ok')] })
    const response = await app.handle(aRequest('/openapi/json'))
    expect(response.status).toBe(200)
    const document: { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> } = JSON.parse(
      await response.text(),
    )
    expect(Object.keys(document.paths).sort()).toEqual([
      '/api/review-classifier/runs',
      '/api/review-classifier/settings',
      '/healthz',
      '/hooks/forgejo',
      '/readyz',
    ])
    expect(Object.keys(document.paths[SETTINGS] ?? {}).sort()).toEqual(['get', 'put'])
    expect(Object.keys(document.paths[SETTINGS]?.put?.responses ?? {}).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '415',
      '500',
      '503',
    ])
    expect(Object.keys(document.paths[RUNS]?.get?.responses ?? {}).sort()).toEqual(['200', '500', '503'])
    expect(JSON.stringify(document.paths[SETTINGS]?.put)).toContain('#/components/schemas/SettingsUpdate')
    const responses = document.paths[SETTINGS]?.put?.responses ?? {}
    expect(Object.keys(Object(Object(responses['200']).content))).toEqual(['application/json'])
    expect(Object.keys(Object(Object(responses['400']).content))).toEqual([PROBLEM_CONTENT_TYPE])
    expect(Object.keys(Object(Object(responses['503']).content))).toEqual([PROBLEM_CONTENT_TYPE])
    // The request guard's refusals, on every route that changes something and on none that reads.
    expect(Object(responses['415']).description).toBe('A body not sent as application/json.')
    expect(Object.keys(Object(Object(responses['403']).content))).toEqual([PROBLEM_CONTENT_TYPE])
    expect(Object.keys(document.paths['/hooks/forgejo']?.post?.responses ?? {})).toEqual(['403', '415'])
    expect(Object.keys(document.paths[RUNS]?.get?.responses ?? {}).sort()).toEqual(['200', '500', '503'])
  })

  it('serves no reference page at /openapi: no script from elsewhere runs on the admin origin', async () => {
    const { app } = anApp()
    await expectProblem(await app.handle(aRequest('/openapi')), 404)
    expect((await app.handle(aRequest('/openapi/json'))).status).toBe(200)
  })
})
