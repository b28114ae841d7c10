import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { inLazyPrefix, prefixStart, withoutLazyPrefix } from '../../../core/redaction/lazy-prefix.ts'
import { KEYWORDS, RULES, type Rule } from '../../../core/redaction/rules.ts'
import { type RuleMatch, ruleMatches } from '../../../core/redaction/scan.ts'
import { Random, SECRET_KINDS } from './redact-corpus.ts'
import { NON_SECRETS } from './redact-lookalikes.ts'

/**
 * The comparisons over the whole corpus are CPU-bound (2–3 s on an idle core): on a loaded
 * 2-core machine they wait their turn for minutes, which is no failure of what they assert.
 */
const CPU_BOUND_MS = 600_000

/** The rule's matches as its whole pattern gives them, prefix and all: what the scan must reproduce. */
function wholePatternMatches(rule: Rule, scope: string): RuleMatch[] {
  const out: RuleMatch[] = []
  // test() asks the DFA whether there is a match at all; the slow capture engine runs only if so.
  if (!rule.regex.test(scope)) return out
  const m = rule.regex.matcher(scope)
  const groups = m.groupCount()
  while (m.find()) {
    let matchStart = m.start(0)
    let matchEnd = m.end(0)
    while (matchStart < matchEnd && scope[matchStart] === '\n') matchStart += 1
    while (matchEnd > matchStart && scope[matchEnd - 1] === '\n') matchEnd -= 1
    if (matchStart === matchEnd) continue
    let secret: [number, number] | undefined = [matchStart, matchEnd]
    if (groups > 0 && rule.secretGroup > 0) {
      const [s, e] = [m.start(rule.secretGroup), m.end(rule.secretGroup)]
      secret = s < 0 || s === e ? undefined : [s, e]
    } else if (groups > 0) {
      for (let g = 1; g <= groups; g++) {
        if (m.start(g) >= 0 && m.start(g) < m.end(g)) {
          secret = [m.start(g), m.end(g)]
          break
        }
      }
    }
    if (secret !== undefined) out.push({ matchStart, matchEnd, secretStart: secret[0], secretEnd: secret[1] })
  }
  return out
}

const PREFIXED = RULES.filter((rule) => rule.prefix !== null)

/** Lines of every corpus kind and look-alike, in the settings the corpus puts them in. */
function corpusLines(): string[] {
  const random = new Random(27)
  const lines: string[] = []
  for (let i = 0; i < 2; i++) {
    for (const kind of [...SECRET_KINDS, ...NON_SECRETS]) {
      const { text } = kind.make(random)
      lines.push(...text.split('\n'), `  my.retry-${text}`, `const x_${i} = "${text}" // ${text}`)
    }
  }
  return lines
}

describe("the scan's lazy identifier prefix", () => {
  it('is taken off the 100 gitleaks rules that open with it, and off no other', () => {
    expect(PREFIXED.length).toBe(100)
    // atlassian-api-token opens with it too, but in the first of two alternatives at the top level.
    const opening = RULES.filter((rule) => /^(?:\(\?i\))?\[\\w\.-\]\{0,\d+\}\?/.test(rule.regex.pattern()))
    expect(opening.filter((rule) => rule.prefix === null).map((rule) => rule.kind)).toEqual(['atlassian-api-token'])
    expect(PREFIXED.every((rule) => opening.includes(rule))).toBe(true)
  })

  it('keeps a pattern whole where taking the prefix off could change it', () => {
    expect(withoutLazyPrefix(String.raw`[\w.-]{0,50}?key|token`, '')).toBeNull()
    expect(withoutLazyPrefix(String.raw`[\w.-]{0,50}?`, '')).toBeNull()
    expect(withoutLazyPrefix(String.raw`x[\w.-]{0,50}?key`, '')).toBeNull()
    expect(withoutLazyPrefix(String.raw`(?i)[\w.-]{0,50}?(?:a|b)[|]c`, '')).toEqual({
      rest: '(?i)(?:a|b)[|]c',
      prefix: { max: 50, folded: true },
    })
    expect(withoutLazyPrefix(String.raw`[\w.-]{0,9}?key`, 'i')?.prefix).toEqual({ max: 9, folded: true })
  })

  it('widens a match over the characters RE2 gives its class, no further than the search start or the bound', () => {
    expect(prefixStart('ab.c-d_eKEY', 8, 0, { max: 50, folded: false })).toBe(0)
    expect(prefixStart('ab.c-d_eKEY', 8, 3, { max: 50, folded: false })).toBe(3)
    expect(prefixStart('ab.c-d_eKEY', 8, 0, { max: 2, folded: false })).toBe(6)
    expect(prefixStart('a b=KEY', 4, 0, { max: 50, folded: false })).toBe(4)
    expect(inLazyPrefix(0x212a, true)).toBe(true)
    expect(inLazyPrefix(0x212a, false)).toBe(false)
    expect(inLazyPrefix('/'.charCodeAt(0), true)).toBe(false)
  })

  it(
    'finds, on every prefixed rule, the matches and secrets the whole pattern finds, on the corpus',
    () => {
      const lines = corpusLines()
      let matched = 0
      for (const rule of PREFIXED) {
        const differing = lines.filter((line) => {
          const expected = wholePatternMatches(rule, line)
          matched += expected.length
          return !Bun.deepEquals([...ruleMatches(rule, line)], expected)
        })
        expect({ kind: rule.kind, differing }).toEqual({ kind: rule.kind, differing: [] })
      }
      // The comparison has matches to compare, not only lines where neither finds anything.
      expect(matched).toBeGreaterThan(40)
    },
    CPU_BOUND_MS,
  )

  it(
    'finds the matches the whole pattern finds on lines built like an assignment of a secret, and on noise',
    () => {
      // A line as gitleaks' patterns expect one (identifier, the rule's keyword, an
      // operator, a quoted value), each part drawn from what can change the match:
      // the prefix's characters, case, the two non-ASCII letters RE2 folds onto
      // ASCII ones, and noise around.
      const bits = (chars: string, max: number) =>
        fc.array(fc.constantFrom(...chars), { maxLength: max }).map((list) => list.join(''))
      const line = fc.record({
        rule: fc.integer({ min: 0, max: PREFIXED.length - 1 }),
        keyword: fc.nat(),
        before: bits('ab_.-Z9 =\u212a\u017f', 70),
        upper: fc.boolean(),
        gap: bits(' _.-x', 4),
        operator: fc.constantFrom('=', ' = ', ':', ': ', '=>', ':=', ',', ' '),
        quote: fc.constantFrom('', '"', "'", '`'),
        // Secrets of the lengths and alphabets gitleaks' rules ask for, and noise.
        secret: fc
          .oneof(
            fc
              .tuple(
                fc.constantFrom('0123456789abcdef', 'abcdefghijklmnopqrstuvwxyz0123456789', 'aB3xZ9_-'),
                fc.constantFrom(16, 20, 24, 25, 32, 36, 40, 43, 64),
              )
              .chain(([set, n]) => fc.array(fc.constantFrom(...set), { minLength: n, maxLength: n })),
            fc.array(fc.constantFrom(...'abcdef0123456789ABCXYZ_-+/=.'), { maxLength: 70 }),
          )
          .map((chars) => chars.join('')),
        after: bits(' ;"\'\nkey=x', 6),
        repeat: fc.boolean(),
      })
      let matched = 0
      fc.assert(
        fc.property(line, (l) => {
          const rule = PREFIXED[l.rule] as Rule
          const own = KEYWORDS.filter((k) => k.rules.includes(RULES.indexOf(rule))).map((k) => k.text)
          const keyword = own[l.keyword % own.length] ?? 'key'
          const one = `${l.before}${l.upper ? keyword.toUpperCase() : keyword}${l.gap}${l.operator}${l.quote}${l.secret}${l.quote}${l.after}`
          const text = l.repeat ? `${one}${one}` : one
          const expected = wholePatternMatches(rule, text)
          matched += expected.length
          expect([...ruleMatches(rule, text)]).toEqual(expected)
        }),
        { numRuns: 4000, seed: 27 },
      )
      expect(matched).toBeGreaterThan(50)
    },
    CPU_BOUND_MS,
  )
})
