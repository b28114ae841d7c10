/**
 * The rule set, compiled once when the module loads: gitleaks' rules
 * (rules.json, derived from the vendored gitleaks.toml) and then the few
 * added for kinds gitleaks lacks (extra-rules.ts), plus the keyword table
 * that decides which rules run where.
 */
import { CATCH_ALL_KINDS, DOCUMENTED_EXAMPLE_KEYS, EXTRA_RULES } from './extra-rules.ts'
import vendored from './gitleaks/rules.json' with { type: 'json' }
import type { JsRegex, VendoredAllowlist, VendoredRule, VendoredRules } from './rule-types.ts'

export type Allowlist = {
  target: 'secret' | 'match' | 'line'
  and: boolean
  regexes: readonly RegExp[]
  paths: readonly RegExp[]
  stopwords: readonly string[]
}

export type Rule = {
  /** The kind a placeholder names: gitleaks' rule id, or ours for the added rules. */
  kind: string
  /** Global, with indices (`d`), so a match's secret group has its place. */
  regex: RegExp
  secretGroup: number
  entropy: number
  path: RegExp | null
  multiline: boolean
  allowlists: readonly Allowlist[]
  /** A catch-all (gitleaks' generic rule, our password one); a specific rule's kind wins where both match. */
  generic: boolean
}

const SOURCE: VendoredRules = vendored satisfies VendoredRules

function compiled(regex: JsRegex, extraFlags = ''): RegExp {
  return new RegExp(regex.source, [...new Set(regex.flags + extraFlags)].join(''))
}

function allowlistOf(list: VendoredAllowlist): Allowlist {
  const target = list.target
  if (target !== 'secret' && target !== 'match' && target !== 'line') throw new RangeError(`allowlist target ${target}`)
  if (list.condition !== 'AND' && list.condition !== 'OR') throw new RangeError(`allowlist condition ${list.condition}`)
  return {
    target,
    and: list.condition === 'AND',
    regexes: list.regexes.map((regex) => compiled(regex)),
    paths: list.paths.map((regex) => compiled(regex)),
    stopwords: list.stopwords,
  }
}

function ruleOf(rule: VendoredRule): Rule {
  return {
    kind: rule.id,
    regex: compiled(rule.regex, 'gd'),
    secretGroup: rule.secretGroup,
    entropy: rule.entropy,
    path: rule.path === null ? null : compiled(rule.path),
    multiline: rule.multiline,
    allowlists: rule.allowlists.map(allowlistOf),
    generic: CATCH_ALL_KINDS.includes(rule.id),
  }
}

const ALL: readonly VendoredRule[] = [...SOURCE.rules, ...EXTRA_RULES]

export const RULES: readonly Rule[] = ALL.map(ruleOf)

/** gitleaks' global allowlist, less its paths (see docs/decisions.md, "Redaction"). */
export const GLOBAL_ALLOWLIST: Allowlist = allowlistOf({
  target: 'secret',
  condition: 'OR',
  regexes: SOURCE.global.regexes,
  paths: [],
  stopwords: SOURCE.global.stopwords,
})

/** The vendors' example keys: a secret equal to one is no secret. */
export const EXAMPLE_KEYS: ReadonlySet<string> = new Set(DOCUMENTED_EXAMPLE_KEYS)

/** Every rule's kind, in rule order. */
export const KINDS: readonly string[] = RULES.map((rule) => rule.kind)

/**
 * The keywords, looked up by their first two characters: `BIGRAMS` maps
 * the two lower-cased ASCII codes `a << 7 | b` to an index into `KEYWORDS`
 * (-1: none), where the keywords sharing that start follow one another.
 * Every keyword is ASCII and at least two characters long (checked here).
 */
export type Keyword = { text: string; rules: readonly number[] }

/**
 * A first filter before the table: `PAIRS` marks the keywords of two
 * characters by their codes `a << 7 | b`, and `TRIPLES` is a bit set of the
 * first three characters of the others, hashed by `tripleHash` (a hash
 * that collides only costs a look in the table). Most places in a text
 * start some keyword's first two characters (`ke`, `to`, `se`...); few start
 * its first three.
 */
export function tripleHash(a: number, b: number, c: number): number {
  return (Math.imul((a << 14) | (b << 7) | c, 0x9e3779b1) >>> 14) & TRIPLE_MASK
}

const TRIPLE_MASK = (1 << 18) - 1

function keywordTable(): {
  keywords: Keyword[]
  starts: Int32Array
  counts: Int32Array
  pairs: Uint8Array
  triples: Uint32Array
} {
  const byText = new Map<string, number[]>()
  ALL.forEach((rule, index) => {
    if (rule.keywords.length === 0) throw new RangeError(`rule ${rule.id} has no keyword`)
    for (const text of new Set(rule.keywords)) {
      if (!/^[\x20-\x7e]{2,}$/.test(text) || text !== text.toLowerCase()) {
        throw new RangeError(
          `rule ${rule.id}: keyword ${JSON.stringify(text)} is not lower-case ASCII of 2+ characters`,
        )
      }
      byText.set(text, [...(byText.get(text) ?? []), index])
    }
  })
  const keywords = [...byText]
    .map(([text, rules]) => ({ text, rules }))
    .sort((a, b) => bigram(a.text) - bigram(b.text) || (a.text < b.text ? -1 : 1))
  const starts = new Int32Array(1 << 14).fill(-1)
  const counts = new Int32Array(1 << 14)
  const pairs = new Uint8Array(1 << 14)
  const triples = new Uint32Array((TRIPLE_MASK + 1) >>> 5)
  keywords.forEach((keyword, index) => {
    const key = bigram(keyword.text)
    if (starts[key] === -1) starts[key] = index
    counts[key] = (counts[key] ?? 0) + 1
    if (keyword.text.length === 2) pairs[key] = 1
    else {
      const hash = tripleHash(keyword.text.charCodeAt(0), keyword.text.charCodeAt(1), keyword.text.charCodeAt(2))
      triples[hash >>> 5] = (triples[hash >>> 5] ?? 0) | (1 << (hash & 31))
    }
  })
  return { keywords, starts, counts, pairs, triples }
}

function bigram(text: string): number {
  return (text.charCodeAt(0) << 7) | text.charCodeAt(1)
}

const TABLE = keywordTable()
export const KEYWORDS: readonly Keyword[] = TABLE.keywords
export const BIGRAM_STARTS: Int32Array = TABLE.starts
export const BIGRAM_COUNTS: Int32Array = TABLE.counts
export const PAIRS: Uint8Array = TABLE.pairs
export const TRIPLES: Uint32Array = TABLE.triples
