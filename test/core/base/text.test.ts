import { describe, expect, it } from 'bun:test'
import { capDetail, codePointName, DETAIL_MAX_CHARS, QUOTED_MAX_CHARS, quoteInput } from '../../../core/base/text.ts'

describe('quoteInput', () => {
  it('quotes a short value as JSON does', () => {
    expect(quoteInput('no-ads')).toBe('"no-ads"')
    expect(quoteInput('a"b\\c\nd')).toBe(JSON.stringify('a"b\\c\nd'))
  })

  it('escapes what a reader cannot see, or what would reorder the message around it', () => {
    expect(quoteInput('no-ads\u200b')).toBe('"no-ads\\u200b"')
    expect(quoteInput('a\u202eb\u2066c\u2069')).toBe('"a\\u202eb\\u2066c\\u2069"')
    expect(quoteInput('\ufeffx\u00ad\u0085\u007f')).toBe('"\\ufeffx\\u00ad\\u0085\\u007f"')
    expect(quoteInput('a\u2028b\u2029')).toBe('"a\\u2028b\\u2029"')
    expect(quoteInput('\u{E0001}')).toBe('"\\udb40\\udc01"')
    expect(quoteInput('\ud800')).toBe('"\\ud800"')
  })

  it(`keeps at most ${QUOTED_MAX_CHARS} characters between the quotes, cut with …, never inside an escape`, () => {
    expect(quoteInput('x'.repeat(900_000))).toBe(`"${'x'.repeat(QUOTED_MAX_CHARS - 1)}…"`)
    expect(quoteInput('x'.repeat(QUOTED_MAX_CHARS))).toBe(`"${'x'.repeat(QUOTED_MAX_CHARS)}"`)
    const invisible = quoteInput('\u200b'.repeat(500))
    expect(invisible).toBe(`"${'\\u200b'.repeat(16)}…"`)
    // Code points, as capText counts: 100 emoji fit.
    expect(quoteInput('😀'.repeat(QUOTED_MAX_CHARS))).toBe(`"${'😀'.repeat(QUOTED_MAX_CHARS)}"`)
    for (const text of ['\n'.repeat(300), `${'a'.repeat(98)}\u200b\u200b`, '"'.repeat(300)]) {
      const inner = quoteInput(text).slice(1, -1)
      expect([...inner].length).toBeLessThanOrEqual(QUOTED_MAX_CHARS)
      expect(inner).not.toMatch(/\\(?:u[0-9a-f]{0,3})?…$/)
    }
  })
})

describe('capDetail and codePointName', () => {
  it(`cuts a detail to ${DETAIL_MAX_CHARS} characters`, () => {
    expect(capDetail('d'.repeat(DETAIL_MAX_CHARS))).toHaveLength(DETAIL_MAX_CHARS)
    expect(capDetail('d'.repeat(10_000))).toBe(`${'d'.repeat(DETAIL_MAX_CHARS - 1)}…`)
  })

  it('names a code point as Unicode writes it', () => {
    expect(codePointName('\u200b')).toBe('U+200B')
    expect(codePointName('\0')).toBe('U+0000')
    expect(codePointName('😀')).toBe('U+1F600')
  })
})
