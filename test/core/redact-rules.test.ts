import { describe, expect, it } from 'bun:test'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { EXTRA_RULES } from '../../core/redaction/extra-rules.ts'
import { KEYWORDS, RULES } from '../../core/redaction/rules.ts'
import { convert, JSON_PATH, RULES_DIR, re2ToJs, SOURCE_NOTE, TOML_PATH } from '../../scripts/gitleaks-rules.ts'

const toml = readFileSync(TOML_PATH, 'utf8')

describe('the vendored rule set', () => {
  it('is the gitleaks.toml PROVENANCE.md names, byte for byte', () => {
    const provenance = readFileSync(join(RULES_DIR, 'PROVENANCE.md'), 'utf8')
    const sha256 = createHash('sha256').update(readFileSync(TOML_PATH)).digest('hex')
    expect(provenance).toContain(sha256)
  })

  it('is converted into rules.json by scripts/gitleaks-rules.ts, nothing added or lost', () => {
    const committed = JSON.parse(readFileSync(JSON_PATH, 'utf8'))
    expect(committed).toEqual(convert(toml, SOURCE_NOTE))
  })

  it('keeps every gitleaks rule that matches content, and the added ones after them', () => {
    const ids = [...toml.matchAll(/^id = "([^"]+)"$/gm)].map((m) => m[1] ?? '')
    const converted = convert(toml, SOURCE_NOTE)
    expect([...converted.rules.map((rule) => rule.id), ...converted.skipped.map((rule) => rule.id)].sort()).toEqual(
      ids.sort(),
    )
    expect(converted.skipped.map((rule) => rule.id)).toEqual(['pkcs12-file'])
    expect(RULES.map((rule) => rule.kind)).toEqual([
      ...converted.rules.map((rule) => rule.id),
      ...EXTRA_RULES.map((rule) => rule.id),
    ])
    expect(new Set(RULES.map((rule) => rule.kind)).size).toBe(RULES.length)
  })

  it('gives every rule a keyword, so none runs on text that cannot hold its secret', () => {
    const withKeyword = new Set(KEYWORDS.flatMap((keyword) => keyword.rules))
    expect(RULES.filter((_, index) => !withKeyword.has(index)).map((rule) => rule.kind)).toEqual([])
  })
})

describe('re2ToJs', () => {
  const matches = (re2: string, text: string) => {
    const { source, flags } = re2ToJs(re2)
    return new RegExp(source, flags).test(text)
  }

  it('takes a leading flag group as the flag', () => {
    expect(re2ToJs('(?i)abc')).toEqual({ source: 'abc', flags: 'i' })
  })

  it('runs a flag group in the middle to the end of its group, across its alternatives', () => {
    // In RE2 `(?i)` holds until the group closes, in every alternative after it.
    expect(re2ToJs('x(a(?i)b|c)d').source).toBe('x(a(?i:b)|(?i:c))d')
    expect(matches('x(a(?i)b|c)d', 'xCd')).toBe(true)
    expect(matches('x(a(?i)b|c)d', 'xAbd')).toBe(false)
    expect(matches('x(a(?i)b|c)d', 'xaBd')).toBe(true)
    expect(matches('x(a(?i)b|c)d', 'xaBD')).toBe(false)
    expect(matches('p8e-(?i)[a-z]{3}', 'p8e-AbC')).toBe(true)
    expect(matches('p8e-(?i)[a-z]{3}', 'P8E-abc')).toBe(false)
  })

  it('keeps modifier groups, and writes RE2-only syntax the JavaScript way', () => {
    expect(matches('(?-i:[Aa]pi|API)', 'aPi')).toBe(false)
    expect(re2ToJs('\\bpat[[:alnum:]]{3}\\b').source).toBe('\\bpat[a-zA-Z0-9]{3}\\b')
    expect(re2ToJs('a\\z').source).toBe('a(?![\\s\\S])')
    expect(matches('a\\z', 'a\n')).toBe(false)
    expect(re2ToJs('(?P<alg>ab)c').source).toBe('(?:ab)c')
    // RE2's \s is ASCII: a no-break space is no space to it.
    expect(matches('a\\sb', 'a\u00a0b')).toBe(false)
    expect(matches('a[\\s=]b', 'a\tb')).toBe(true)
  })

  it('refuses what it does not translate rather than guess', () => {
    expect(() => re2ToJs('\\pL+')).toThrow(SyntaxError)
    expect(() => re2ToJs('(?U)a+')).toThrow(SyntaxError)
    expect(() => re2ToJs('[[:punct:]]')).toThrow(SyntaxError)
    expect(() => re2ToJs('(a')).toThrow(SyntaxError)
  })
})
