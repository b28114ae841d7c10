/**
 * Derives core/redaction/gitleaks/rules.json from the vendored gitleaks.toml
 * beside it: each rule's Go (RE2) regex rewritten as a JavaScript one, with
 * its keywords, entropy, path and allowlists kept as gitleaks reads them.
 * Run it after replacing gitleaks.toml (and update PROVENANCE.md):
 *
 *   bun scripts/gitleaks-rules.ts
 *
 * test/core/redact-rules.test.ts runs the same conversion and checks that
 * rules.json is what it gives, so the JSON cannot drift from the TOML.
 */
import { join } from 'node:path'
import type { JsRegex, VendoredAllowlist, VendoredRule, VendoredRules } from '../core/redaction/rule-types.ts'

export const RULES_DIR = join(import.meta.dir, '../core/redaction/gitleaks')
export const TOML_PATH = join(RULES_DIR, 'gitleaks.toml')
export const JSON_PATH = join(RULES_DIR, 'rules.json')

/**
 * Rewrites an RE2 regex as a JavaScript one with the same matches for the
 * features gitleaks' rules use. JavaScript has no flag group that runs to
 * the end of the enclosing group, so a `(?i)` in the middle becomes a
 * modifier group `(?i:` closed where the enclosing group (or alternative)
 * ends; one at the very start becomes the flag. `\z` becomes "no character
 * follows", POSIX classes their ranges, and `\s` RE2's ASCII set
 * (JavaScript's would add Unicode spaces). A named group `(?P<name>`
 * becomes a plain non-capturing one: gitleaks' one rule with names
 * (jwt-base64) names the alternatives of a token's first bytes, and as a
 * capture the first of them would pass for the secret, a few characters of
 * it. Anything else RE2 has and JavaScript reads differently is refused
 * rather than guessed.
 */
export function re2ToJs(re2: string): JsRegex {
  let flags = ''
  let rest = re2
  const leading = /^\(\?([ims]+)\)/.exec(rest)
  if (leading?.[1] !== undefined) {
    flags = [...new Set(leading[1])].sort().join('')
    rest = rest.slice(leading[0].length)
  }
  // One entry per open group (the first is the whole pattern): the modifier
  // groups opened inside it by a mid-pattern flag group, to close at its
  // end and to close and reopen around each `|` of its own.
  const groups: string[][] = [[]]
  let out = ''
  let i = 0
  const top = () => groups[groups.length - 1] as string[]
  while (i < rest.length) {
    const c = rest[i] as string
    if (c === '\\') {
      const next = rest[i + 1]
      if (next === undefined) throw new SyntaxError(`trailing backslash in ${re2}`)
      if (next === 'z') out += '(?![\\s\\S])'
      else if (next === 's') out += '[\\t\\n\\f\\r ]'
      else if ('AQEpPCX'.includes(next)) throw new SyntaxError(`\\${next} is not translated: ${re2}`)
      else out += c + next
      i += 2
    } else if (c === '[') {
      const end = classEnd(rest, i)
      out += translateClass(rest.slice(i, end), re2)
      i = end
    } else if (c === '(') {
      const flagGroup = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?\)/.exec(rest.slice(i))
      if (flagGroup !== null) {
        const modifier = `(?${checkedFlags(flagGroup[1] ?? '', re2)}${flagGroup[2] === undefined ? '' : `-${checkedFlags(flagGroup[2], re2)}`}:`
        top().push(modifier)
        out += modifier
        i += flagGroup[0].length
      } else if (rest.startsWith('(?P<', i)) {
        const close = rest.indexOf('>', i)
        if (close === -1) throw new SyntaxError(`unclosed group name in ${re2}`)
        groups.push([])
        out += '(?:'
        i = close + 1
      } else if (rest.startsWith('(?', i)) {
        const inline = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?:/.exec(rest.slice(i))
        if (!rest.startsWith('(?:', i) && inline === null) throw new SyntaxError(`unknown group at ${i} in ${re2}`)
        if (inline !== null && !rest.startsWith('(?:', i)) {
          checkedFlags(`${inline[1] ?? ''}${inline[2] ?? ''}`, re2)
        }
        groups.push([])
        const head = inline === null ? '(?:' : inline[0]
        out += head
        i += head.length
      } else {
        groups.push([])
        out += c
        i += 1
      }
    } else if (c === ')') {
      const closing = groups.pop()
      if (closing === undefined || groups.length === 0) throw new SyntaxError(`unbalanced ) in ${re2}`)
      out += ')'.repeat(closing.length + 1)
      i += 1
    } else if (c === '|') {
      const open = top()
      out += `${')'.repeat(open.length)}|${open.join('')}`
      i += 1
    } else {
      out += c
      i += 1
    }
  }
  if (groups.length !== 1) throw new SyntaxError(`unbalanced ( in ${re2}`)
  out += ')'.repeat(top().length)
  // The result must compile, or the rule set is not what gitleaks has.
  new RegExp(out, flags)
  return { source: out, flags }
}

/** Flags JavaScript's modifier groups take (and RE2 means the same by). */
function checkedFlags(flags: string, re2: string): string {
  for (const flag of flags) if (!'ims'.includes(flag)) throw new SyntaxError(`flag ${flag} is not translated: ${re2}`)
  return flags
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

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: 'a-zA-Z0-9',
  alpha: 'a-zA-Z',
  digit: '0-9',
  lower: 'a-z',
  upper: 'A-Z',
  xdigit: '0-9A-Fa-f',
  space: '\\t\\n\\v\\f\\r ',
  word: '\\w',
}

function translateClass(cls: string, re2: string): string {
  let out = ''
  let i = 0
  while (i < cls.length) {
    const c = cls[i] as string
    if (c === '\\') {
      const next = cls[i + 1] ?? ''
      if (next === 's') out += '\\t\\n\\f\\r '
      else if ('pPQE'.includes(next)) throw new SyntaxError(`\\${next} in a class is not translated: ${re2}`)
      else if (next === '[' || next === ']' || next === '\\' || next === '-' || next === '^') out += c + next
      else out += c + next
      i += 2
    } else if (c === '[' && cls[i + 1] === ':') {
      const close = cls.indexOf(':]', i + 2)
      const name = cls.slice(i + 2, close)
      const ranges = POSIX_CLASSES[name]
      if (ranges === undefined) throw new SyntaxError(`POSIX class ${name} is not translated: ${re2}`)
      out += ranges
      i = close + 2
    } else if (c === '[' && i > 0) {
      // A literal [ inside a class: JavaScript's v flag would read it as a nested class, so escape it.
      out += '\\['
      i += 1
    } else {
      out += c
      i += 1
    }
  }
  return out
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
    regexes: (list.regexes ?? []).map(re2ToJs),
    paths: (list.paths ?? []).map(re2ToJs),
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
      regex: re2ToJs(rule.regex),
      secretGroup: rule.secretGroup ?? 0,
      entropy: rule.entropy ?? 0,
      keywords: (rule.keywords ?? []).map((word) => word.toLowerCase()),
      path: rule.path === undefined ? null : re2ToJs(rule.path),
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
      regexes: (global.regexes ?? []).map(re2ToJs),
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
