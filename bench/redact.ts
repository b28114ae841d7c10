/**
 * Redaction benchmark (issues 19 and 27), four parts:
 *
 * 1. `redactSharedContext` on 600 KB shared contexts (bench/redact/contexts.ts),
 *    with and without secrets, before issue 27 (JavaScript's RegExp, core/ as
 *    of BEFORE_REV) and now (re2js), beside the diff preparation it follows.
 * 2. Single hostile lines (bench/redact/adversarial.ts), each alone in a
 *    diff: before (in a child process stopped past CAP_MS) and now.
 * 3. The engines alone on the worst of those lines: every rule's DFA pass in
 *    re2js, and in re2-wasm when installed (bench/redact/engines.ts).
 * 4. The whole `prompt` command on 1 MiB diffs (bench/redact/prompt-command.ts).
 *
 * Writes bench/results/redact.md and prints it.
 *
 *   npx bun run bench/redact.ts                      # the full run (~5 min on 2 cores)
 *   npx bun run bench/redact.ts --reps 3 --no-write  # a quick look
 *
 * Not a test: it measures, and checks only that every secret put in was
 * taken out.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { prepareDiffPieces } from '../core/diff/diff.ts'
import { type RedactionInput, redactSharedContext } from '../core/redaction/redact.ts'
import { buildSharedContext } from '../core/run/prompt.ts'
import { adversarialLines, diffOf } from './redact/adversarial.ts'
import { type Input, inputs, utf8 } from './redact/contexts.ts'
import { linearEngines } from './redact/engines.ts'
import { promptCommandFigures } from './redact/prompt-command.ts'
import { fmt, loadText, machineLine, median, publish, ROOT, unpackRevision } from './support/common.ts'

/** core/ before issue 27: the tip of main this work started from, JavaScript's RegExp on the converted rules. */
const BEFORE_REV = '7828401'
/** Issue 27's bounds. */
const CONTEXT_BOUND_MS = 20
const LINE_BOUND_MS = 1_000
const COMMAND_BOUND_MS = 2_000
/** How long a "before" redaction of one line may run before it is stopped. */
const CAP_MS = 60_000
const DEFAULT_REPS = 15
const WARMUPS = 3
const COMMAND = 'npx bun run bench/redact.ts'
const RESULTS_PATH = join(import.meta.dir, 'results/redact.md')

type Redact = (input: RedactionInput) => { findings: unknown[]; diff: string[] }

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

const partsOf = (input: Input): RedactionInput => ({
  title: input.pr.title,
  commits: input.pr.commits.map((commit) => commit.message),
  diff: input.prepared,
})

/** The first call in a fresh process: module load (the rules compiled) and the first redaction, in ms. */
function coldMs(input: Input, dir: string): { load: number; first: number } {
  const path = join(dir, 'input.json')
  writeFileSync(path, JSON.stringify(partsOf(input)))
  const script = [
    `const input = JSON.parse(require('node:fs').readFileSync(${JSON.stringify(path)}, 'utf8'))`,
    'const a = performance.now()',
    `const { redactSharedContext } = await import(${JSON.stringify(join(ROOT, 'core/redaction/redact.ts'))})`,
    'const b = performance.now()',
    'redactSharedContext(input)',
    'console.log(JSON.stringify({ load: b - a, first: performance.now() - b }))',
  ].join('\n')
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as {
    load: number
    first: number
  }
}

/** The "before" redaction of a diff in a child process, or null when stopped past CAP_MS. */
function beforeLineMs(beforeDir: string, diff: string, dir: string): number | null {
  const file = join(dir, 'line.diff')
  writeFileSync(file, diff)
  const run = spawnSync(process.execPath, [join(import.meta.dir, 'redact/before-child.ts'), beforeDir, file], {
    encoding: 'utf8',
    timeout: CAP_MS,
  })
  if (run.status !== 0) return null
  return (JSON.parse(run.stdout) as { ms: number }).ms
}

const ms = (value: number | null, decimals = 0) =>
  value === null ? `over ${CAP_MS / 1000} s (stopped)` : `${fmt(value, decimals)} ms`
const verdict = (ok: boolean, over: string) => (ok ? '**met**' : `**missed** (${over})`)

async function main(): Promise<void> {
  const args = parseArgs({ options: { reps: { type: 'string' }, 'no-write': { type: 'boolean' } } }).values
  const reps = Number(args.reps ?? DEFAULT_REPS)
  const loadBefore = loadText()
  const started = performance.now()
  const dir = mkdtempSync(join(tmpdir(), 'bench-redact-'))
  const before = unpackRevision(BEFORE_REV, ['core'])
  const report: string[] = []
  try {
    const beforeRedact = (await import(join(before.dir, 'core/redact.ts'))).redactSharedContext as Redact
    // 1. 600 KB contexts.
    const rows = inputs().map((input) => {
      const now = timed(reps, () => redactSharedContext(partsOf(input)).findings.length + 1)
      const then = timed(reps, () => beforeRedact(partsOf(input)).findings.length + 1)
      const cold = [0, 1, 2].map(() => coldMs(input, dir))
      console.error(`${input.name}: done`)
      return {
        input,
        contextBytes: utf8(buildSharedContext(input.pr)),
        now: median(now),
        nowMin: Math.min(...now),
        before: median(then),
        prepare: median(timed(reps, () => prepareDiffPieces(input.pr.diff).length)),
        cold: { load: median(cold.map((c) => c.load)), first: median(cold.map((c) => c.first)) },
      }
    })
    const worstContext = Math.max(...rows.map((row) => row.now))
    // 2. Hostile lines.
    const lines = adversarialLines().map((line) => {
      const diff = diffOf(line.line)
      const parts = { title: '', commits: [], diff: prepareDiffPieces(diff).join('') }
      const runs = [0, 1, 2, 3].map(() => {
        const t = performance.now()
        sink += redactSharedContext(parts).findings.length + 1
        return performance.now() - t
      })
      const then = beforeLineMs(before.dir, diff, dir)
      console.error(`${line.name}: done`)
      return { line, bytes: utf8(line.line), first: runs[0] ?? 0, warm: median(runs.slice(1)), before: then }
    })
    const worstLine = Math.max(...lines.map((row) => Math.max(row.first, row.warm)))
    // 3. Engines on the worst line for the rule count.
    const everyKeyword = adversarialLines().find((line) => line.name.startsWith('every keyword +'))
    const engines = everyKeyword === undefined ? [] : await linearEngines(everyKeyword.line)
    // 4. The whole command.
    const overAndOver = adversarialLines().find((line) => line.name.startsWith('every keyword, over'))
    const commands = promptCommandFigures(
      diffOf(everyKeyword?.line ?? ''),
      diffOf((overAndOver?.line ?? '').slice(0, 580_000)),
      Math.max(3, Math.min(reps, 5)),
    )
    const worstCommand = Math.max(...commands.map((row) => row.medianMs))

    report.push(
      '# Redaction: 600 KB contexts, hostile lines, the engines, the `prompt` command',
      '',
      `Run on ${new Date().toISOString().slice(0, 10)} with \`${COMMAND}\` (${reps} timed runs per context cell after ${WARMUPS} untimed, a full GC before each; ${fmt((performance.now() - started) / 1000)} s in all).`,
      '',
      machineLine(loadBefore),
      '',
      `**Before** is core/ as of ${BEFORE_REV} (JavaScript's RegExp on the rules issue 19 converted, none of our own rules); **now** is re2js, a linear-time RE2, searched around each rule's keywords, with a bit-state backtracker for a match's groups (docs/decisions.md, "Redaction").`,
      '',
      '## 600 KB shared contexts',
      '',
      'Each input is a diff cut (at whole files) to about 590 KB once hashes are stripped and lockfiles collapsed; with the header, title and commits the context is the size in the second column. "With secrets": two of every kind of the test corpus (test/core/redaction/redact-corpus.ts) on added lines, one in the title and one in a commit; the run checks that none survived. **now** and **before** are `redactSharedContext` on the prepared parts (medians, the fastest now in brackets), **prepare** is `prepareDiffPieces` on the raw diff. The last column is a fresh process\'s module load (the rules compiled) and first redaction (re2js builds each rule\'s DFA states as it meets text).',
      '',
      '| input | context | secrets put in / found | now | before | prepare | first call in a fresh process (load + first redaction) |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...rows.map(
        (row) =>
          `| ${row.input.name} | ${fmt(row.contextBytes / 1000)} KB | ${row.input.placed} / ${row.input.secrets} | ${fmt(row.now, 1)} (${fmt(row.nowMin, 1)}) | ${fmt(row.before, 1)} | ${fmt(row.prepare, 1)} | ${fmt(row.cold.load, 0)} + ${fmt(row.cold.first, 0)} |`,
      ),
      '',
      '## Hostile single lines',
      '',
      `Each line alone in a one-file diff, redacted whole. **now**: the first redaction of it in this process and the median of three more; **before**: one redaction in a child process, stopped past ${CAP_MS / 1000} s.`,
      '',
      '| line | why | size | now, first | now, again | before |',
      '|---|---|---:|---:|---:|---:|',
      ...lines.map(
        (row) =>
          `| ${row.line.name} | ${row.line.why} | ${fmt(row.bytes / 1000)} KB | ${fmt(row.first)} ms | ${fmt(row.warm)} ms | ${ms(row.before)} |`,
      ),
      '',
      '## The engines on one line',
      '',
      `Every gitleaks rule (221) asked whether it matches "${everyKeyword?.name ?? ''}" (${fmt(utf8(everyKeyword?.line ?? '') / 1000)} KB), as the scan first asked it of a whole line (it now asks it of slices around each rule's keywords), with nothing else: compile all, then a pass to build the DFAs, then the pass timed. JavaScript's RegExp is the "before" column above.`,
      '',
      '| engine | compile all rules | one pass over the line | note |',
      '|---|---:|---:|---|',
      ...engines.map(
        (row) =>
          `| ${row.engine} | ${row.compileMs === null ? '—' : `${fmt(row.compileMs)} ms`} | ${row.matchMs === null ? '—' : `${fmt(row.matchMs)} ms`} | ${row.note} |`,
      ),
      '',
      '## The whole `prompt` command on a 1 MiB diff',
      '',
      '`bun run entrypoints/cli.ts prompt --rules R --diff D` in a fresh process, spawn to exit, after one run not counted.',
      '',
      '| diff | size | exit | median | slowest |',
      '|---|---:|---:|---:|---:|',
      ...commands.map(
        (row) =>
          `| ${row.name} | ${fmt(row.bytes / 1000)} KB | ${row.exit ?? '—'} | ${fmt(row.medianMs)} ms | ${fmt(row.maxMs)} ms |`,
      ),
      '',
      '## Goals (issue 27)',
      '',
      `- A 600 KB context redacted in at most ${CONTEXT_BOUND_MS} ms (median): the slowest took ${fmt(worstContext, 1)} ms, ${verdict(worstContext <= CONTEXT_BOUND_MS, `by ${fmt(worstContext - CONTEXT_BOUND_MS, 1)} ms`)}.`,
      `- Any single line of at most 1 MiB in at most ${LINE_BOUND_MS / 1000} s: the slowest took ${fmt(worstLine)} ms, ${verdict(
        worstLine <= LINE_BOUND_MS,
        lines
          .filter((row) => Math.max(row.first, row.warm) > LINE_BOUND_MS)
          .map((row) => row.line.name)
          .join('; '),
      )}.`,
      `- The whole \`prompt\` command on a 1 MiB diff in at most ${COMMAND_BOUND_MS / 1000} s: the slowest median was ${fmt(worstCommand)} ms, ${verdict(worstCommand <= COMMAND_BOUND_MS, `by ${fmt(worstCommand - COMMAND_BOUND_MS)} ms`)}.`,
      '',
    )
  } finally {
    before.remove()
    rmSync(dir, { recursive: true, force: true })
  }
  if (sink === 0) console.error('(no work was done?)')
  publish(RESULTS_PATH, report.join('\n'), args['no-write'] !== true)
}

await main()
