/**
 * Redaction benchmark (issue 19): what `redactSharedContext` costs on a
 * 600 KB shared context, with and without secrets in it, beside the diff
 * preparation it follows (`prepareDiffPieces`: hash stripping and lockfile
 * collapse; `buildSharedContext`: that, the redaction and the assembly). Three
 * diffs: `aSyntheticPr` (TypeScript-like hunks), `aMixedDiff` (lockfiles,
 * renames, binaries, CRLF, non-ASCII) and this repository's own code as of
 * CODE_REV (real TypeScript, where "token", "key" and "secret" abound), each
 * cut to about 600 KB once prepared. "With secrets" is the same diff with
 * two of every kind of the test corpus (test/core/redact-corpus.ts) put on
 * added lines, and one in the title and in a commit. Writes
 * bench/results/redact.md and prints it.
 *
 *   npx bun run bench/redact.ts                      # the full run (~1 min on 2 cores)
 *   npx bun run bench/redact.ts --reps 3 --no-write  # a quick look
 *
 * Not a test: it measures, and checks only that every secret put in was
 * taken out.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { prepareDiffPieces } from '../core/diff.ts'
import { buildSharedContext, type SharedContextInput } from '../core/prompt.ts'
import { redactSharedContext } from '../core/redact.ts'
import { Random, SECRET_KINDS } from '../test/core/redact-corpus.ts'
import { fmt, loadText, machineLine, median, publish, ROOT } from './support/common.ts'
import { aMixedDiff, aSyntheticPr } from './support/synthetic-pr.ts'

/** The prepared diff each input is cut to: the rest of a 600 KB context is the header, title and commits. */
const TARGET_BYTES = 590_000
/** The issue's bound: redaction adds at most this to a 600 KB shared context. */
const BOUND_MS = 20
const DEFAULT_REPS = 15
const WARMUPS = 3
/** The code the "this repository" input is cut from: the tip of main the redaction started from. */
const CODE_REV = '02d4d45'
const COMMAND = 'npx bun run bench/redact.ts'
const RESULTS_PATH = join(import.meta.dir, 'results/redact.md')

type Input = { name: string; pr: SharedContextInput; prepared: string; placed: number; secrets: number }

const utf8 = (text: string) => Buffer.byteLength(text)

/** The whole file sections of a diff, up to about `bytes` once prepared. */
function cut(diff: string, bytes: number): string {
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

function repositoryCode(): string {
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

function inputs(): Input[] {
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

let sink = 0

function timed(reps: number, run: () => number): number[] {
  for (let i = 0; i < WARMUPS; i++) sink += run()
  const ms: number[] = []
  for (let i = 0; i < reps; i++) {
    Bun.gc(true)
    const started = performance.now()
    sink += run()
    ms.push(performance.now() - started)
  }
  return ms
}

const redactOnce = (input: Input) => {
  const result = redactSharedContext({
    title: input.pr.title,
    commits: input.pr.commits.map((commit) => commit.message),
    diff: input.prepared,
  })
  return result.findings.length + result.diff.length
}

/** The first call in a fresh process: module load (the rules compiled) and the first redaction, in ms. */
function coldMs(input: Input, dir: string): { load: number; first: number } {
  const path = join(dir, 'input.json')
  writeFileSync(path, JSON.stringify({ title: input.pr.title, commits: input.pr.commits, diff: input.prepared }))
  const script = [
    `const input = JSON.parse(require('node:fs').readFileSync(${JSON.stringify(path)}, 'utf8'))`,
    'const a = performance.now()',
    `const { redactSharedContext } = await import(${JSON.stringify(join(ROOT, 'core/redact.ts'))})`,
    'const b = performance.now()',
    'redactSharedContext({ title: input.title, commits: input.commits.map((c) => c.message), diff: input.diff })',
    'console.log(JSON.stringify({ load: b - a, first: performance.now() - b }))',
  ].join('\n')
  const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })
  return JSON.parse(out) as { load: number; first: number }
}

type Row = {
  input: Input
  contextBytes: number
  redact: number
  redactMin: number
  prepare: number
  context: number
  cold: { load: number; first: number }
}

function main(): void {
  const args = parseArgs({ options: { reps: { type: 'string' }, 'no-write': { type: 'boolean' } } }).values
  const reps = Number(args.reps ?? DEFAULT_REPS)
  const loadBefore = loadText()
  const started = performance.now()
  const dir = mkdtempSync(join(tmpdir(), 'bench-redact-'))
  const rows: Row[] = []
  try {
    for (const input of inputs()) {
      const context = buildSharedContext(input.pr)
      const cold = [0, 1, 2].map(() => coldMs(input, dir))
      const redactMs = timed(reps, () => redactOnce(input))
      rows.push({
        input,
        contextBytes: utf8(context),
        redact: median(redactMs),
        redactMin: Math.min(...redactMs),
        prepare: median(timed(reps, () => prepareDiffPieces(input.pr.diff).length)),
        context: median(timed(reps, () => buildSharedContext(input.pr).length)),
        cold: { load: median(cold.map((c) => c.load)), first: median(cold.map((c) => c.first)) },
      })
      console.error(`${input.name}: done`)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const worst = Math.max(...rows.map((row) => row.redact))
  const report = [
    '# Redaction of a 600 KB shared context',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)} with \`${COMMAND}\` (${reps} timed runs per cell after ${WARMUPS} untimed, a full GC before each; ${fmt((performance.now() - started) / 1000)} s in all).`,
    '',
    machineLine(loadBefore),
    '',
    'Each input is a diff cut (at whole files) so that, hashes stripped and lockfiles collapsed, it comes to about 590 KB; ' +
      'with the header, title and commits the shared context is the size in the second column. ' +
      '"With secrets": two of every kind of the test corpus (test/core/redact-corpus.ts) on added lines, one in the title and one in a commit; ' +
      'the run checks that none survived. **redact** is `redactSharedContext` on the prepared parts, ' +
      '**prepare** is `prepareDiffPieces` (hash stripping and lockfile collapse) on the raw diff, ' +
      '**context** is `buildSharedContext`, what a run does (that, the redaction, fence neutralisation and the assembly). Medians in ms; ' +
      'the fastest redaction beside it in brackets, which is what the code costs with nothing else on the machine.',
    '',
    '| input | context | secrets put in / found | redact | prepare | context | redact / prepare | redact / context | first call in a fresh process (module load + first redaction) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.input.name} | ${fmt(row.contextBytes / 1000)} KB | ${row.input.placed} / ${row.input.secrets} | ${fmt(row.redact, 1)} (${fmt(row.redactMin, 1)}) | ${fmt(row.prepare, 1)} | ${fmt(row.context, 1)} | ${fmt(row.redact / row.prepare, 1)}× | ${fmt(row.redact / row.context, 1)}× | ${fmt(row.cold.load, 0)} + ${fmt(row.cold.first, 0)} |`,
    ),
    '',
    '## Goal',
    '',
    `- Redaction adds at most ${BOUND_MS} ms to a 600 KB shared context: the slowest input took ${fmt(worst, 1)} ms (median): ` +
      `**${worst <= BOUND_MS ? 'met' : `missed by ${fmt(worst - BOUND_MS, 1)} ms`}**. ` +
      'The first redaction in a process costs more (the regexes compile on first use); a controller or classifier pays that once.',
    '',
  ].join('\n')
  if (sink === 0) console.error('(no work was done?)')
  publish(RESULTS_PATH, report, args['no-write'] !== true)
}

main()
