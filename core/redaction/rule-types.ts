/**
 * The shape of a secret-detection rule as core/redaction reads it: gitleaks'
 * rule fields (config/gitleaks.toml), each regex in RE2 syntax as gitleaks
 * has it (scripts/gitleaks-rules.ts only makes its named groups plain).
 */

/**
 * A regex in RE2 syntax, matched by a linear-time RE2 engine (re2js; see
 * core/redaction/rules.ts), never by JavaScript's backtracking RegExp.
 * `flags` may hold `i`, `s` and `m`, meant as RE2 and JavaScript both mean
 * them. The name is kept from when these were JavaScript regexes; a rule
 * written in the syntax both share reads the same in either.
 */
export type JsRegex = { source: string; flags: string }

export type VendoredAllowlist = {
  /** What the regexes are tried on: `secret` (gitleaks' default), the whole `match`, or the match's `line`s. */
  target: string
  /** `AND`: every kind of check the allowlist has must hold; `OR` (the default): any one. */
  condition: string
  regexes: JsRegex[]
  paths: JsRegex[]
  /** Lower-case; the secret is allowed when it contains one. */
  stopwords: string[]
}

export type VendoredRule = {
  id: string
  regex: JsRegex
  /** The capture group that holds the secret; 0 means the first non-empty group, or the match if none. */
  secretGroup: number
  /** 0: no entropy check; else the secret's Shannon entropy must be above it. */
  entropy: number
  /** Lower-case; the rule runs only on text that holds one (none: always). */
  keywords: string[]
  /** The rule applies only to files whose path matches. */
  path: JsRegex | null
  /**
   * The pattern names a line break (`\n`, `\r`, `[\s\S]`, `(?s)`, `\z`), so
   * it is meant to span lines and runs on a whole file's text; the others
   * run on each line that holds one of their keywords.
   */
  multiline: boolean
  allowlists: VendoredAllowlist[]
}

/** What rules.json holds. */
export type VendoredRules = {
  source: string
  rules: VendoredRule[]
  /** Rules left out, with why. */
  skipped: { id: string; why: string }[]
  global: { regexes: JsRegex[]; stopwords: string[] }
}
