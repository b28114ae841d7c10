/**
 * The 600 KB shared contexts bench/redact.ts redacts: `aSyntheticPr`
 * (TypeScript-like hunks), `aMixedDiff` (lockfiles, renames, binaries, CRLF,
 * non-ASCII) and this repository's own code as of CODE_REV, each cut to
 * about 600 KB once prepared, and each again with two of every kind of the
 * test corpus (test/core/redaction/redact-corpus.ts) on added lines, one in the title
 * and in a commit. Checks that every secret put in was taken out.
 */
import { execFileSync } from 'node:child_process'
import { prepareDiffPieces } from '../../core/diff/diff.ts'
import { redactSharedContext } from '../../core/redaction/redact.ts'
import type { SharedContextInput } from '../../core/run/prompt.ts'
import { Random, SECRET_KINDS } from '../../test/core/redaction/redact-corpus.ts'
import { ROOT } from '../support/common.ts'
import { aMixedDiff, aSyntheticPr } from '../support/synthetic-pr.ts'

/** The prepared diff each input is cut to: the rest of a 600 KB context is the header, title and commits. */
export const TARGET_BYTES = 590_000
/** The code the "this repository" input is cut from: the tip of main the redaction started from. */
export const CODE_REV = '02d4d45'

export type Input = { name: string; pr: SharedContextInput; prepared: string; placed: number; secrets: number }

export const utf8 = (text: string) => Buffer.byteLength(text)

/** The whole file sections of a diff, up to about `bytes` once prepared. */
export function cut(diff: string, bytes: number): string {
  // Sections are prepared each on its own, so their prepared sizes add up.
  const kept: string[] = []
  let size = 0
  for (const section of diff.split(/(?=^diff --git )/m)) {
    size += utf8(prepareDiffPieces(section).join(''))
    if (size > bytes) break
    kept.push(section)
  }
  return kept.join('')
}

export function repositoryCode(): string {
  // Against the empty tree: every file of those folders as added.
  const emptyTree = execFileSync('git', ['-C', ROOT, 'hash-object', '-t', 'tree', '/dev/null'], {
    encoding: 'utf8',
  }).trim()
  return execFileSync(
    'git',
    ['-C', ROOT, 'diff', '--no-color', emptyTree, CODE_REV, '--', 'core', 'adapters', 'entrypoints', 'ui', 'test'],
    { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 },
  )
}

/** The diff with two samples of every corpus kind on new added lines, spread over its files, and what they hold. */
function withSecrets(diff: string): { diff: string; title: string; commit: string; secrets: string[]; placed: number } {
  const random = new Random(20261201)
  const samples = SECRET_KINDS.flatMap((kind) => [kind.make(random), kind.make(random)])
  const sections = diff.split(/(?=^diff --git )/m)
  const hunkAt = (section: string) => section.search(/^@@ .*\n/m)
  const placed: typeof samples = []
  // Code sections only: a lockfile's collapses to a line, and a binary one has no hunk.
  const usable = sections.map(
    (section) => hunkAt(section) !== -1 && !prepareDiffPieces(section).join('').includes(', collapsed)'),
  )
  samples.forEach((sample, index) => {
    let target = Math.floor(((index + 0.5) / samples.length) * sections.length)
    while (target < sections.length && usable[target] !== true) target += 1
    const section = sections[target] ?? ''
    const at = hunkAt(section)
    if (at === -1) return
    placed.push(sample)
    const headerEnd = section.indexOf('\n', at) + 1
    // A hunk header's counts are not read by the redaction, so the lines go in as they are; a key over several
    // lines as a key file holds it (a .ppk's lines each behind code would be no .ppk).
    const lines = sample.text
      .split('\n')
      .map((line) => (sample.multiline ? `+${line}\n` : `+const value${index} = ${line}\n`))
      .join('')
    sections[target] = section.slice(0, headerEnd) + lines + section.slice(headerEnd)
  })
  // The title and the commit repeat two of the diff's, so they get the numbers those have.
  const first = placed.find((s) => !s.multiline)
  const second = placed.filter((s) => !s.multiline)[3]
  return {
    diff: sections.join(''),
    title: `Add the deploy settings (${first?.text ?? ''})`,
    commit: `Add the deploy settings\n\nUses ${second?.text ?? ''} for now.`,
    secrets: placed.flatMap((s) => s.secrets),
    placed: placed.length,
  }
}

export function inputs(): Input[] {
  const synthetic = aSyntheticPr(700_000)
  const raw: [string, string][] = [
    ['synthetic (aSyntheticPr)', synthetic.diff],
    ['mixed (aMixedDiff)', aMixedDiff(1_600_000)],
    [`this repository's code at ${CODE_REV}`, repositoryCode()],
  ]
  const out: Input[] = []
  for (const [name, full] of raw) {
    const diff = cut(full, TARGET_BYTES)
    const commits = synthetic.commits
    const plain: SharedContextInput = { repo: 'acme/ledger', pr: 314, title: synthetic.title, commits, diff }
    const clean = prepareDiffPieces(diff).join('')
    const found = redactSharedContext({ title: plain.title, commits: commits.map((c) => c.message), diff: clean })
    out.push({ name, pr: plain, prepared: clean, placed: 0, secrets: found.redacted })
    const secret = withSecrets(diff)
    const dirty: SharedContextInput = {
      ...plain,
      title: secret.title,
      commits: [...commits, { message: secret.commit }],
      diff: secret.diff,
    }
    const prepared = prepareDiffPieces(secret.diff).join('')
    const result = redactSharedContext({
      title: dirty.title,
      commits: dirty.commits.map((c) => c.message),
      diff: prepared,
    })
    const all = [result.title, ...result.commits, result.diff.join('')].join('\n')
    const left = secret.secrets.filter((s) => all.includes(s))
    if (left.length > 0) throw new Error(`${name}: ${left.length} secrets survived the redaction`)
    out.push({ name: `${name}, with secrets`, pr: dirty, prepared, placed: secret.placed, secrets: result.redacted })
  }
  return out
}
