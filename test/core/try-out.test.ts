import { describe, expect, it } from 'bun:test'
import { parseTryOutBody } from '../../core/try-out.ts'
import { aClassification } from '../builders.ts'

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
