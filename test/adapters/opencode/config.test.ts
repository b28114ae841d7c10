import { describe, expect, it } from 'bun:test'
import { KEY_ENV_NAME, opencodeConfig, opencodeEnv, pickPassEnv, runDirs } from '../../../adapters/opencode/config.ts'
import { shortDetail } from '../../../adapters/opencode/runtime.ts'

const BASE = { baseUrl: 'https://llm.example/v1', model: 'Qwen/Qwen3-35B', system: 'sys', maxOutputTokens: 1024 }

describe('pickPassEnv', () => {
  it('takes only the proxy and CA variables, skipping empty ones', () => {
    expect(
      pickPassEnv({
        HTTPS_PROXY: 'http://proxy:3128',
        NO_PROXY: '',
        SSL_CERT_FILE: '/ca.pem',
        PATH: '/bin',
        ANTHROPIC_BASE_URL: 'x',
      }),
    ).toEqual({
      HTTPS_PROXY: 'http://proxy:3128',
      SSL_CERT_FILE: '/ca.pem',
    })
  })
})

describe('opencodeConfig', () => {
  it('names the key only as an env reference', () => {
    const text = JSON.stringify(opencodeConfig({ ...BASE, effort: null }))
    expect(text).toContain(`"apiKey":"{env:${KEY_ENV_NAME}}"`)
  })

  it('gives the model no variant without an effort, and the output cap as its limit.output', () => {
    const config = opencodeConfig({ ...BASE, effort: null })
    expect(Reflect.get(Object(config.provider), 'acp').models).toEqual({
      'Qwen/Qwen3-35B': { name: 'Qwen/Qwen3-35B', limit: { context: 0, output: 1024 } },
    })
  })

  it('makes the effort the only variant, claude-only levels asking for high', () => {
    const config = opencodeConfig({ ...BASE, effort: 'max' })
    expect(Reflect.get(Object(config.provider), 'acp').models['Qwen/Qwen3-35B'].variants).toEqual({
      max: { reasoningEffort: 'high' },
    })
  })
})

describe('opencodeEnv', () => {
  it('puts every opencode directory under the private root and the key in its one variable', () => {
    const env = opencodeEnv({
      dirs: runDirs('/r'),
      apiKey: 'k',
      serverPassword: 'p',
      passEnv: { HTTPS_PROXY: 'http://proxy' },
    })
    expect([
      env.HOME,
      env.XDG_CONFIG_HOME,
      env.XDG_DATA_HOME,
      env.XDG_STATE_HOME,
      env.XDG_CACHE_HOME,
      env.TMPDIR,
      env.OPENCODE_CONFIG,
    ]).toEqual(['/r/home', '/r/config', '/r/data', '/r/state', '/r/cache', '/r/tmp', '/r/opencode.json'])
    expect(Object.entries(env).filter(([, value]) => value === 'k')).toEqual([[KEY_ENV_NAME, 'k']])
    expect(env.HTTPS_PROXY).toBe('http://proxy')
  })
})

describe('shortDetail', () => {
  it('redacts the secrets, joins the lines and caps the length', () => {
    const detail = shortDetail(`bad key sk-secret-1\n  at line 2 ${'x'.repeat(400)}`, ['sk-secret-1'])
    expect(detail.startsWith('bad key [redacted] at line 2 x')).toBe(true)
    expect(detail).not.toContain('\n')
    expect(detail.length).toBe(300)
  })
})
