import { describe, expect, it } from 'bun:test'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { RE2JS } from 're2js'
import { EXTRA_RULES } from '../../../core/redaction/extra-rules.ts'
import { compiled, GLOBAL_ALLOWLIST, KEYWORDS, RULES } from '../../../core/redaction/rules.ts'
import { convert, JSON_PATH, RULES_DIR, re2Pattern, SOURCE_NOTE, TOML_PATH } from '../../../scripts/gitleaks-rules.ts'

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

describe('re2Pattern', () => {
  const matches = (re2: string, text: string) => RE2JS.compile(re2Pattern(re2).source).test(text)

  it("keeps gitleaks' pattern as RE2 reads it, flag groups, POSIX classes and \\z included", () => {
    expect(re2Pattern('(?i)abc')).toEqual({ source: '(?i)abc', flags: '' })
    expect(re2Pattern('\\bpat[[:alnum:]]{3}\\b').source).toBe('\\bpat[[:alnum:]]{3}\\b')
    // In RE2 `(?i)` holds until the group closes, in every alternative after it.
    expect(matches('x(a(?i)b|c)d', 'xCd')).toBe(true)
    expect(matches('x(a(?i)b|c)d', 'xAbd')).toBe(false)
    expect(matches('x(a(?i)b|c)d', 'xaBD')).toBe(false)
    expect(matches('a\\z', 'a\n')).toBe(false)
    expect(matches('a\\z', 'xa')).toBe(true)
    // RE2's \s is ASCII: a no-break space is no space to it.
    expect(matches('a\\sb', 'a\u00a0b')).toBe(false)
  })

  it('makes named groups plain, outside classes only', () => {
    expect(re2Pattern('(?P<alg>ab)c').source).toBe('(?:ab)c')
    expect(re2Pattern('(?<alg>ab)c').source).toBe('(?:ab)c')
    expect(re2Pattern('[(?P<x>]').source).toBe('[(?P<x>]')
  })

  it('refuses what RE2 does not take rather than drop the rule', () => {
    expect(() => re2Pattern('(a)\\1')).toThrow()
    expect(() => re2Pattern('a(?=b)')).toThrow()
    expect(() => re2Pattern('(a')).toThrow()
    expect(() => re2Pattern('[a')).toThrow(SyntaxError)
  })
})

describe('the linear-time engine', () => {
  const all = [...RULES.flatMap((rule) => [rule.regex, ...(rule.path === null ? [] : [rule.path])])]
  const lists = [GLOBAL_ALLOWLIST, ...RULES.flatMap((rule) => rule.allowlists)]

  it('compiles every pattern in re2js: each rule, its path and every allowlist, none left to RegExp', () => {
    // RE2 compiles to an automaton that has no backtracking at all; a pattern it
    // could not take (a backreference, a lookaround) fails when rules.ts loads.
    expect(all.length).toBeGreaterThan(RULES.length)
    for (const pattern of [...all, ...lists.flatMap((list) => [...list.regexes, ...list.paths])]) {
      expect(pattern).toBeInstanceOf(RE2JS)
      expect(pattern).not.toBeInstanceOf(RegExp)
    }
    expect(lists.flatMap((list) => list.regexes).length).toBeGreaterThan(40)
  })

  it('compiles every rule exactly as rules.json and extra-rules.ts give it', () => {
    const given = [...convert(toml, SOURCE_NOTE).rules, ...EXTRA_RULES]
    expect(RULES.map((rule) => rule.regex.pattern())).toEqual(given.map((rule) => rule.regex.source))
  })

  it('refuses a flag RE2 has no meaning for, and a pattern RE2 cannot match in linear time', () => {
    expect(() => compiled({ source: 'a', flags: 'y' })).toThrow(RangeError)
    expect(() => compiled({ source: '(a)\\1', flags: '' })).toThrow()
    expect(compiled({ source: 'ab', flags: 'i' }).test('xAB')).toBe(true)
  })

  it('matches nothing in the scan with a JavaScript RegExp', () => {
    // The scan's only patterns are the rules'; a RegExp on the text would be a backtracking engine again. (The
    // checks after the rules, filters.ts and values.ts, are watched at work by redact-filters-linear.test.ts.)
    const scan = [
      'scan',
      'rules',
      'keyword-scan',
      'windows',
      'bitstate',
      'matches',
      'reach',
      'keyword-walk',
      'edges',
      'program',
    ]
    for (const file of scan.map((name) => `core/redaction/${name}.ts`)) {
      const code = readFileSync(join(import.meta.dir, '../../..', file), 'utf8')
      expect(code).not.toMatch(/new RegExp\(|\.exec\(|\.matchAll\(|\.replace\(\//)
    }
  })
})
