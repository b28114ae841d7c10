/**
 * The single lines issue 27 names as a hostile PR author's (and two worse
 * ones of ours), each put alone in a one-file diff: what one line can cost
 * the redaction. Deterministic: the same bytes on every run.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { KEYWORDS, RULES } from '../../core/redaction/rules.ts'
import { ROOT } from '../support/common.ts'

export type AdversarialLine = { name: string; why: string; line: string }

const MIB = 1_048_576

/** Identifier characters, `[\w.-]`, the run gitleaks' lazy prefixes backtracked over. */
function identifierRun(length: number): string {
  return 'aB3.c-d_9'.repeat(Math.ceil(length / 9)).slice(0, length)
}

/** Base64 of a seeded PRNG's bytes, as an inlined image's data is. */
function base64Run(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
  let state = 12345
  let out = ''
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff
    out += alphabet[state % 64]
  }
  return out
}

/** This repository's own TypeScript (core/), joined into one line as a minifier would, to `length`. */
function minifiedCode(length: number): string {
  // Every .ts file under core/, its capability folders included, in path order.
  const dir = join(ROOT, 'core')
  const code = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .sort()
    .map((name) => readFileSync(join(dir, name), 'utf8').replace(/\s*\n\s*/g, ';'))
    .join(';')
  return code.repeat(Math.ceil(length / code.length)).slice(0, length)
}

const ALL_KEYWORDS = KEYWORDS.map((keyword) => keyword.text)

export function adversarialLines(): AdversarialLine[] {
  return [
    {
      name: 'keyword + 120 KB of [\\w.-]',
      why: 'okta (two nested lazy prefixes) before a run its prefix backtracked over',
      line: `okta_token = ${identifierRun(120_000)}`,
    },
    {
      name: 'keyword + 1 MiB of [\\w.-]',
      why: 'the same, as long as a run may carry',
      line: `okta_token = ${identifierRun(MIB - 13)}`,
    },
    {
      name: '550 KB base64 line',
      why: 'an inlined SVG under a key-like name, as in a real repository',
      line: `  const iconKey = "data:image/svg+xml;base64,${base64Run(550_000)}"`,
    },
    {
      name: '120 KB keyword line',
      why: 'keywords of many rules, over and over, with the operators they look for',
      line: 'api_key=okta.token:secret-password,auth=cohere_key '.repeat(120_000 / 52).slice(0, 120_000),
    },
    {
      name: '1 MiB minified code',
      why: "this repository's core/ joined into one line",
      line: minifiedCode(MIB),
    },
    {
      name: 'every keyword + 1 MiB of [\\w.-]',
      why: `all ${RULES.length} rules start on the line and each scans all of it`,
      line: `${ALL_KEYWORDS.join(' ')} ${identifierRun(MIB - 10_000)}`,
    },
    {
      name: 'password= and SECRET_KEY= pairs, 1 MiB',
      why: "about 4,800 lines' worth of settings run together: 9,640 secrets, each a match of three rules",
      line: Array.from(
        { length: 5000 },
        (_, i) => `password="Zq${i}x!${'a1B2'.repeat(10)}" SECRET_KEY='${'k9Z'.repeat(20)}${i}' ${'pad '.repeat(20)}`,
      )
        .join('')
        .slice(0, MIB),
    },
    {
      name: 'password= and SECRET_KEY= packed, 1 MiB',
      why: 'the same with nothing between: 34,380 secrets',
      line: "password=s3cr3t!x9 SECRET_KEY='abcdefghij0123456789xyzXYZ!@' ".repeat(Math.ceil(MIB / 60)).slice(0, MIB),
    },
    {
      name: 'password= packed, 1 MiB',
      why: 'the shortest assignment our password rule takes, over and over: 55,188 secrets',
      line: 'password=s3cr3t!x9 '.repeat(Math.ceil(MIB / 19)).slice(0, MIB),
    },
    {
      name: 'password=" and 190 characters, 1 MiB',
      why: "each value runs to the next one's quote: gitleaks' generic rule tries every length of its own before a match",
      line: `password="${'a1'.repeat(95)} `.repeat(Math.ceil(MIB / 201)).slice(0, MIB),
    },
    {
      name: 'key= and a 1 MiB value',
      why: 'one match as long as the line: a search wider than the table of states',
      line: `key=${'a'.repeat(MIB - 4)}`,
    },
    {
      name: 'PEM headers and no key, 1 MiB',
      why: 'each header a private-key match the checks pass over, searched again from its next character',
      line: '"-----BEGIN PRIVATE KEY-----", '.repeat(Math.ceil(MIB / 31)).slice(0, MIB),
    },
    {
      name: 'every keyword, over and over, 1 MiB',
      why: 'each keyword followed by 40 identifier characters, the whole list repeated',
      line: ALL_KEYWORDS.map((keyword) => `${keyword}${identifierRun(40)}`)
        .join(' ')
        .repeat(120)
        .slice(0, MIB),
    },
  ]
}

/** The line as the only added line of a one-file diff. */
export function diffOf(line: string): string {
  return `diff --git a/assets/line.txt b/assets/line.txt\n--- a/assets/line.txt\n+++ b/assets/line.txt\n@@ -0,0 +1 @@\n+${line}\n`
}
