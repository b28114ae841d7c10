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
      settings: { runtime: 'api-key', model: 'haiku', effort: null, acp: null },
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
    })
  })

  it('picks the ACP runtime from its two flags', () => {
    const { settings } = parseCheckOptions(['--acp-base-url', 'https://llm.example/v1', '--acp-model', 'qwen3'])
    expect(settings).toMatchObject({
      runtime: 'acp',
      acp: { base_url: 'https://llm.example/v1', model: 'qwen3' },
    })
  })

  it.each([
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
