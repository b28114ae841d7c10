/**
 * Derives core/redaction/gitleaks/rules.json from the vendored gitleaks.toml
 * beside it: each rule's Go (RE2) regex as core/redaction's RE2 engine takes
 * it (`re2Pattern`), with its keywords, entropy, path and allowlists kept as
 * gitleaks reads them.
 * Run it after replacing gitleaks.toml (and update PROVENANCE.md):
 *
 *   bun scripts/gitleaks-rules.ts
 *
 * test/core/redaction/redact-rules.test.ts runs the same conversion and checks that
 * rules.json is what it gives, so the JSON cannot drift from the TOML.
 */
import { join } from 'node:path'
import { RE2JS } from 're2js'
import type { JsRegex, VendoredAllowlist, VendoredRule, VendoredRules } from '../core/redaction/rule-types.ts'

export const RULES_DIR = join(import.meta.dir, '../core/redaction/gitleaks')
export const TOML_PATH = join(RULES_DIR, 'gitleaks.toml')
export const JSON_PATH = join(RULES_DIR, 'rules.json')

/**
 * An RE2 regex as core/redaction compiles it: gitleaks' own pattern, which
 * the linear-time RE2 engine there (re2js) reads as Go does, with one
 * change. A named group `(?P<name>` (or `(?<name>`) becomes a plain
 * non-capturing one: gitleaks' one rule with names (jwt-base64) names the
 * alternatives of a token's first bytes, and as a capture the first of
 * them would pass for the secret, a few characters of it. The result must
 * compile in re2js, or the conversion fails rather than drop a rule.
 */
export function re2Pattern(re2: string): JsRegex {
  let out = ''
  let i = 0
  while (i < re2.length) {
    const c = re2[i] as string
    if (c === '\\') {
      if (i + 1 >= re2.length) throw new SyntaxError(`trailing backslash in ${re2}`)
      out += re2.slice(i, i + 2)
      i += 2
    } else if (c === '[') {
      const end = classEnd(re2, i)
      out += re2.slice(i, end)
      i = end
    } else if (re2.startsWith('(?P<', i) || (re2.startsWith('(?<', i) && re2[i + 3] !== '=' && re2[i + 3] !== '!')) {
      const close = re2.indexOf('>', i)
      if (close === -1) throw new SyntaxError(`unclosed group name in ${re2}`)
      out += '(?:'
      i = close + 1
    } else {
      out += c
      i += 1
    }
  }
  // Throws on what RE2 does not take (a backreference, a lookaround).
  RE2JS.compile(out)
  return { source: out, flags: '' }
}

/** The index after the class that opens at `start`: a `]` right after `[` or `[^` is a literal. */
function classEnd(text: string, start: number): number {
  let i = start + 1
  if (text[i] === '^') i += 1
  if (text[i] === ']') i += 1
  while (i < text.length) {
    const c = text[i]
    if (c === '\\') i += 2
    else if (c === '[' && text[i + 1] === ':') {
      const close = text.indexOf(':]', i + 2)
      if (close === -1) throw new SyntaxError(`unclosed POSIX class in ${text}`)
      i = close + 2
    } else if (c === ']') return i + 1
    else i += 1
  }
  throw new SyntaxError(`unclosed class in ${text}`)
}

type TomlAllowlist = {
  regexTarget?: string
  condition?: string
  regexes?: string[]
  paths?: string[]
  stopwords?: string[]
  commits?: string[]
}
type TomlRule = {
  id: string
  regex?: string
  secretGroup?: number
  entropy?: number
  keywords?: string[]
  path?: string
  allowlists?: TomlAllowlist[]
}
type TomlConfig = { allowlist?: TomlAllowlist; rules: TomlRule[] }

function allowlistOf(list: TomlAllowlist, ruleId: string): VendoredAllowlist {
  const target = list.regexTarget ?? 'secret'
  if (target !== 'secret' && target !== 'match' && target !== 'line') {
    throw new SyntaxError(`${ruleId}: unknown regexTarget ${target}`)
  }
  const condition = (list.condition ?? 'OR').toUpperCase()
  if (condition !== 'OR' && condition !== 'AND') throw new SyntaxError(`${ruleId}: unknown condition ${condition}`)
  if ((list.commits ?? []).length > 0) throw new SyntaxError(`${ruleId}: commit allowlists are not translated`)
  return {
    target,
    condition,
    regexes: (list.regexes ?? []).map(re2Pattern),
    paths: (list.paths ?? []).map(re2Pattern),
    stopwords: (list.stopwords ?? []).map((word) => word.toLowerCase()),
  }
}

const MULTILINE = /\\n|\\r|\[\\s\\S|\(\?[a-z]*s|\\z/

/** The conversion of a gitleaks config's text (the TOML), as rules.json holds it. */
export function convert(tomlText: string, source: string): VendoredRules {
  const config = Bun.TOML.parse(tomlText) as TomlConfig
  const rules: VendoredRule[] = []
  const skipped: { id: string; why: string }[] = []
  for (const rule of config.rules) {
    if (rule.regex === undefined) {
      skipped.push({ id: rule.id, why: 'matches file paths only, and a diff names no binary content to redact' })
      continue
    }
    rules.push({
      id: rule.id,
      regex: re2Pattern(rule.regex),
      secretGroup: rule.secretGroup ?? 0,
      entropy: rule.entropy ?? 0,
      keywords: (rule.keywords ?? []).map((word) => word.toLowerCase()),
      path: rule.path === undefined ? null : re2Pattern(rule.path),
      multiline: MULTILINE.test(rule.regex),
      allowlists: (rule.allowlists ?? []).map((list) => allowlistOf(list, rule.id)),
    })
  }
  const global = config.allowlist ?? {}
  return {
    source,
    rules,
    skipped,
    global: {
      regexes: (global.regexes ?? []).map(re2Pattern),
      stopwords: (global.stopwords ?? []).map((word) => word.toLowerCase()),
    },
  }
}

export const SOURCE_NOTE = 'gitleaks v8.30.1 config/gitleaks.toml, converted by scripts/gitleaks-rules.ts'

if (import.meta.main) {
  const converted = convert(await Bun.file(TOML_PATH).text(), SOURCE_NOTE)
  await Bun.write(JSON_PATH, `${JSON.stringify(converted, null, 2)}\n`)
  // Formatted as the linter wants it; the test compares the parsed JSON, so the layout is free.
  const biome = Bun.spawnSync([join(import.meta.dir, '../node_modules/.bin/biome'), 'format', '--write', JSON_PATH])
  if (biome.exitCode !== 0) throw new Error(`biome format failed: ${biome.stderr.toString()}`)
  console.log(`wrote ${JSON_PATH}: ${converted.rules.length} rules, ${converted.skipped.length} skipped`)
}
