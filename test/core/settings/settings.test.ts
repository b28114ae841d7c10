import { describe, expect, it } from 'bun:test'
import {
  applySettingsUpdate,
  DEFAULT_SETTINGS,
  decodeStoredSettings,
  decodeStoredSettingsText,
  MODEL_MAX_CHARS,
  settingsForRunRequest,
  validateSettingsUpdate,
} from '../../../core/settings/settings.ts'
import type { AcpProvider, Effort, Settings } from '../../../core/wire/types.ts'

function anAcp(overrides: Partial<AcpProvider> = {}): AcpProvider {
  return {
    base_url: 'https://llm.example.com/v1',
    model: 'qwen3-coder',
    prices: { input: 0.3, output: 1.2 },
    ...overrides,
  }
}

function someSettings(overrides: Partial<Settings> = {}): Settings {
  return { ...DEFAULT_SETTINGS, ...overrides }
}

function detailOf(current: Settings, body: unknown): string {
  const result = applySettingsUpdate(current, body)
  if (result.ok) throw new Error(`expected a 400, but stored ${JSON.stringify(result.value)}`)
  return result.error
}

describe('DEFAULT_SETTINGS', () => {
  it('runs on the API key runtime on haiku at the default effort, two reviews at a time', () => {
    expect(DEFAULT_SETTINGS).toEqual({
      model: 'haiku',
      effort: null,
      max_concurrent_reviews: 2,
      runtime: 'api-key',
      acp: null,
      repo_runtimes: {},
      budget: null,
      rules_change_report: true,
      waivers_by_author: false,
      max_output_tokens: 1024,
    })
  })
})

describe('applySettingsUpdate', () => {
  type BadCase = { name: string; current?: Settings; body: unknown; mentions: string[] }

  const shapeCases: BadCase[] = [
    { name: 'a body that is a list', body: [], mentions: ['JSON object'] },
    { name: 'a body that is null', body: null, mentions: ['JSON object'] },
    { name: 'a body that is a string', body: 'model=haiku', mentions: ['JSON object'] },
    { name: 'a body that is a number', body: 3, mentions: ['JSON object'] },
    { name: 'an unknown field', body: { modle: 'haiku' }, mentions: ['modle'] },
    { name: 'an api_key field', body: { api_key: 'sk-secret' }, mentions: ['api_key', 'secret store'] },
    { name: 'an unknown field inside acp', body: { acp: { ...anAcp(), api_key: 'k' } }, mentions: ['acp.api_key'] },
    {
      name: 'an unknown field inside acp.prices',
      body: { acp: { ...anAcp(), prices: { input: 1, output: 2, reasoning: 3 } } },
      mentions: ['acp.prices.reasoning'],
    },
    { name: 'a null model', body: { model: null }, mentions: ['model', 'null'] },
    {
      name: 'a null max_concurrent_reviews',
      body: { max_concurrent_reviews: null },
      mentions: ['max_concurrent_reviews', 'null'],
    },
    { name: 'a null runtime', body: { runtime: null }, mentions: ['runtime', 'null'] },
    { name: 'a null acp.base_url', body: { acp: { ...anAcp(), base_url: null } }, mentions: ['acp.base_url', 'null'] },
    { name: 'a null acp.model', body: { acp: { ...anAcp(), model: null } }, mentions: ['acp.model', 'null'] },
    { name: 'a null acp.prices', body: { acp: { ...anAcp(), prices: null } }, mentions: ['acp.prices', 'null'] },
    {
      name: 'a null acp.prices.cache_read',
      body: { acp: { ...anAcp(), prices: { input: 1, output: 1, cache_read: null } } },
      mentions: ['acp.prices.cache_read', 'null'],
    },
    { name: 'a model that is not a string', body: { model: 42 }, mentions: ['model', 'string'] },
    { name: 'an effort outside the five levels', body: { effort: 'extreme' }, mentions: ['effort', 'low', 'max'] },
    { name: 'an effort in capitals', body: { effort: 'HIGH' }, mentions: ['effort'] },
    {
      name: 'a fractional max_concurrent_reviews',
      body: { max_concurrent_reviews: 2.5 },
      mentions: ['max_concurrent_reviews', 'whole number'],
    },
    {
      name: 'a max_concurrent_reviews as a string',
      body: { max_concurrent_reviews: '2' },
      mentions: ['max_concurrent_reviews', 'whole number'],
    },
    {
      name: 'a max_concurrent_reviews as a boolean',
      body: { max_concurrent_reviews: true },
      mentions: ['max_concurrent_reviews', 'whole number'],
    },
    {
      name: 'a runtime other than the three',
      body: { runtime: 'local' },
      mentions: ['runtime', 'api-key', 'acp', 'subscription'],
    },
    { name: 'an acp that is not an object', body: { acp: 'https://llm.example.com' }, mentions: ['acp'] },
    { name: 'an acp that is a list', body: { acp: [] }, mentions: ['acp'] },
    {
      name: 'an acp without base_url',
      body: { acp: { model: 'm', prices: { input: 1, output: 1 } } },
      mentions: ['base_url'],
    },
    {
      name: 'an acp without model',
      body: { acp: { base_url: 'https://x.example', prices: { input: 1, output: 1 } } },
      mentions: ['model'],
    },
    {
      name: 'an acp without prices',
      body: { acp: { base_url: 'https://x.example', model: 'm' } },
      mentions: ['prices'],
    },
    {
      name: 'prices without input',
      body: { acp: { ...anAcp(), prices: { output: 1 } } },
      mentions: ['acp.prices', 'input'],
    },
    {
      name: 'prices without output',
      body: { acp: { ...anAcp(), prices: { input: 1 } } },
      mentions: ['acp.prices', 'output'],
    },
    {
      name: 'a price given as a string',
      body: { acp: { ...anAcp(), prices: { input: '0.3', output: 1 } } },
      mentions: ['acp.prices.input', 'number'],
    },
    { name: 'prices that are not an object', body: { acp: { ...anAcp(), prices: 3 } }, mentions: ['acp.prices'] },
    {
      name: 'an acp.base_url that is not a string',
      body: { acp: { ...anAcp(), base_url: 443 } },
      mentions: ['acp.base_url', 'string'],
    },
  ]

  const ruleCases: BadCase[] = [
    { name: 'an empty model', body: { model: '' }, mentions: ['model', 'empty'] },
    { name: 'a model with a space', body: { model: 'claude haiku' }, mentions: ['model', 'whitespace'] },
    { name: 'a model with a tab', body: { model: 'haiku\t' }, mentions: ['model', 'whitespace'] },
    { name: 'a model with a no-break space', body: { model: 'haiku\u00a0x' }, mentions: ['model', 'whitespace'] },
    { name: 'a model with an ideographic space', body: { model: 'haiku\u3000' }, mentions: ['model', 'whitespace'] },
    { name: 'a model starting with -', body: { model: '-haiku' }, mentions: ['model', '"-"'] },
    {
      name: 'a max_concurrent_reviews of 0',
      body: { max_concurrent_reviews: 0 },
      mentions: ['max_concurrent_reviews', '1 to 8'],
    },
    {
      name: 'a max_concurrent_reviews of 9',
      body: { max_concurrent_reviews: 9 },
      mentions: ['max_concurrent_reviews', '1 to 8'],
    },
    {
      name: 'a negative max_concurrent_reviews',
      body: { max_concurrent_reviews: -1 },
      mentions: ['max_concurrent_reviews'],
    },
    {
      name: 'an http:// base_url',
      body: { acp: anAcp({ base_url: 'http://llm.example.com/v1' }) },
      mentions: ['acp.base_url', 'https://'],
    },
    {
      name: 'an https:// base_url with no host',
      body: { acp: anAcp({ base_url: 'https://' }) },
      mentions: ['acp.base_url'],
    },
    {
      name: 'a base_url that is not a URL',
      body: { acp: anAcp({ base_url: 'llm.example.com' }) },
      mentions: ['acp.base_url'],
    },
    { name: 'an empty base_url', body: { acp: anAcp({ base_url: '' }) }, mentions: ['acp.base_url'] },
    {
      name: 'a base_url with whitespace',
      body: { acp: anAcp({ base_url: ' https://llm.example.com' }) },
      mentions: ['acp.base_url', 'whitespace'],
    },
    {
      name: 'a base_url carrying credentials',
      body: { acp: anAcp({ base_url: 'https://u:sk@llm.example.com' }) },
      mentions: ['acp.base_url', 'secret store'],
    },
    { name: 'an empty acp.model', body: { acp: anAcp({ model: '' }) }, mentions: ['acp.model', 'empty'] },
    {
      name: 'an acp.model with whitespace',
      body: { acp: anAcp({ model: 'qwen 3' }) },
      mentions: ['acp.model', 'whitespace'],
    },
    {
      name: 'a negative input price',
      body: { acp: anAcp({ prices: { input: -0.1, output: 1 } }) },
      mentions: ['acp.prices.input'],
    },
    {
      name: 'a negative output price',
      body: { acp: anAcp({ prices: { input: 0, output: -1 } }) },
      mentions: ['acp.prices.output'],
    },
    {
      name: 'a negative cache_write price',
      body: { acp: anAcp({ prices: { input: 0, output: 0, cache_write: -2 } }) },
      mentions: ['acp.prices.cache_write'],
    },
    {
      name: 'a NaN price passed in code',
      body: { acp: anAcp({ prices: { input: Number.NaN, output: 0 } }) },
      mentions: ['acp.prices.input'],
    },
    { name: 'the acp runtime with no acp stored', body: { runtime: 'acp' }, mentions: ['runtime', 'acp'] },
    {
      name: 'the acp runtime with acp cleared',
      current: someSettings({ acp: anAcp() }),
      body: { runtime: 'acp', acp: null },
      mentions: ['acp'],
    },
    {
      name: 'a max_output_tokens that is not a whole number',
      body: { max_output_tokens: 1024.5 },
      mentions: ['max_output_tokens must be a whole number of tokens, not 1024.5'],
    },
    {
      name: 'a max_output_tokens of null',
      body: { max_output_tokens: null },
      mentions: ['max_output_tokens must be a whole number of tokens, not null'],
    },
    {
      name: 'a max_output_tokens below 256',
      body: { max_output_tokens: 255 },
      mentions: ['max_output_tokens must be 256 to 8192 tokens, not 255'],
    },
    {
      name: 'a max_output_tokens above 8192',
      body: { max_output_tokens: 8193 },
      mentions: ['max_output_tokens must be 256 to 8192 tokens, not 8193'],
    },
    {
      name: 'a rules_change_report that is not a boolean',
      body: { rules_change_report: 'no' },
      mentions: ['rules_change_report must be true or false, not "no"'],
    },
    {
      name: 'a waivers_by_author that is not a boolean',
      body: { waivers_by_author: null },
      mentions: ['waivers_by_author must be true or false, not null'],
    },
    {
      name: 'clearing acp while the acp runtime is stored',
      current: someSettings({ runtime: 'acp', acp: anAcp() }),
      body: { acp: null },
      mentions: ['runtime', 'acp'],
    },
  ]

  for (const { name, current, body, mentions } of [...shapeCases, ...ruleCases]) {
    it(`refuses ${name}, naming the field`, () => {
      const detail = detailOf(current ?? DEFAULT_SETTINGS, body)
      for (const word of mentions) expect(detail).toContain(word)
    })
  }

  it('reports every problem of one body in its detail', () => {
    const detail = detailOf(DEFAULT_SETTINGS, { effort: 'huge', runtime: 'local', colour: 'red' })
    expect(detail).toContain('effort')
    expect(detail).toContain('runtime')
    expect(detail).toContain('colour')
  })

  const goodCases: { name: string; current: Settings; body: object; stored: Settings }[] = [
    { name: 'an empty body keeps everything', current: DEFAULT_SETTINGS, body: {}, stored: DEFAULT_SETTINGS },
    {
      name: 'a left-out field keeps its stored value',
      current: someSettings({ model: 'sonnet', effort: 'high', max_concurrent_reviews: 5 }),
      body: { max_concurrent_reviews: 3 },
      stored: someSettings({ model: 'sonnet', effort: 'high', max_concurrent_reviews: 3 }),
    },
    {
      name: 'null clears effort',
      current: someSettings({ effort: 'max' }),
      body: { effort: null },
      stored: someSettings({ effort: null }),
    },
    {
      name: 'null clears acp on the api-key runtime',
      current: someSettings({ acp: anAcp() }),
      body: { acp: null },
      stored: someSettings({ acp: null }),
    },
    {
      name: 'the form fields alone leave the runtime and acp as they were',
      current: someSettings({ runtime: 'acp', acp: anAcp() }),
      body: { model: 'sonnet', effort: 'low', max_concurrent_reviews: 8 },
      stored: someSettings({ runtime: 'acp', acp: anAcp(), model: 'sonnet', effort: 'low', max_concurrent_reviews: 8 }),
    },
    {
      name: 'switching to api-key keeps acp stored',
      current: someSettings({ runtime: 'acp', acp: anAcp() }),
      body: { runtime: 'api-key' },
      stored: someSettings({ runtime: 'api-key', acp: anAcp() }),
    },
    {
      name: 'switching back to acp uses the acp kept stored',
      current: someSettings({ runtime: 'api-key', acp: anAcp() }),
      body: { runtime: 'acp' },
      stored: someSettings({ runtime: 'acp', acp: anAcp() }),
    },
    {
      name: 'a given acp replaces the stored one whole',
      current: someSettings({ acp: anAcp({ prices: { input: 1, output: 2, cache_read: 0.1 } }) }),
      body: { acp: { base_url: 'https://other.example', model: 'm2', prices: { input: 0, output: 0 } } },
      stored: someSettings({
        acp: { base_url: 'https://other.example', model: 'm2', prices: { input: 0, output: 0 } },
      }),
    },
    {
      name: 'every field at once, with both cache prices',
      current: DEFAULT_SETTINGS,
      body: {
        model: 'claude-haiku-4-5',
        effort: 'xhigh',
        max_concurrent_reviews: 1,
        runtime: 'acp',
        acp: anAcp({ prices: { input: 0, output: 0, cache_read: 0, cache_write: 0.5 } }),
        repo_runtimes: { 'acme/*': 'none' },
        rules_change_report: false,
        waivers_by_author: true,
        max_output_tokens: 2048,
      },
      stored: {
        model: 'claude-haiku-4-5',
        effort: 'xhigh',
        max_concurrent_reviews: 1,
        runtime: 'acp',
        acp: anAcp({ prices: { input: 0, output: 0, cache_read: 0, cache_write: 0.5 } }),
        repo_runtimes: { 'acme/*': 'none' },
        budget: null,
        rules_change_report: false,
        waivers_by_author: true,
        max_output_tokens: 2048,
      },
    },
  ]

  for (const { name, current, body, stored } of goodCases) {
    it(`stores the merged document: ${name}`, () => {
      expect(applySettingsUpdate(current, body)).toEqual({ ok: true, value: stored })
    })
  }

  it('accepts each of the five effort levels', () => {
    for (const effort of ['low', 'medium', 'high', 'xhigh', 'max'] satisfies Effort[]) {
      expect(applySettingsUpdate(DEFAULT_SETTINGS, { effort })).toEqual({ ok: true, value: someSettings({ effort }) })
    }
  })

  it('accepts the ends of the 1 to 8 range', () => {
    expect(applySettingsUpdate(DEFAULT_SETTINGS, { max_concurrent_reviews: 1 }).ok).toBe(true)
    expect(applySettingsUpdate(DEFAULT_SETTINGS, { max_concurrent_reviews: 8 }).ok).toBe(true)
  })

  it(`bounds model and acp.model at ${MODEL_MAX_CHARS} characters, naming the field`, () => {
    expect(applySettingsUpdate(DEFAULT_SETTINGS, { model: 'm'.repeat(MODEL_MAX_CHARS) }).ok).toBe(true)
    expect(detailOf(DEFAULT_SETTINGS, { model: 'm'.repeat(300_000) })).toBe(
      `model is 300000 characters long; at most ${MODEL_MAX_CHARS} are allowed`,
    )
    expect(detailOf(DEFAULT_SETTINGS, { acp: anAcp({ model: 'q'.repeat(MODEL_MAX_CHARS + 1) }) })).toBe(
      `acp.model is ${MODEL_MAX_CHARS + 1} characters long; at most ${MODEL_MAX_CHARS} are allowed`,
    )
    // A stored document, or a run request, is held to the same bound.
    expect(decodeStoredSettings({ ...DEFAULT_SETTINGS, model: 'm'.repeat(MODEL_MAX_CHARS + 1) }).settings).toBeNull()
  })

  it('quotes a bad value or field name in a few hundred characters at most, invisible characters escaped', () => {
    const huge = 'x'.repeat(900_000)
    for (const body of [{ [huge]: 1 }, { model: `${huge} y` }, { effort: huge }, { acp: anAcp({ base_url: huge }) }]) {
      expect(detailOf(DEFAULT_SETTINGS, body).length).toBeLessThan(400)
    }
    expect(detailOf(DEFAULT_SETTINGS, { model: 'a\u202eb c' })).toBe(
      'model must be one word, and "a\\u202eb c" has whitespace',
    )
  })

  it('accepts a model with a dash inside it', () => {
    expect(applySettingsUpdate(DEFAULT_SETTINGS, { model: 'claude-sonnet-4-5' }).ok).toBe(true)
  })

  it('refuses a stored rule breach only when the merged document still breaks it', () => {
    // A document stored with max 8 can take a PUT of other fields; only the result is checked.
    const current = someSettings({ max_concurrent_reviews: 8 })
    expect(applySettingsUpdate(current, { model: 'opus' }).ok).toBe(true)
  })

  it('leaves the current document untouched', () => {
    const current = someSettings({ acp: anAcp() })
    const before = structuredClone(current)
    applySettingsUpdate(current, { model: 'opus', acp: null })
    expect(current).toEqual(before)
  })
})

describe('validateSettingsUpdate', () => {
  it('answers only the fields the body gave', () => {
    expect(validateSettingsUpdate({ effort: null, model: 'sonnet' })).toEqual({
      ok: true,
      value: { effort: null, model: 'sonnet' },
    })
  })

  it('leaves the value rules to the merge', () => {
    expect(validateSettingsUpdate({ max_concurrent_reviews: 99 }).ok).toBe(true)
  })
})

describe('decodeStoredSettings', () => {
  it('decodes a whole valid document', () => {
    const stored = someSettings({ model: 'sonnet', effort: 'low', runtime: 'acp', acp: anAcp() })
    expect(decodeStoredSettings(structuredClone(stored))).toEqual({ settings: stored, warning: null })
  })

  it('ignores unknown fields at every level', () => {
    const raw = {
      model: 'sonnet',
      colour: 'red',
      runtime: 'acp',
      acp: { ...anAcp(), region: 'eu', prices: { input: 1, output: 2, batch: 0.5 } },
    }
    expect(decodeStoredSettings(raw)).toEqual({
      settings: someSettings({ model: 'sonnet', runtime: 'acp', acp: anAcp({ prices: { input: 1, output: 2 } }) }),
      warning: null,
    })
  })

  it('gives a missing known field its default, as an older build may have written fewer fields', () => {
    expect(decodeStoredSettings({ model: 'opus' })).toEqual({
      settings: someSettings({ model: 'opus' }),
      warning: null,
    })
  })

  const undecodable: { name: string; raw: unknown; mentions: string }[] = [
    { name: 'a list', raw: [DEFAULT_SETTINGS], mentions: 'JSON object' },
    { name: 'null', raw: null, mentions: 'JSON object' },
    { name: 'a model of the wrong type', raw: { model: 7 }, mentions: 'model' },
    { name: 'an unknown effort', raw: { effort: 'ultra' }, mentions: 'effort' },
    { name: 'a fractional limit', raw: { max_concurrent_reviews: 1.5 }, mentions: 'max_concurrent_reviews' },
    { name: 'a limit out of range', raw: { max_concurrent_reviews: 12 }, mentions: 'max_concurrent_reviews' },
    { name: 'an unknown runtime', raw: { runtime: 'local' }, mentions: 'runtime' },
    { name: 'a partial acp', raw: { acp: { model: 'm' } }, mentions: 'base_url' },
    { name: 'an http base_url', raw: { acp: anAcp({ base_url: 'http://x.example' }) }, mentions: 'acp.base_url' },
    { name: 'the acp runtime without acp', raw: { runtime: 'acp' }, mentions: 'runtime' },
  ]

  for (const { name, raw, mentions } of undecodable) {
    it(`counts ${name} as no document, with a warning naming the problem`, () => {
      const decoded = decodeStoredSettings(raw)
      expect(decoded.settings).toBeNull()
      expect(decoded.warning).toContain(mentions)
      expect(decoded.warning).toContain('defaults')
    })
  }
})

describe('decodeStoredSettingsText', () => {
  it('decodes the KV value as text', () => {
    expect(decodeStoredSettingsText('{"model":"sonnet","future":true}')).toEqual({
      settings: someSettings({ model: 'sonnet' }),
      warning: null,
    })
  })

  it('counts text that is not JSON as no document, with a warning', () => {
    const decoded = decodeStoredSettingsText('{"model":')
    expect(decoded.settings).toBeNull()
    expect(decoded.warning).toContain('JSON')
  })
})

describe('settingsForRunRequest', () => {
  it('carries the runtime, model, effort, acp and output cap, and not the review limit', () => {
    const settings = someSettings({
      model: 'sonnet',
      effort: 'high',
      runtime: 'acp',
      acp: anAcp(),
      max_concurrent_reviews: 4,
      max_output_tokens: 512,
    })
    expect(settingsForRunRequest(settings)).toEqual({
      runtime: 'acp',
      model: 'sonnet',
      effort: 'high',
      acp: anAcp(),
      max_output_tokens: 512,
    })
  })

  it('copies acp so a change to the request cannot reach the document', () => {
    const settings = someSettings({ acp: anAcp() })
    const request = settingsForRunRequest(settings)
    if (request.acp === null) throw new Error('expected the request to carry acp')
    request.acp.prices.input = 99
    request.acp.model = 'changed'
    expect(settings.acp).toEqual(anAcp())
  })
})
