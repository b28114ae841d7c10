/**
 * The rule set, compiled once when the module loads: gitleaks' rules
 * (rules.json, derived from the vendored gitleaks.toml) and then the few
 * added for kinds gitleaks lacks (extra-rules.ts), plus the keyword table
 * that decides which rules run where.
 *
 * Every pattern (a rule's regex, its path, its allowlists' and the global
 * allowlist's) is compiled by re2js, a pure-JavaScript port of RE2: its
 * matching time is linear in the text, whatever the pattern, so no PR can
 * make a rule backtrack (gitleaks' patterns were written for Go's RE2, and
 * JavaScript's backtracking RegExp took seconds per line on some of them).
 * Each is compiled on first use (below).
 */
import { RE2JS } from 're2js'
import { CATCH_ALL_KINDS, DOCUMENTED_EXAMPLE_KEYS, EXTRA_RULES } from './extra-rules.ts'
import vendored from './gitleaks/rules.json' with { type: 'json' }
import { type LazyPrefix, withoutLazyPrefix } from './lazy-prefix.ts'
import kept from './reach.json' with { type: 'json' }
import { type Reach, reachOf, type StoredReach } from './reach.ts'
import type { JsRegex, VendoredAllowlist, VendoredRule, VendoredRules } from './rule-types.ts'

export type Allowlist = {
  target: 'secret' | 'match' | 'line'
  and: boolean
  regexes: readonly RE2JS[]
  /** The regexes as one alternation (null for none): one DFA pass asks whether any of them matches. */
  anyRegex: RE2JS | null
  paths: readonly RE2JS[]
  /** The paths as one alternation (null for none). */
  anyPath: RE2JS | null
  stopwords: readonly string[]
}

export type Rule = {
  /** The kind a placeholder names: gitleaks' rule id, or ours for the added rules. */
  kind: string
  /** The whole pattern, as rules.json or extra-rules.ts give it; linear-time (re2js). */
  regex: RE2JS
  /**
   * What the scan runs: the whole pattern, or for one that opens with
   * gitleaks' lazy identifier prefix, the pattern without it, the match
   * then widened back over `prefix` (core/redaction/lazy-prefix.ts).
   */
  scan: RE2JS
  prefix: LazyPrefix | null
  /** Its keywords, lower case: the rule runs only where one is. */
  keywords: readonly string[]
  /** How far its scan pattern's matches reach from its keywords (core/redaction/reach.ts), worked out on first use. */
  reach: Reach
  secretGroup: number
  entropy: number
  path: RE2JS | null
  multiline: boolean
  allowlists: readonly Allowlist[]
  /** A catch-all (gitleaks' generic rule, our password one); a specific rule's kind wins where both match. */
  generic: boolean
}

const SOURCE: VendoredRules = vendored satisfies VendoredRules

/** Each rule's reach as scripts/redaction-reach.ts wrote it (reach.json), by the rule's kind. */
const KEPT: Readonly<Record<string, StoredReach>> = kept.rules

const RE2_FLAGS: Readonly<Record<string, number>> = {
  i: RE2JS.CASE_INSENSITIVE,
  s: RE2JS.DOTALL,
  m: RE2JS.MULTILINE,
}

/** The pattern in re2js; a flag it has no meaning for is refused rather than dropped. */
export function compiled(regex: JsRegex): RE2JS {
  let flags = 0
  for (const flag of new Set(regex.flags)) {
    const bit = RE2_FLAGS[flag]
    if (bit === undefined) throw new RangeError(`flag ${flag} of /${regex.source}/ is not one RE2 takes`)
    flags |= bit
  }
  return RE2JS.compile(regex.source, flags)
}

/*
 * Patterns are compiled on first use, not when the module loads: a text
 * starts few of the 236 rules (their keywords decide), and compiling all
 * of them and their allowlists took 0.2 to 0.9 s, which every `prompt`
 * and every fresh classifier worker paid before reading its input.
 * test/core/redaction/redact-rules.test.ts compiles every one, so a pattern RE2
 * cannot take still fails the tests, not a run.
 */

/** The regexes as one, each in a group carrying its own flags (`(?i:…)`): it matches where any of them does. */
export function alternation(regexes: readonly JsRegex[]): JsRegex {
  return {
    source: regexes.map((regex) => `(?${regex.flags === '' ? '' : `${regex.flags}`}:${regex.source})`).join('|'),
    flags: '',
  }
}

function allowlistOf(list: VendoredAllowlist): Allowlist {
  const target = list.target
  if (target !== 'secret' && target !== 'match' && target !== 'line') throw new RangeError(`allowlist target ${target}`)
  if (list.condition !== 'AND' && list.condition !== 'OR') throw new RangeError(`allowlist condition ${list.condition}`)
  let regexes: readonly RE2JS[] | undefined
  let anyRegex: RE2JS | null | undefined
  let paths: readonly RE2JS[] | undefined
  let anyPath: RE2JS | null | undefined
  return {
    target,
    and: list.condition === 'AND',
    get regexes() {
      regexes ??= list.regexes.map((regex) => compiled(regex))
      return regexes
    },
    get anyRegex() {
      anyRegex ??= list.regexes.length === 0 ? null : compiled(alternation(list.regexes))
      return anyRegex
    },
    get paths() {
      paths ??= list.paths.map((regex) => compiled(regex))
      return paths
    },
    get anyPath() {
      anyPath ??= list.paths.length === 0 ? null : compiled(alternation(list.paths))
      return anyPath
    },
    stopwords: list.stopwords,
  }
}

function ruleOf(rule: VendoredRule): Rule {
  const split = withoutLazyPrefix(rule.regex.source, rule.regex.flags)
  const allowlists = rule.allowlists.map(allowlistOf)
  let regex: RE2JS | undefined
  let scan: RE2JS | undefined
  let path: RE2JS | null | undefined
  let reach: Reach | undefined
  return {
    kind: rule.id,
    get regex() {
      regex ??= compiled(rule.regex)
      return regex
    },
    get scan() {
      scan ??= split === null ? this.regex : compiled({ source: split.rest, flags: rule.regex.flags })
      return scan
    },
    prefix: split?.prefix ?? null,
    keywords: rule.keywords,
    get reach() {
      reach ??= reachOf(this.scan, rule.keywords, KEPT[rule.id])
      return reach
    },
    secretGroup: rule.secretGroup,
    entropy: rule.entropy,
    get path() {
      if (path === undefined) path = rule.path === null ? null : compiled(rule.path)
      return path
    },
    multiline: rule.multiline,
    allowlists,
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
const TRIGRAM_SPAN_ = 1024

function keywordTable(): {
  keywords: Keyword[]
  starts: Int32Array
  counts: Int32Array
  pairs: Uint8Array
  triples: Uint32Array
  pairKeyword: Int32Array
  trigrams: Map<number, number>
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
  const pairKeyword = new Int32Array(1 << 14).fill(-1)
  const trigrams = new Map<number, number>()
  keywords.forEach((keyword, index) => {
    const key = bigram(keyword.text)
    if (starts[key] === -1) starts[key] = index
    counts[key] = (counts[key] ?? 0) + 1
    if (keyword.text.length === 2) {
      pairs[key] = 1
      pairKeyword[key] = index
    } else {
      const hash = tripleHash(keyword.text.charCodeAt(0), keyword.text.charCodeAt(1), keyword.text.charCodeAt(2))
      triples[hash >>> 5] = (triples[hash >>> 5] ?? 0) | (1 << (hash & 31))
      // Keywords are sorted by their text, so those sharing three first characters follow one another.
      const three = (key << 7) | keyword.text.charCodeAt(2)
      const range = trigrams.get(three)
      trigrams.set(three, range === undefined ? index * TRIGRAM_SPAN_ + 1 : range + 1)
    }
  })
  return { keywords, starts, counts, pairs, triples, pairKeyword, trigrams }
}

function bigram(text: string): number {
  return (text.charCodeAt(0) << 7) | text.charCodeAt(1)
}

const TABLE = keywordTable()
export const KEYWORDS: readonly Keyword[] = TABLE.keywords
export const BIGRAM_STARTS: Int32Array = TABLE.starts
export const PAIRS: Uint8Array = TABLE.pairs
export const TRIPLES: Uint32Array = TABLE.triples
/** The keyword of two characters with these (`a << 7 | b`), else -1. */
export const PAIR_KEYWORD: Int32Array = TABLE.pairKeyword
/**
 * The keywords of three or more characters by their first three (`a << 14 | b << 7 | c`): the first one's index
 * times TRIGRAM_SPAN plus how many follow it.
 */
export const TRIGRAMS: ReadonlyMap<number, number> = TABLE.trigrams
export const TRIGRAM_SPAN = TRIGRAM_SPAN_
