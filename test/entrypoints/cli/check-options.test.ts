import { describe, expect, it } from 'bun:test'
import { parseCheckOptions } from '../../../entrypoints/cli/check-options.ts'

describe('parseCheckOptions', () => {
  it("defaults to the service's settings on the API key runtime", () => {
    expect(parseCheckOptions([])).toEqual({
      base: null,
      head: 'HEAD',
      rules: null,
      json: false,
      repo: null,
      title: null,
      pr: 1,
      examples: false,
      repeat: 1,
      settings: { runtime: 'api-key', model: 'haiku', effort: null, acp: null, max_output_tokens: 1024 },
    })
  })

  it('takes --examples with a number of answers per labelled PR', () => {
    expect(parseCheckOptions(['--examples', '--repeat', '3'])).toMatchObject({ examples: true, repeat: 3 })
  })

  it('takes a model and an effort for claude', () => {
    expect(parseCheckOptions(['--model', 'sonnet', '--effort', 'low']).settings).toEqual({
      runtime: 'api-key',
      model: 'sonnet',
      effort: 'low',
      acp: null,
      max_output_tokens: 1024,
    })
  })

  it('picks the ACP runtime from its two flags', () => {
    const { settings } = parseCheckOptions(['--acp-base-url', 'https://llm.example/v1', '--acp-model', 'qwen3'])
    expect(settings).toMatchObject({
      runtime: 'acp',
      acp: { base_url: 'https://llm.example/v1', model: 'qwen3' },
    })
  })

  describe('the claude credential', () => {
    const KEY = { ANTHROPIC_API_KEY: 'sk-ant-check-options' }
    const TOKEN = { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-check-options' }

    it.each([
      ['only ANTHROPIC_API_KEY', KEY, 'api-key'],
      ['only CLAUDE_CODE_OAUTH_TOKEN', TOKEN, 'subscription'],
      ['neither (the run then stops on the missing key)', {}, 'api-key'],
      ['an OAuth token that is only spaces', { ...KEY, CLAUDE_CODE_OAUTH_TOKEN: '  ' }, 'api-key'],
    ] as const)('with %s picks %s', (_name, env, runtime) => {
      expect(parseCheckOptions([], env).settings.runtime).toBe(runtime)
    })

    it('refuses both set without --runtime, and takes either with it', () => {
      expect(() => parseCheckOptions([], { ...KEY, ...TOKEN })).toThrow(
        'both ANTHROPIC_API_KEY and CLAUDE_CODE_OAUTH_TOKEN are set: choose with --runtime api-key or --runtime subscription',
      )
      expect(parseCheckOptions(['--runtime', 'subscription'], { ...KEY, ...TOKEN }).settings).toEqual({
        runtime: 'subscription',
        model: 'haiku',
        effort: null,
        acp: null,
        max_output_tokens: 1024,
      })
      expect(parseCheckOptions(['--runtime', 'api-key'], { ...KEY, ...TOKEN }).settings.runtime).toBe('api-key')
    })

    it('runs the subscription on the same --model and --effort as the API key', () => {
      const { settings } = parseCheckOptions(['--runtime', 'subscription', '--model', 'sonnet', '--effort', 'low'])
      expect(settings).toEqual({
        runtime: 'subscription',
        model: 'sonnet',
        effort: 'low',
        acp: null,
        max_output_tokens: 1024,
      })
    })

    it('lets the ACP flags pick the ACP runtime whatever claude credentials are set', () => {
      const args = ['--acp-base-url', 'https://llm.example/v1', '--acp-model', 'qwen3']
      expect(parseCheckOptions(args, { ...KEY, ...TOKEN }).settings.runtime).toBe('acp')
      expect(parseCheckOptions(['--runtime', 'acp', ...args]).settings.runtime).toBe('acp')
    })
  })

  it.each([
    [['--runtime', 'local'], '--runtime must be one of "api-key", "acp", "subscription", not the string "local"'],
    [['--runtime', 'acp'], 'needs both --acp-base-url and --acp-model'],
    [['--runtime', 'subscription', '--acp-base-url', 'https://x', '--acp-model', 'm'], 'not --runtime subscription'],
    [['--effort', 'huge'], '--effort must be one of low, medium, high, xhigh, max, not the string "huge"'],
    [['--model=-x'], '--model can\'t start with "-"'],
    [['--model', 'two words'], '--model must be one word'],
    [['--acp-base-url', 'http://llm.example', '--acp-model', 'm'], '--acp-base-url must be an https:// URL'],
    [['--acp-model', 'm'], 'needs both --acp-base-url and --acp-model'],
    [['--acp-base-url', 'https://x', '--acp-model', 'm', '--model', 'haiku'], 'use --acp-model'],
    [['--pr', '0'], '--pr must be a positive whole number'],
    [['--pr', '1e3'], '--pr must be a positive whole number'],
    [['--repo', 'widgets'], '--repo must be owner/name'],
    [['--base', ''], '--base needs a branch'],
    [['main'], 'no positional argument'],
    [['--repeat', '2'], '--repeat goes with --examples'],
    [['--examples', '--repeat', '11'], '--repeat must be a whole number from 1 to 10'],
    [['--examples', '--repeat', '0'], '--repeat must be a whole number from 1 to 10'],
    [['--examples', '--head', 'x'], '--head does not go with --examples'],
    [['--examples', '--pr=3'], '--pr does not go with --examples'],
  ])('refuses %p', (args, message) => {
    expect(() => parseCheckOptions(args)).toThrow(message)
  })
})
