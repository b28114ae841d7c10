import { describe, expect, it } from 'bun:test'
import { createMemoryKv } from '../../../../../adapters/memory/kv.ts'
import { createRecordingLogger } from '../../../../../adapters/memory/logger.ts'
import { appError, isAppError } from '../../../../../core/base/errors.ts'
import { DEFAULT_SETTINGS, SETTINGS_BUCKET, SETTINGS_KEY } from '../../../../../core/settings/settings.ts'
import {
  createKvSettingsStore,
  UNDECODABLE_SETTINGS_MESSAGE,
} from '../../../../../entrypoints/controller/usecases/settings/settings-store.ts'
import { aSettings } from '../../../../support/builders.ts'
import { failureOf } from '../../http/http-support.ts'

const ACP = { base_url: 'https://llm.example/v1', model: 'qwen3-coder', prices: { input: 0.2, output: 0.8 } }

function aStore() {
  const buckets = createMemoryKv()
  const logger = createRecordingLogger()
  return { buckets, logger, store: createKvSettingsStore({ buckets, logger }) }
}

async function storeRaw(buckets: ReturnType<typeof createMemoryKv>, value: string): Promise<void> {
  const kv = await buckets.open(SETTINGS_BUCKET)
  const entry = await kv.get(SETTINGS_KEY)
  if (entry === null) await kv.create(SETTINGS_KEY, value)
  else await kv.update(SETTINGS_KEY, value, entry.revision)
}

async function stored(buckets: ReturnType<typeof createMemoryKv>): Promise<unknown> {
  const entry = await (await buckets.open(SETTINGS_BUCKET)).get(SETTINGS_KEY)
  return entry === null ? null : JSON.parse(entry.value)
}

describe('createKvSettingsStore', () => {
  it('reads the defaults when nothing is stored, and writes nothing', async () => {
    const { store, buckets, logger } = aStore()
    expect(await store.read()).toEqual(DEFAULT_SETTINGS)
    expect(await stored(buckets)).toBeNull()
    expect(logger.entries).toEqual([])
  })

  it('hands out a copy of the defaults, so a caller changing it changes nothing', async () => {
    const { store } = aStore()
    const first = await store.read()
    first.model = 'opus'
    expect((await store.read()).model).toBe('haiku')
  })

  it('reads the stored document, ignoring fields it does not know', async () => {
    const { store, buckets } = aStore()
    await storeRaw(buckets, JSON.stringify({ ...aSettings({ model: 'sonnet', effort: 'high' }), colour: 'blue' }))
    expect(await store.read()).toEqual(aSettings({ model: 'sonnet', effort: 'high' }))
  })

  it('reads an undecodable document as the defaults with one warning per stored revision', async () => {
    const { store, buckets, logger } = aStore()
    await storeRaw(buckets, '{"model": 42}')
    expect(await store.read()).toEqual(DEFAULT_SETTINGS)
    expect(await store.read()).toEqual(DEFAULT_SETTINGS)
    expect(logger.withMessage(UNDECODABLE_SETTINGS_MESSAGE)).toHaveLength(1)
    expect(logger.withMessage(UNDECODABLE_SETTINGS_MESSAGE)[0]?.level).toBe('warn')
    expect(String(logger.withMessage(UNDECODABLE_SETTINGS_MESSAGE)[0]?.fields.reason)).toContain('model')

    await storeRaw(buckets, 'not json')
    expect(await store.read()).toEqual(DEFAULT_SETTINGS)
    expect(logger.withMessage(UNDECODABLE_SETTINGS_MESSAGE)).toHaveLength(2)
  })

  it('merges a PUT into the stored document and answers what a read then sees', async () => {
    const { store, buckets } = aStore()
    await storeRaw(buckets, JSON.stringify(aSettings({ runtime: 'acp', acp: ACP })))
    const updated = await store.update({ model: 'sonnet', effort: 'low', max_concurrent_reviews: 4 })
    const expected = aSettings({ model: 'sonnet', effort: 'low', max_concurrent_reviews: 4, runtime: 'acp', acp: ACP })
    expect(updated).toEqual({ ok: true, value: expected })
    expect(await stored(buckets)).toEqual(expected)
    expect(await store.read()).toEqual(expected)
  })

  it('writes the first document on top of the defaults', async () => {
    const { store, buckets } = aStore()
    expect(await store.update({ acp: ACP })).toEqual({ ok: true, value: aSettings({ acp: ACP }) })
    expect(await stored(buckets)).toEqual(aSettings({ acp: ACP }))
  })

  it('replaces an undecodable stored document, starting from the defaults', async () => {
    const { store, buckets } = aStore()
    await storeRaw(buckets, '[1, 2, 3]')
    expect(await store.update({ model: 'opus' })).toEqual({ ok: true, value: aSettings({ model: 'opus' }) })
    expect(await stored(buckets)).toEqual(aSettings({ model: 'opus' }))
  })

  it("refuses a body of the wrong shape or breaking a rule with core's detail, writing nothing", async () => {
    const { store, buckets } = aStore()
    await storeRaw(buckets, JSON.stringify(aSettings({ model: 'sonnet' })))
    expect(await store.update({ api_key: 'sk-test-123' })).toEqual({
      ok: false,
      error: 'unknown field "api_key": keys belong in the secret store, never in the settings',
    })
    const refused = await store.update({ runtime: 'acp' })
    expect(refused.ok).toBe(false)
    if (!refused.ok) expect(refused.error).toContain('runtime "acp" needs a provider')
    expect(await stored(buckets)).toEqual(aSettings({ model: 'sonnet' }))
  })

  it('loses no change to concurrent PUTs of different fields', async () => {
    const { store } = aStore()
    const results = await Promise.all([
      store.update({ model: 'sonnet' }),
      store.update({ effort: 'max' }),
      store.update({ max_concurrent_reviews: 5 }),
      store.update({ acp: ACP }),
    ])
    expect(results.every((result) => result.ok)).toBe(true)
    expect(await store.read()).toEqual(
      aSettings({ model: 'sonnet', effort: 'max', max_concurrent_reviews: 5, acp: ACP }),
    )
  })

  it('lets unavailable and timeout through, for the routes to answer 503', async () => {
    for (const code of ['unavailable', 'timeout'] as const) {
      const { store, buckets } = aStore()
      buckets.simulateFailure(appError(code, 'the queue is away'))
      expect(isAppError(await failureOf(store.read()), code)).toBe(true)
      expect(isAppError(await failureOf(store.update({ model: 'sonnet' })), code)).toBe(true)
    }
  })

  it('lets any other store failure through as the AppError it is', async () => {
    const { store, buckets } = aStore()
    buckets.simulateFailure(appError('forbidden', 'the bucket refuses us'))
    expect(isAppError(await failureOf(store.read()), 'forbidden')).toBe(true)
  })
})
