/**
 * Checks the converted rules against gitleaks' own test samples: each rule
 * of gitleaks is generated from a Go file (cmd/generate/config/rules/*.go)
 * that lists true positives (`tps`) and false positives (`fps`) for it.
 * This runs every sample written there as a plain string literal (the
 * generated ones are not) through core/redaction's scan, and counts the
 * true positives the same rule finds and the false positives it flags.
 *
 *   bun scripts/gitleaks-conformance.ts /path/to/a/gitleaks/checkout
 *
 * The checkout should be at the tag PROVENANCE.md names. Not a test: the
 * repository carries gitleaks' rules, not its Go sources (whose samples
 * would trip secret scanners). It then runs our own rules' cases
 * (test/core/redaction/redact-own-samples.ts, which test/core/redaction/redact-own-rules.test.ts
 * asserts) the same way, so one command reports on every rule.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { RULES } from '../core/redaction/rules.ts'
import { findSecrets } from '../core/redaction/scan.ts'
import { OWN_RULE_SAMPLES } from '../test/core/redaction/redact-own-samples.ts'

/** The rules that apply to some files only, and a path each applies to. */
const PATHS: Readonly<Record<string, string>> = {
  'freemius-secret-key': 'src/config.php',
  'hashicorp-tf-password': 'infra/main.tf',
  'kubernetes-secret-yaml': 'deploy/secret.yaml',
  'nuget-config-password': 'nuget.config',
}

/** The Go string literal starting at `at` (raw or interpreted): its value and the index after it. */
function literalAt(text: string, at: number): { value: string | undefined; end: number } {
  if (text[at] === '`') {
    const end = text.indexOf('`', at + 1)
    return { value: text.slice(at + 1, end), end: end + 1 }
  }
  let end = at + 1
  while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1
  try {
    return { value: JSON.parse(text.slice(at, end + 1).replace(/\\'/g, "'")) as string, end: end + 1 }
  } catch {
    return { value: undefined, end: end + 1 }
  }
}

/** The entries of the `[]string{…}` opening at `open` that are one literal each, not an expression. */
function literalEntries(text: string, open: number): string[] {
  const entries: string[] = []
  let depth = 1
  let entryStart = true
  for (let i = open; i < text.length && depth > 0; ) {
    const c = text[i] as string
    if (c === '/' && text[i + 1] === '/') {
      i = text.indexOf('\n', i)
      continue
    }
    if (c === '`' || c === '"') {
      const { value, end } = literalAt(text, i)
      const after = /^[ \t]*(?:,|\n|\}|\/\/)/.test(text.slice(end, end + 40))
      if (entryStart && after && value !== undefined) entries.push(value)
      entryStart = false
      i = end
      continue
    }
    if (c === '{' || c === '(') depth += 1
    else if (c === '}' || c === ')') depth -= 1
    else if (c === ',') entryStart = true
    else if (!/\s/.test(c)) entryStart = false
    i += 1
  }
  return entries
}

function main(checkout: string): void {
  const dir = join(checkout, 'cmd/generate/config/rules')
  const counts = { tp: 0, tpFound: 0, fp: 0, fpFlagged: 0 }
  const misses: string[] = []
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.go'))) {
    for (const fn of readFileSync(join(dir, file), 'utf8')
      .split(/\nfunc /)
      .slice(1)) {
      const id = /RuleID:\s*"([^"]+)"/.exec(fn)?.[1]
      if (id === undefined || !RULES.some((rule) => rule.kind === id)) continue
      for (const list of ['tps', 'fps'] as const) {
        const open = new RegExp(`\\b${list}\\s*:?=\\s*(?:append\\(${list},\\s*)?\\[\\]string\\{`).exec(fn)
        if (open === null) continue
        for (const sample of literalEntries(fn, open.index + open[0].length)) {
          const path = PATHS[id] ?? 'notes/sample.txt'
          const spans = findSecrets(sample, { start: 0, end: sample.length, path: () => path, diff: false })
          const byRule = spans.some((span) => RULES[span.rule]?.kind === id)
          if (list === 'tps') {
            counts.tp += 1
            if (byRule) counts.tpFound += 1
            else misses.push(`missed (${id}), sample ${counts.tp}`)
          } else {
            counts.fp += 1
            if (byRule) {
              counts.fpFlagged += 1
              misses.push(`flagged (${id}), sample ${counts.fp}`)
            }
          }
        }
      }
    }
  }
  console.log(`true positives found by their rule: ${counts.tpFound} of ${counts.tp}`)
  console.log(`false positives flagged by their rule: ${counts.fpFlagged} of ${counts.fp}`)
  for (const miss of misses) console.log(`  ${miss}`)
  if (misses.length > 0) process.exitCode = 1
  ownRules()
}

/** Our own rules' true and false cases: a true one found by its rule, a false one by none. */
function ownRules(): void {
  const counts = { tp: 0, tpFound: 0, fp: 0, fpFlagged: 0 }
  const misses: string[] = []
  for (const { id, tps, fps } of OWN_RULE_SAMPLES) {
    for (const [list, samples] of [
      ['tps', tps],
      ['fps', fps],
    ] as const) {
      samples.forEach((sample, index) => {
        const diff = sample.text.startsWith('diff --git ')
        const spans = findSecrets(sample.text, { start: 0, end: sample.text.length, path: () => sample.path, diff })
        if (list === 'tps') {
          counts.tp += 1
          if (spans.some((span) => RULES[span.rule]?.kind === id)) counts.tpFound += 1
          else misses.push(`missed (${id}), case ${index + 1}`)
        } else {
          counts.fp += 1
          if (spans.length > 0) {
            counts.fpFlagged += 1
            misses.push(`flagged (${id}), case ${index + 1}`)
          }
        }
      })
    }
  }
  console.log(`our rules' true cases found: ${counts.tpFound} of ${counts.tp}`)
  console.log(`our rules' false cases flagged: ${counts.fpFlagged} of ${counts.fp}`)
  for (const miss of misses) console.log(`  ${miss}`)
  if (misses.length > 0) process.exitCode = 1
}

if (import.meta.main) {
  const checkout = process.argv[2]
  if (checkout === undefined) throw new Error('usage: bun scripts/gitleaks-conformance.ts <gitleaks checkout>')
  main(checkout)
}
