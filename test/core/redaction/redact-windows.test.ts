/**
 * The scan runs a line-wise rule only around its keywords (core/redaction/
 * windows.ts, from what core/redaction/reach.ts reads off the rule's
 * program), and a multi-line rule from a little before its first keyword.
 * Both must give exactly what the rule gives on the whole line or fragment:
 * checked here on the corpus, the real diffs and generated lines built to
 * reach the edges (keywords crowded or far apart, long runs a repeat takes,
 * values cut by a slice's end, case folds, characters past the BMP).
 */
import { describe, expect, it } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { RE2JS } from 're2js'
import { hasWordBoundary, withoutEdges } from '../../../core/redaction/edges.ts'
import { keywordHits, placesOf } from '../../../core/redaction/keyword-scan.ts'
import { backtrackMatches, type RuleMatch, ruleMatches } from '../../../core/redaction/matches.ts'
import { reachOf } from '../../../core/redaction/reach.ts'
import { KEYWORDS, RULES, type Rule } from '../../../core/redaction/rules.ts'
import { windowedMatches } from '../../../core/redaction/windows.ts'
import { REACH_PATH, reaches } from '../../../scripts/redaction-reach.ts'
import { Random, SECRET_KINDS } from './redact-corpus.ts'
import { NON_SECRETS } from './redact-lookalikes.ts'
import { OWN_RULE_SAMPLES } from './redact-own-samples.ts'

/**
 * The comparisons over the whole corpus are CPU-bound (2–3 s on an idle core): on a loaded
 * 2-core machine they wait their turn for minutes, which is no failure of what they assert.
 */
const CPU_BOUND_MS = 600_000

const windowed = (rule: Rule) => rule.reach.keyworded && Number.isFinite(rule.reach.lead)

/**
 * Every line-wise rule's matches on the line, around its keywords and on the
 * whole line, for each rule with a keyword there; and the keyworded rules
 * with no keyword there, which must find nothing on the whole line.
 */
function compareLine(line: string): { kind: string; windowed: RuleMatch[]; whole: RuleMatch[] }[] {
  const hits = keywordHits(line, 0, line.length).lines[0]
  const out: { kind: string; windowed: RuleMatch[]; whole: RuleMatch[] }[] = []
  RULES.forEach((rule, index) => {
    if (rule.multiline || !windowed(rule)) return
    const places = hits?.rules.includes(index) ? placesOf(hits, index) : undefined
    const around = places === undefined ? [] : [...windowedMatches(rule, rule.reach, line, places)]
    // A line with none of the rule's keywords is never given to it; a keyworded rule finds nothing there anyway.
    if (
      places === undefined &&
      !/[\u212a\u017f]/.test(line) &&
      rule.keywords.every((k) => !line.toLowerCase().includes(k))
    )
      out.push({ kind: rule.kind, windowed: [], whole: [...ruleMatches(rule, line)] })
    else if (places !== undefined) out.push({ kind: rule.kind, windowed: around, whole: [...ruleMatches(rule, line)] })
  })
  return out
}

function differing(line: string): { kind: string; line: string }[] {
  return compareLine(line)
    .filter((c) => !Bun.deepEquals(c.windowed, c.whole))
    .map((c) => ({ kind: c.kind, line }))
}

const FIXTURES = join(import.meta.dir, '../../fixtures/redaction')

function fixtureLines(): string[] {
  return ['clean', 'planted'].flatMap((dir) =>
    readdirSync(join(FIXTURES, dir))
      .filter((name) => name.endsWith('.diff'))
      .flatMap((name) => readFileSync(join(FIXTURES, dir, name), 'utf8').split('\n')),
  )
}

function corpusLines(): string[] {
  const random = new Random(2027)
  const lines: string[] = []
  for (let i = 0; i < 3; i++) {
    for (const kind of [...SECRET_KINDS, ...NON_SECRETS]) {
      const { text } = kind.make(random)
      lines.push(...text.split('\n'), ...`  my.retry-${text} // ${text}`.split('\n'))
    }
  }
  for (const { tps, fps } of OWN_RULE_SAMPLES) for (const s of [...tps, ...fps]) lines.push(...s.text.split('\n'))
  return lines
}

describe('the scan around keywords', () => {
  it('covers nearly every line-wise rule, and says which it cannot', () => {
    const lineRules = RULES.filter((rule) => !rule.multiline)
    const whole = lineRules.filter((rule) => !windowed(rule)).map((rule) => rule.kind)
    // These match without one of their keywords (a `.` in a keyword is any character to the pattern, a
    // number before the keyword), or may take a repeat without bound before it.
    expect(whole.sort()).toEqual(
      [
        'airtable-personnal-access-token',
        'facebook-access-token',
        'microsoft-teams-webhook',
        'npmrc-auth',
        'sidekiq-sensitive-url',
        'slack-config-access-token',
        'slack-webhook-url',
        'sourcegraph-access-token',
      ].sort(),
    )
  })

  it(
    'finds what the whole line gives, on the corpus and the real diffs',
    () => {
      const lines = [...corpusLines(), ...fixtureLines()]
      let compared = 0
      let matched = 0
      const wrong = lines.flatMap((line) => {
        const results = compareLine(line)
        compared += results.length
        matched += results.reduce((n, r) => n + r.whole.length, 0)
        return results.filter((c) => !Bun.deepEquals(c.windowed, c.whole)).map((c) => ({ kind: c.kind, line }))
      })
      expect(wrong).toEqual([])
      expect(compared).toBeGreaterThan(2000)
      expect(matched).toBeGreaterThan(150)
    },
    CPU_BOUND_MS,
  )

  it(
    'finds what the whole line gives on generated lines, crowded and spread, with long runs and cut values',
    () => {
      const keywords = KEYWORDS.map((k) => k.text)
      const piece = fc.oneof(
        {
          weight: 4,
          arbitrary: fc
            .constantFrom(...keywords)
            .chain((k) => fc.constantFrom(k, k.toUpperCase(), k.replace(/k/g, '\u212a').replace(/s/g, '\u017f'))),
        },
        {
          weight: 3,
          arbitrary: fc.constantFrom(
            '=',
            ' = ',
            ':',
            ': ',
            '=>',
            ':=',
            ',',
            ' ',
            '"',
            "'",
            '`',
            '_',
            '-',
            '.',
            '/',
            '\\n',
            '$',
            '@',
            '://',
            '\t',
          ),
        },
        {
          weight: 4,
          arbitrary: fc
            .tuple(
              fc.constantFrom(
                '0123456789abcdef',
                'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
                'aB3_-.',
                'aZ9+/=',
              ),
              fc.integer({ min: 1, max: 90 }),
            )
            .chain(([set, n]) =>
              fc.array(fc.constantFrom(...set), { minLength: n, maxLength: n }).map((c) => c.join('')),
            ),
        },
        { weight: 1, arbitrary: fc.constantFrom('é', '😀', '\u00a0', 'ſ', '\u212a') },
        {
          weight: 1,
          arbitrary: fc
            .tuple(fc.constantFrom(' ', 'a', '0', '\t', 'aB3.c-d_9'), fc.integer({ min: 100, max: 1500 }))
            .map(([c, n]) => c.repeat(n)),
        },
      )
      const line = fc.array(piece, { minLength: 1, maxLength: 60 }).map((pieces) => pieces.join(''))
      fc.assert(
        fc.property(line, (text) => {
          expect(differing(text)).toEqual([])
        }),
        { numRuns: 800, seed: 27 },
      )
    },
    CPU_BOUND_MS,
  )

  it(
    'finds what the whole line gives where a match reaches further than the search table: by rows',
    () => {
      // gitleaks' generic rule takes a value of letters and digits without bound; 454 instructions times a window
      // of 12,000 places is past the table's 4M pairs, so these searches mark their pairs by place.
      const lines = [
        `key=${'a'.repeat(12_000)}`,
        `token: "${'b1'.repeat(7_000)}" key=${'c'.repeat(9_500)};`,
        `${'password="a1a1 '.repeat(900)}secret=${'z9'.repeat(6_000)}`,
      ]
      for (const line of lines) expect(differing(line).map((d) => d.kind)).toEqual([])
    },
    CPU_BOUND_MS,
  )

  it(
    'finds what the whole line gives on long lines of many keywords, where the slices are split',
    () => {
      const random = new Random(5)
      const samples = SECRET_KINDS.map((kind) => kind.make(random).text.split('\n')[0] ?? '')
      for (let n = 0; n < 6; n++) {
        const parts: string[] = []
        while (parts.join(' ').length < 20_000) {
          parts.push(random.pick([...samples, 'aB3.c-d_9'.repeat(random.int(1, 80)), random.pick(KEYWORDS).text]))
        }
        expect(differing(parts.join(random.pick([' ', '', ';', '=']))).map((d) => d.kind)).toEqual([])
      }
    },
    CPU_BOUND_MS,
  )

  it("finds a multi-line rule's matches from a little before its first keyword, by the backtracker, as re2js does from the start", () => {
    const random = new Random(9)
    const texts = [...SECRET_KINDS, ...NON_SECRETS].map((kind) => {
      const filler = Array.from({ length: 40 }, () => `const x = ${random.chars('abc =-', 30)}`).join('\n')
      return `${filler}\n${kind.make(random).text}\n${filler}`
    })
    // Headers with no key, and keys back to back: matches passed over and searched again, and one after another.
    const key = SECRET_KINDS.find((kind) => kind.name.includes('RSA'))?.make(random).text ?? ''
    texts.push(`x = "-----BEGIN PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----"\n${key}\n${key}`)
    let found = 0
    RULES.forEach((rule, index) => {
      if (!rule.multiline) return
      for (const text of texts) {
        const first = keywordHits(text, 0, text.length).whole.get(index)
        if (first === undefined) continue
        const from = rule.reach.keyworded && Number.isFinite(rule.reach.lead) ? Math.max(0, first - rule.reach.lead) : 0
        const whole = [...ruleMatches(rule, text)]
        found += whole.length
        expect({ kind: rule.kind, from: [...backtrackMatches(rule, text, from)] }).toEqual({
          kind: rule.kind,
          from: whole,
        })
        // Each match passed over (`next(true)`): the search goes on from the character after its start.
        const passedOver = (matches: Iterator<RuleMatch, void, boolean | undefined>) => {
          const out: RuleMatch[] = []
          for (let step = matches.next(); step.done !== true && out.length < 200; step = matches.next(true))
            out.push(step.value)
          return out
        }
        expect({ kind: rule.kind, again: passedOver(backtrackMatches(rule, text, from)) }).toEqual({
          kind: rule.kind,
          again: passedOver(ruleMatches(rule, text)),
        })
      }
    })
    expect(found).toBeGreaterThan(3)
  })
})

/** A rule of a pattern alone, for the edges the rule set may not reach: its keyword places found as the scan finds them. */
function around(source: string, keyword: string, line: string): { windowed: RuleMatch[]; whole: RuleMatch[] } {
  const scan = RE2JS.compile(source)
  const reach = reachOf(scan, [keyword])
  const rule = {
    kind: 'test',
    scan,
    regex: scan,
    prefix: null,
    secretGroup: 0,
    keywords: [keyword],
    reach,
  } as unknown as Rule
  const places: number[] = []
  for (let at = line.toLowerCase().indexOf(keyword); at !== -1; at = line.toLowerCase().indexOf(keyword, at + 1))
    places.push(at, at + keyword.length)
  return { windowed: [...windowedMatches(rule, reach, line, places)], whole: [...ruleMatches(rule, line)] }
}

describe('the scan around keywords, at the edges of its slices', () => {
  it("does not end a slice where a match's last assertion looks", () => {
    // The longest path ends at the keyword's start plus the rule's longest, with `$` looking at what follows; a
    // match before it makes the slice's test say yes.
    for (const line of ['k1;k2345x', 'k1;k2345', 'k2345x']) {
      const { windowed, whole } = around('k(?:[0-9]{4}$|[0-9];)', 'k', line)
      expect({ line, windowed }).toEqual({ line, windowed: whole })
    }
  })

  it("takes no match that starts past a range's last keyword, which the slice's end may have made up", () => {
    // Keywords every 3 characters over more than a slice: the halves' slices end inside later matches.
    const line = 'k1;'.repeat(400)
    const { windowed, whole } = around('k[0-9]{0,8}(?:;|$)', 'k', line)
    expect(whole.length).toBe(400)
    expect(windowed).toEqual(whole)
  })

  it("reaches past a repeat's run to the last character outside it a match can take", () => {
    for (const line of ['K=abc123;X', 'K=abcdefghijklmnopqrstuvwxyz123;', 'K=a1;K=bb22;K=ccc333;']) {
      const { windowed, whole } = around('K=[a-z]*[0-9]{1,3};', 'k=', line)
      expect({ line, windowed }).toEqual({ line, windowed: whole })
    }
  })
})

describe("a rule's reach, read off its program", () => {
  it("is kept in reach.json as every rule's program gives it now", () => {
    const file = JSON.parse(readFileSync(REACH_PATH, 'utf8')) as { rules: Record<string, unknown> }
    expect(file.rules).toEqual(reaches())
    expect(Object.keys(file.rules).length).toBe(RULES.length)
  })

  const of = (source: string, keywords: string[]) => reachOf(RE2JS.compile(source), keywords)

  it('bounds a match by its keywords and its repeats', () => {
    expect(of('(?i)key=([a-z]{4})', ['key'])).toMatchObject({ keyworded: true, lead: 3, spare: 8, longest: 8 })
    expect(of('x{0,5}token=([0-9]+)', ['token'])).toMatchObject({ keyworded: true, lead: 10, spare: 11 })
    expect(of('x{0,5}token=([0-9]+)', ['token']).longest).toBe(Number.POSITIVE_INFINITY)
    expect(of('x{0,5}token=([0-9]+)', ['token']).inLoop('7'.charCodeAt(0))).toBe(true)
    expect(of('x{0,5}token=([0-9]+)', ['token']).inLoop('='.charCodeAt(0))).toBe(false)
  })

  it('tells where a match can start from its first character and how far its first keyword ends', () => {
    const password = RULES.find((rule) => rule.kind === 'password-assignment') as Rule
    const lt = '<'.charCodeAt(0)
    // Its XML form allows 46 characters before the keyword ends, and starts with `<`; the others a character or two.
    expect(password.reach.lead).toBe(46)
    expect(password.reach.canStart(lt, 46)).toBe(true)
    expect(password.reach.canStart('a'.charCodeAt(0), 46)).toBe(false)
    expect(password.reach.canStart('_'.charCodeAt(0), 5)).toBe(true)
    expect(of('(?i)key=1|x{2}key', ['key']).canStart('x'.charCodeAt(0), 5)).toBe(true)
    expect(of('(?i)key=1|x{2}key', ['key']).canStart('x'.charCodeAt(0), 3)).toBe(false)
    expect(of('(?i)key=1|x{2}key', ['key']).canStart('K'.charCodeAt(0), 3)).toBe(true)
  })

  it('says a rule may match without its keyword, or with a repeat without bound before it', () => {
    expect(of('ke.=1', ['key']).keyworded).toBe(false)
    expect(of('(?:key|pass)=1', ['key']).keyworded).toBe(false)
    expect(of('\\s*key=1', ['key']).lead).toBe(Number.POSITIVE_INFINITY)
    // RE2 folds k onto the Kelvin sign ignoring case; the keyword scan does too.
    expect(of('(?i)key', ['key']).keyworded).toBe(true)
    expect(keywordHits('\u212aEY=1', 0, 4).lines[0]?.rules.length).toBeGreaterThan(0)
  })

  it('makes the assertions of a slice edge ones that never hold, classes and escapes aside', () => {
    const never = String.raw`[^\x00-\x{10FFFF}]`
    expect(withoutEdges(String.raw`^a[$^]\$\z(?:x|$)`, true, true)).toBe(
      String.raw`${never}a[$^]\$${never}(?:x|${never})`,
    )
    expect(withoutEdges(String.raw`\A[[:alpha:]^]\p{^Greek}$`, false, true)).toBe(
      String.raw`\A[[:alpha:]^]\p{^Greek}${never}`,
    )
    expect(RE2JS.compile(withoutEdges('a$', false, true)).test('a')).toBe(false)
    expect(hasWordBoundary(String.raw`\bkey`)).toBe(true)
    expect(hasWordBoundary(String.raw`\\b`)).toBe(false)
  })
})
