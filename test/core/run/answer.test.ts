import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { capReason, parseAnswer } from '../../../core/run/answer.ts'
import type { Answer } from '../../../core/wire/types.ts'

const VALID = '{"verdict": "no-match", "certainty": 92, "reason": "Two new timestamps use naive datetimes."}'

describe('parseAnswer', () => {
  const accepted: Array<{ name: string; text: string; answer: Answer }> = [
    {
      name: 'the spec example',
      text: VALID,
      answer: { verdict: 'no-match', certainty: 92, reason: 'Two new timestamps use naive datetimes.' },
    },
    {
      name: 'keys in any order',
      text: '{"reason":"r","certainty":0,"verdict":"match"}',
      answer: { verdict: 'match', certainty: 0, reason: 'r' },
    },
    {
      name: 'not-applicable at 100',
      text: '{"verdict":"not-applicable","certainty":100,"reason":"No secret."}',
      answer: { verdict: 'not-applicable', certainty: 100, reason: 'No secret.' },
    },
    {
      name: 'JSON whitespace and a trailing newline around the object',
      text: ` \n\t${VALID}\r\n`,
      answer: { verdict: 'no-match', certainty: 92, reason: 'Two new timestamps use naive datetimes.' },
    },
    {
      name: 'a certainty spelt 92.0 (same JSON number)',
      text: '{"verdict":"match","certainty":92.0,"reason":"r"}',
      answer: { verdict: 'match', certainty: 92, reason: 'r' },
    },
    {
      name: 'a certainty spelt 1e2 (same JSON number)',
      text: '{"verdict":"match","certainty":1e2,"reason":"r"}',
      answer: { verdict: 'match', certainty: 100, reason: 'r' },
    },
    {
      name: 'an empty reason',
      text: '{"verdict":"match","certainty":50,"reason":""}',
      answer: { verdict: 'match', certainty: 50, reason: '' },
    },
    {
      name: 'commas, braces and escaped quotes inside the reason',
      text: '{"verdict":"match","certainty":5,"reason":"a, b} {c \\", \\"d\\": 1"}',
      answer: { verdict: 'match', certainty: 5, reason: 'a, b} {c ", "d": 1' },
    },
  ]
  for (const { name, text, answer } of accepted) {
    it(`accepts ${name}`, () => {
      expect(parseAnswer(text)).toEqual({ ok: true, value: answer })
    })
  }

  it('reads a certainty of -0 as 0', () => {
    const result = parseAnswer('{"verdict":"match","certainty":-0,"reason":"r"}')
    expect(result.ok && Object.is(result.value.certainty, 0)).toBe(true)
  })

  const rejected: Array<{ name: string; text: string; detail: RegExp }> = [
    { name: 'prose before the object', text: `Here you go: ${VALID}`, detail: /^not a JSON object: Here you go/ },
    { name: 'prose after the object', text: `${VALID} Hope that helps.`, detail: /^not a JSON object/ },
    { name: 'a code fence', text: `\`\`\`json\n${VALID}\n\`\`\``, detail: /^not a JSON object: ```json/ },
    { name: 'a byte order mark', text: `\uFEFF${VALID}`, detail: /^not a JSON object/ },
    { name: 'an empty text', text: '', detail: /^not a JSON object: \(empty\)$/ },
    { name: 'an array', text: `[${VALID}]`, detail: /^not a JSON object/ },
    { name: 'null', text: 'null', detail: /^not a JSON object: null$/ },
    { name: 'a string', text: '"match"', detail: /^not a JSON object/ },
    {
      name: 'an extra key',
      text: '{"verdict":"match","certainty":9,"reason":"r","notes":"x"}',
      detail: /^unexpected key "notes"$/,
    },
    {
      name: 'a __proto__ key',
      text: '{"verdict":"match","certainty":9,"reason":"r","__proto__":{}}',
      detail: /^unexpected key "__proto__"$/,
    },
    { name: 'a missing reason', text: '{"verdict":"match","certainty":9}', detail: /^missing key "reason"$/ },
    { name: 'an empty object', text: '{}', detail: /^missing key "verdict", "certainty", "reason"$/ },
    {
      name: 'a duplicate key',
      text: '{"verdict":"no-match","certainty":9,"reason":"r","verdict":"match"}',
      detail: /^duplicate key$/,
    },
    {
      name: 'an unknown verdict',
      text: '{"verdict":"no match","certainty":9,"reason":"r"}',
      detail: /^unknown verdict "no match"$/,
    },
    {
      name: 'an upper-case verdict',
      text: '{"verdict":"MATCH","certainty":9,"reason":"r"}',
      detail: /^unknown verdict "MATCH"$/,
    },
    { name: 'a null verdict', text: '{"verdict":null,"certainty":9,"reason":"r"}', detail: /^unknown verdict null$/ },
    {
      name: 'a fractional certainty',
      text: '{"verdict":"match","certainty":92.5,"reason":"r"}',
      detail: /^certainty .*: 92\.5$/,
    },
    {
      name: 'a certainty as a string',
      text: '{"verdict":"match","certainty":"92","reason":"r"}',
      detail: /^certainty .*: "92"$/,
    },
    {
      name: 'a certainty over 100',
      text: '{"verdict":"match","certainty":101,"reason":"r"}',
      detail: /^certainty .*: 101$/,
    },
    {
      name: 'a negative certainty',
      text: '{"verdict":"match","certainty":-1,"reason":"r"}',
      detail: /^certainty .*: -1$/,
    },
    {
      name: 'an overflowing certainty',
      text: '{"verdict":"match","certainty":1e400,"reason":"r"}',
      detail: /^certainty .*: null$/,
    },
    {
      name: 'a null certainty',
      text: '{"verdict":"match","certainty":null,"reason":"r"}',
      detail: /^certainty .*: null$/,
    },
    {
      name: 'a null reason',
      text: '{"verdict":"match","certainty":9,"reason":null}',
      detail: /^reason is not a string: null$/,
    },
    {
      name: 'a reason as a list',
      text: '{"verdict":"match","certainty":9,"reason":["a"]}',
      detail: /^reason is not a string: \["a"\]$/,
    },
  ]
  for (const { name, text, detail } of rejected) {
    it(`rejects ${name}`, () => {
      const result = parseAnswer(text)
      expect(result.ok).toBe(false)
      if (!result.ok) expect(result.error).toMatch(detail)
    })
  }

  it('quotes at most a short, one-line snippet of long model text', () => {
    const prose = `I think\nthe answer is:\n${'very long explanation '.repeat(200)}`
    const result = parseAnswer(prose)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error).not.toContain('\n')
    expect(result.error.length).toBeLessThan(120)
    expect(result.error).toStartWith('not a JSON object: I think the answer is: very long')
    expect(result.error).toEndWith('…')
  })

  it('caps a long reason and keeps the verdict and certainty', () => {
    const result = parseAnswer(JSON.stringify({ verdict: 'no-match', certainty: 77, reason: 'x'.repeat(600) }))
    expect(result).toEqual({ ok: true, value: { verdict: 'no-match', certainty: 77, reason: `${'x'.repeat(499)}…` } })
  })

  it('reads back every valid answer it is given', () => {
    const answer = fc.record({
      verdict: fc.constantFrom('match' as const, 'no-match' as const, 'not-applicable' as const),
      certainty: fc.integer({ min: 0, max: 100 }),
      reason: fc.string({ unit: 'grapheme', maxLength: 80 }),
    })
    fc.assert(
      fc.property(answer, (value) => {
        expect(parseAnswer(JSON.stringify(value, null, 2))).toEqual({ ok: true, value })
      }),
    )
  })

  it('never throws and only ever fails with a short one-line detail', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.json()), (text) => {
        const result = parseAnswer(text)
        if (!result.ok) {
          expect(result.error).not.toMatch(/[\r\n]/)
          expect([...result.error].length).toBeLessThanOrEqual(140)
        }
      }),
    )
  })
})

describe('capReason', () => {
  const emoji = '😀' // one code point, two UTF-16 units
  const family = '👨‍👩‍👧‍👦' // 7 code points, one grapheme
  const flag = '🇩🇪' // 2 code points, one grapheme

  const cases: Array<{ name: string; reason: string; expected: string }> = [
    { name: 'keeps a reason of exactly 500 characters', reason: 'a'.repeat(500), expected: 'a'.repeat(500) },
    { name: 'cuts 501 characters to 499 and an ellipsis', reason: 'a'.repeat(501), expected: `${'a'.repeat(499)}…` },
    {
      name: 'counts an astral emoji as one character',
      reason: emoji.repeat(500),
      expected: emoji.repeat(500),
    },
    {
      name: 'cuts astral emoji without splitting a surrogate pair',
      reason: emoji.repeat(501),
      expected: `${emoji.repeat(499)}…`,
    },
    {
      name: 'backs off to before a ZWJ sequence that would be split',
      reason: `${'a'.repeat(495)}${family}${'b'.repeat(10)}`,
      expected: `${'a'.repeat(495)}…`,
    },
    {
      name: 'keeps a ZWJ sequence that fits whole',
      reason: `${'a'.repeat(492)}${family}${'b'.repeat(10)}`,
      expected: `${'a'.repeat(492)}${family}…`,
    },
    {
      name: 'does not split a flag',
      reason: `${'a'.repeat(498)}${flag}${'b'.repeat(10)}`,
      expected: `${'a'.repeat(498)}…`,
    },
    {
      name: 'keeps a letter with its combining accent together',
      reason: `${'a'.repeat(498)}e\u0301${'b'.repeat(10)}`,
      expected: `${'a'.repeat(498)}…`,
    },
    {
      name: 'cuts inside one cluster longer than the whole budget, at a code point',
      reason: `a${'\u0301'.repeat(1000)}`,
      expected: `a${'\u0301'.repeat(498)}…`,
    },
  ]
  for (const { name, reason, expected } of cases) {
    it(name, () => {
      expect(capReason(reason)).toBe(expected)
    })
  }

  it('always yields at most 500 code points, well formed, as a prefix of the reason', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 400, maxLength: 700 }), (reason) => {
        const capped = capReason(reason)
        const points = [...capped]
        expect(points.length).toBeLessThanOrEqual(500)
        expect(capped.isWellFormed()).toBe(true)
        if (capped === reason) return
        expect(capped.endsWith('…')).toBe(true)
        expect(reason.startsWith(capped.slice(0, -1))).toBe(true)
      }),
    )
  })
})
