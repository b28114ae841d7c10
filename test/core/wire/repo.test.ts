import { describe, expect, it } from 'bun:test'
import { compareRepoNames, parseRepoValue, repoName } from '../../../core/wire/repo.ts'

describe('compareRepoNames', () => {
  it('orders ignoring case, then by code point, so the order is total', () => {
    expect(['b/x', 'Acme/y', 'acme/y', 'acme/Y', 'B/a'].sort(compareRepoNames)).toEqual([
      'Acme/y',
      'acme/Y',
      'acme/y',
      'B/a',
      'b/x',
    ])
  })
})

describe('parseRepoValue', () => {
  it('reads owner/name', () => {
    expect(parseRepoValue('acme/widgets.js')).toEqual({ ok: true, value: { owner: 'acme', name: 'widgets.js' } })
    expect(repoName({ owner: 'acme', name: 'widgets' })).toBe('acme/widgets')
  })

  it.each([
    ['no slash', 'widgets'],
    ['two slashes', 'acme/widgets/x'],
    ['a dot-dot part', 'acme/..'],
    ['a space', 'acme/wid gets'],
    ['a number', 42],
    ['null', null],
  ])('refuses %s, naming the shape it wants', (_label, value) => {
    const parsed = parseRepoValue(value)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.error).toStartWith('repo must be owner/name')
  })

  it('quotes at most about a hundred characters of a long value, never cutting a surrogate pair', () => {
    const parsed = parseRepoValue(`${'a'.repeat(99)}😀😀😀`)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) {
      expect(parsed.error).toEndWith(`${'a'.repeat(99)}😀…"`)
      expect(parsed.error.toWellFormed()).toBe(parsed.error)
    }
  })
})
