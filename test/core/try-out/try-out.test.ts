import { describe, expect, it } from 'bun:test'
import { parseTryOutBody } from '../../../core/try-out/try-out.ts'
import { aClassification } from '../../support/builders.ts'

function aBody(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({ repo: 'acme/widgets', pr: 42, classifications: [aClassification()], ...overrides })
}

describe('parseTryOutBody', () => {
  it('takes the body the page sends, ignoring fields it does not know', () => {
    expect(parseTryOutBody(aBody({ from_a_newer_page: true }))).toEqual({
      ok: true,
      value: { repo: { owner: 'acme', name: 'widgets' }, pr: 42, classifications: [aClassification()] },
    })
  })

  it('lists every problem at once: the repo, the PR and the classifications', () => {
    const parsed = parseTryOutBody(aBody({ repo: 'widgets', pr: 0, classifications: [] }))
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) {
      const lines = parsed.error.split('\n')
      expect(lines).toHaveLength(3)
      expect(lines[0]).toStartWith('repo must be owner/name')
      expect(lines[1]).toBe('pr must be a positive whole number, got 0')
      expect(lines[2]).toContain('classifications')
    }
  })

  it.each([
    ['not JSON', '{', "the body isn't JSON"],
    ['a list', '[]', 'the body must be a JSON object'],
    ['no pr', JSON.stringify({ repo: 'a/b', classifications: [] }), 'missing field "pr"'],
    ['neither repo nor pr', JSON.stringify({ classifications: [] }), 'missing fields "repo", "pr"'],
    ['a pr as a string', aBody({ pr: '42' }), 'pr must be a positive whole number, got "42" (a string)'],
    ['a fractional pr', aBody({ pr: 4.5 }), 'got 4.5'],
  ])('refuses %s', (_label, text, expected) => {
    const parsed = parseTryOutBody(text)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.error).toContain(expected)
  })

  it('never echoes a long value back', () => {
    const parsed = parseTryOutBody(aBody({ repo: 'x'.repeat(5_000) }))
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.error.length).toBeLessThan(300)
  })
})

describe('parseTryOutBody: repeat and replay', () => {
  it('takes repeat with one PR, and replay instead of pr', () => {
    expect(parseTryOutBody(aBody({ repeat: 5 }))).toEqual({
      ok: true,
      value: { repo: { owner: 'acme', name: 'widgets' }, pr: 42, repeat: 5, classifications: [aClassification()] },
    })
    const replay = JSON.stringify({ repo: 'acme/widgets', replay: 20, classifications: [aClassification()] })
    expect(parseTryOutBody(replay)).toEqual({
      ok: true,
      value: { repo: { owner: 'acme', name: 'widgets' }, replay: 20, classifications: [aClassification()] },
    })
  })

  it('reads examples: true instead of pr, with repeat 1 when it is left out', () => {
    const body = (repeat?: number) =>
      JSON.stringify({ repo: 'acme/widgets', examples: true, repeat, classifications: [aClassification()] })
    const value = {
      repo: { owner: 'acme', name: 'widgets' },
      examples: true as const,
      classifications: [aClassification()],
    }
    expect(parseTryOutBody(body())).toEqual({ ok: true, value: { ...value, repeat: 1 } })
    expect(parseTryOutBody(body(3))).toEqual({ ok: true, value: { ...value, repeat: 3 } })
  })

  it.each([
    ['a repeat of 0', aBody({ repeat: 0 }), 'repeat must be a whole number from 1 to 10'],
    ['a repeat of 11', aBody({ repeat: 11 }), 'got 11'],
    ['a fractional repeat', aBody({ repeat: 2.5 }), 'got 2.5'],
    ['a repeat as a string', aBody({ repeat: '3' }), 'got "3" (a string)'],
    ['a replay of 0', aBody({ pr: undefined, replay: 0 }), 'replay must be a whole number from 1 to 20'],
    ['a replay of 21', aBody({ pr: undefined, replay: 21 }), 'got 21'],
    ['a null replay', aBody({ pr: undefined, replay: null }), 'got null'],
    ['pr and replay', aBody({ replay: 3 }), 'send pr (one PR) or replay (the last N PRs), not both'],
    ['repeat with replay', aBody({ pr: undefined, replay: 3, repeat: 2 }), 'send it with pr, not with replay'],
    ['neither pr nor replay', aBody({ pr: undefined }), 'missing field "pr" (or "replay", or "examples": true)'],
    ['examples that is not true', aBody({ pr: undefined, examples: 'yes' }), 'examples must be true, got "yes"'],
    ['examples with pr', aBody({ examples: true }), 'send one of pr (one PR), replay (the last N PRs) or examples'],
    ['examples with replay', aBody({ pr: undefined, replay: 2, examples: true }), 'send one of pr'],
    ['examples with a repeat of 11', aBody({ pr: undefined, examples: true, repeat: 11 }), 'got 11'],
  ])('refuses %s', (_label, text, expected) => {
    const parsed = parseTryOutBody(text)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.error).toContain(expected)
  })

  it('names every problem at once, repeat among them', () => {
    const parsed = parseTryOutBody(aBody({ repo: 'widgets', repeat: 12, classifications: [] }))
    expect(parsed.ok ? [] : parsed.error.split('\n').map((line) => line.split(' ')[0])).toEqual([
      'repo',
      'repeat',
      'the',
    ])
  })
})
