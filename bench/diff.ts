/**
 * Diff-preparation benchmark (issue 12, benchmark 5): hash stripping,
 * lockfile collapse and prompt assembly (shared context with fence
 * neutralisation, the budget check, the prompts) on 1, 10 and 50 MB diffs
 * from bench/support/synthetic-pr.ts (`aMixedDiff`), in-process and through
 * `entrypoints/cli.ts prompt` as a whole process. Both sides run in the same
 * call: "before" is the code as it was (test/core/diff-reference.ts
 * in-process, and the CLI as of BEFORE_REV, unpacked from git), "after" is
 * core/ and the CLI as they are. Writes bench/results/diff.md and prints it.
 *
 *   npx bun run bench/diff.ts                      # the full run (~1 min on 2 cores)
 *   npx bun run bench/diff.ts --reps 3 --no-write  # a quick look
 *   npx bun run bench/diff.ts --busy 0             # without the loaded CLI pass
 *   npx bun --cpu-prof run bench/diff.ts --profile after    # only the whole preparation on 50 MB, for a profile
 *
 * Not a test: it measures and asserts nothing but that both sides gave the
 * same bytes and that every CLI run printed its prompt.
 */

import { execFileSync } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import * as budget from '../core/budget.ts'
import * as diff from '../core/diff.ts'
import * as prompt from '../core/prompt.ts'
import type { Classification } from '../core/types.ts'
import * as reference from '../test/core/diff-reference.ts'
import { median } from './support/cache-report.ts'
import { aMixedDiff, someRules } from './support/synthetic-pr.ts'

// ---- What is measured ------------------------------------------------------

/** Diff sizes in MB (10^6 bytes); the diffs come out a little over. */
const SIZES_MB = [1, 10, 50] as const
/** Timed runs per (side, size, step) in-process, and per (side, size) through the CLI; medians are reported. */
const DEFAULT_REPS = 7
/** Untimed runs first, so the JIT has compiled what is timed. */
const WARMUPS = 2
/** Busy-looping processes started for the loaded CLI pass: with 2 on 2 cores the CLI gets about half the machine. */
const DEFAULT_BUSY = 2
/** The CLI as it was before the diff preparation was made fast (the tip of main the work started from). */
const BEFORE_REV = '0d4ce106f1322b1de4db0cd8dc404306bd29a2ab'
/** A repo's rules: three, as a typical rules file. */
const RULES: Classification[] = someRules(3)
const COMMAND = 'npx bun run bench/diff.ts'

const ROOT = join(import.meta.dir, '..')
const RESULTS_PATH = join(import.meta.dir, 'results/diff.md')

// ---- The two sides ---------------------------------------------------------

type Side = 'before' | 'after'
type Preparation = {
  stripObjectHashes(diff: string): string
  collapseLockfiles(diff: string): string
  neutraliseFence(text: string): string
  buildSharedContext(input: prompt.SharedContextInput): string
  buildPromptFromContext(context: string, classification: Classification): prompt.Prompt
  streamJsonUserLine(blocks: prompt.PromptBlocks): string
  checkContextBudget(context: string, budgetBytes?: number): budget.BudgetCheck
}
const SIDES: Record<Side, Preparation> = {
  before: reference,
  after: { ...diff, ...prompt, ...budget },
}

type Input = {
  mb: number
  bytes: number
  pr: prompt.SharedContextInput
  stripped: string
  collapsed: string
  context: string
}

type Step = { name: string; inGoal: boolean; run(side: Preparation, input: Input): number }

/** Each returns a number from its result so nothing is optimised away. */
const STEPS: readonly Step[] = [
  { name: 'hash stripping', inGoal: true, run: (s, i) => s.stripObjectHashes(i.pr.diff).length },
  { name: 'lockfile collapse', inGoal: true, run: (s, i) => s.collapseLockfiles(i.stripped).length },
  { name: 'fence neutralisation (of the diff)', inGoal: true, run: (s, i) => s.neutraliseFence(i.collapsed).length },
  {
    name: 'shared context (the three above and assembly)',
    inGoal: true,
    run: (s, i) => s.buildSharedContext(i.pr).length,
  },
  { name: 'budget check (of a built context)', inGoal: true, run: (s, i) => s.checkContextBudget(i.context).bytes },
  {
    name: '**whole: shared context + budget check + 3 prompts**',
    inGoal: true,
    run: (s, i) => {
      const context = s.buildSharedContext(i.pr)
      const check = s.checkContextBudget(context)
      let sum = check.bytes
      for (const rule of RULES) sum += s.buildPromptFromContext(context, rule).blocks[1].text.length
      return sum
    },
  },
  {
    name: 'stdin line of one prompt (JSON, not in the goal)',
    inGoal: false,
    run: (s, i) => s.streamJsonUserLine(s.buildPromptFromContext(i.context, RULES[0] as Classification).blocks).length,
  },
]
const WHOLE = STEPS[5] as Step

function inputOf(mb: number): Input {
  const text = aMixedDiff(mb * 1e6)
  const pr = { repo: 'acme/ledger', pr: 314, title: 'Store every timestamp with its zone', commits: [], diff: text }
  const stripped = reference.stripObjectHashes(text)
  const collapsed = reference.collapseLockfiles(stripped)
  const context = reference.buildSharedContext(pr)
  // Both sides must give the same bytes, or the figures compare nothing.
  for (const [name, a, b] of [
    ['stripObjectHashes', stripped, diff.stripObjectHashes(text)],
    ['collapseLockfiles', collapsed, diff.collapseLockfiles(stripped)],
    ['buildSharedContext', context, prompt.buildSharedContext(pr)],
  ] as const) {
    if (a !== b) throw new Error(`${name} differs between before and after on the ${mb} MB diff`)
  }
  context.charCodeAt(0) // flattens the string once, as the budget check's input is in a real run
  return { mb, bytes: Buffer.byteLength(text), pr, stripped, collapsed, context }
}

// ---- In-process ------------------------------------------------------------

type Timing = { side: Side; mb: number; step: string; ms: number[] }

let sink = 0

function timeOnce(step: Step, side: Preparation, input: Input): number {
  Bun.gc(true) // the garbage of the run before is not this run's cost
  const started = performance.now()
  sink += step.run(side, input)
  return performance.now() - started
}

function measureInProcess(inputs: readonly Input[], reps: number, only?: Side): Timing[] {
  const sides: Side[] = only === undefined ? ['before', 'after'] : [only]
  const timings: Timing[] = []
  for (const input of inputs) {
    const bySide = new Map(
      sides.map((side) => [side, STEPS.map((step) => ({ side, mb: input.mb, step: step.name, ms: [] as number[] }))]),
    )
    for (const side of sides)
      for (const step of STEPS) for (let w = 0; w < WARMUPS; w += 1) timeOnce(step, SIDES[side], input)
    for (let rep = 0; rep < reps; rep += 1) {
      // Alternating the order keeps drift from favouring one side.
      const order = rep % 2 === 0 ? sides : [...sides].reverse()
      for (const side of order) {
        for (const [index, step] of STEPS.entries()) {
          bySide.get(side)?.[index]?.ms.push(timeOnce(step, SIDES[side], input))
        }
      }
    }
    for (const side of sides) timings.push(...(bySide.get(side) ?? []))
    console.error(`in-process ${input.mb} MB: done`)
  }
  return timings
}

// ---- Through the CLI -------------------------------------------------------

type CliRun = { side: Side; mb: number; loaded: boolean; ms: number }

/** The CLI and core as of BEFORE_REV, unpacked next to a link to node_modules. */
function unpackBefore(into: string): string {
  const archive = execFileSync('git', ['-C', ROOT, 'archive', BEFORE_REV, 'core', 'entrypoints/cli.ts', 'package.json'])
  execFileSync('tar', ['-x', '-C', into], { input: archive })
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(into, 'node_modules'))
  return join(into, 'entrypoints/cli.ts')
}

async function runCli(cli: string, rules: string, diffPath: string, out: string): Promise<number> {
  const started = performance.now()
  const child = Bun.spawn([process.execPath, cli, 'prompt', '--rules', rules, '--diff', diffPath], {
    stdin: 'ignore',
    stdout: Bun.file(out),
    stderr: 'pipe',
  })
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()])
  const ms = performance.now() - started
  // Every size is over the 600 KB budget: the prompt is printed and the exit code is 1.
  if (!(code === 0 || (code === 1 && stderr.startsWith('over budget: '))) || statSync(out).size < 1000) {
    throw new Error(`${cli} exited ${code}: ${stderr}`)
  }
  return ms
}

function startBusy(count: number): Bun.Subprocess[] {
  return Array.from({ length: count }, () =>
    Bun.spawn([process.execPath, '-e', 'for (;;) {}'], { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' }),
  )
}

async function measureCli(
  inputs: readonly Input[],
  reps: number,
  busy: number,
): Promise<{ runs: CliRun[]; load: Record<string, string> }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-diff-'))
  const load: Record<string, string> = {}
  try {
    const clis: Record<Side, string> = {
      before: unpackBefore(mkdtempSync(join(dir, 'before-'))),
      after: join(ROOT, 'entrypoints/cli.ts'),
    }
    const rules = join(dir, 'rules.json')
    writeFileSync(
      rules,
      JSON.stringify({
        classifications: RULES.map(({ name, description, threshold, polarity }) => ({
          name,
          description,
          threshold,
          polarity,
        })),
      }),
    )
    const files = inputs.map((input) => {
      const path = join(dir, `${input.mb}mb.diff`)
      writeFileSync(path, input.pr.diff)
      return { input, path }
    })
    const out = join(dir, 'out.txt')
    const runs: CliRun[] = []
    for (const loaded of busy > 0 ? [false, true] : [false]) {
      const label = loaded ? `with ${busy} busy loops` : 'as found'
      const spinners = loaded ? startBusy(busy) : []
      try {
        if (loaded) await Bun.sleep(1_000)
        load[`${label} before`] = loadText()
        for (const { input, path } of files) {
          for (const side of ['before', 'after'] as const) await runCli(clis[side], rules, path, out) // untimed: page cache, disk
          for (let rep = 0; rep < reps; rep += 1) {
            const order: Side[] = rep % 2 === 0 ? ['before', 'after'] : ['after', 'before']
            for (const side of order)
              runs.push({ side, mb: input.mb, loaded, ms: await runCli(clis[side], rules, path, out) })
          }
          console.error(`cli ${label} ${input.mb} MB: done`)
        }
        load[`${label} after`] = loadText()
      } finally {
        for (const spinner of spinners) spinner.kill('SIGKILL')
      }
    }
    return { runs, load }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// ---- Report ----------------------------------------------------------------

const loadText = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ')

const fmt = (value: number, digits = 0) =>
  value.toLocaleString('en-GB', { minimumFractionDigits: digits, maximumFractionDigits: digits })

function inProcessTable(inputs: readonly Input[], timings: readonly Timing[]): string {
  const msOf = (side: Side, mb: number, step: string) =>
    median(timings.find((t) => t.side === side && t.mb === mb && t.step === step)?.ms ?? [])
  const mbps = (input: Input, ms: number) => input.bytes / 1e6 / (ms / 1000)
  const header = `| step | ${inputs.map((i) => `${i.mb} MB: ms before → after`).join(' | ')} | ${inputs.map((i) => `${i.mb} MB: MB/s before → after`).join(' | ')} |`
  const rule = `|---|${inputs.map(() => '---:|').join('')}${inputs.map(() => '---:|').join('')}`
  const rows = STEPS.map((step) => {
    const ms = inputs.map((input) => {
      const [b, a] = [msOf('before', input.mb, step.name), msOf('after', input.mb, step.name)]
      return `${fmt(b, 1)} → ${fmt(a, 1)}`
    })
    const rates = inputs.map((input) => {
      const [b, a] = [msOf('before', input.mb, step.name), msOf('after', input.mb, step.name)]
      return `${fmt(mbps(input, b))} → ${fmt(mbps(input, a))} (${fmt(b / a, 1)}×)`
    })
    return `| ${step.name} | ${ms.join(' | ')} | ${rates.join(' | ')} |`
  })
  return [header, rule, ...rows].join('\n')
}

type Growth = { perMb: number[]; vsFirst: number; vsMiddle: number }

/** Time per MB of the whole preparation at each size, and its ratio at the largest size to the smallest and to the middle one. */
function growthOf(side: Side, inputs: readonly Input[], timings: readonly Timing[]): Growth {
  const perMb = inputs.map(
    (input) =>
      median(timings.find((t) => t.side === side && t.mb === input.mb && t.step === WHOLE.name)?.ms ?? []) /
      (input.bytes / 1e6),
  )
  const last = perMb.at(-1) ?? Number.NaN
  return {
    perMb,
    vsFirst: last / (perMb[0] ?? Number.NaN),
    vsMiddle: last / (perMb[Math.floor(perMb.length / 2)] ?? Number.NaN),
  }
}

function growthTable(inputs: readonly Input[], growth: Record<Side, Growth>): string {
  const first = inputs[0] as Input
  const middle = inputs[Math.floor(inputs.length / 2)] as Input
  const last = inputs.at(-1) as Input
  return [
    `| side | ${inputs.map((i) => `ms per MB at ${i.mb} MB`).join(' | ')} | ${last.mb} MB / ${first.mb} MB | ${last.mb} MB / ${middle.mb} MB |`,
    `|---|${inputs.map(() => '---:|').join('')}---:|---:|`,
    ...(['before', 'after'] as const).map(
      (side) =>
        `| ${side} | ${growth[side].perMb.map((value) => fmt(value, 2)).join(' | ')} | ${fmt(growth[side].vsFirst, 2)} | ${fmt(growth[side].vsMiddle, 2)} |`,
    ),
  ].join('\n')
}

/** The CLI's rate over the extra bytes from the 10 MB diff to the largest, which leaves start-up out (the issue's measure). */
type CliRates = Map<string, { marginal: number; whole: number }>

function cliTable(inputs: readonly Input[], runs: readonly CliRun[], busy: number): { table: string; rates: CliRates } {
  const msOf = (side: Side, mb: number, loaded: boolean) =>
    runs.filter((r) => r.side === side && r.mb === mb && r.loaded === loaded).map((r) => r.ms)
  const first = inputs.find((i) => i.mb === 10) ?? (inputs[0] as Input)
  const last = inputs.at(-1) as Input
  const rates: CliRates = new Map()
  const rows: string[] = []
  for (const loaded of [...new Set(runs.map((r) => r.loaded))]) {
    for (const side of ['before', 'after'] as const) {
      const cells = inputs.map((input) => {
        const ms = msOf(side, input.mb, loaded)
        return `${fmt(median(ms) / 1000, 3)} (${fmt(Math.min(...ms) / 1000, 3)}–${fmt(Math.max(...ms) / 1000, 3)})`
      })
      const lastMs = median(msOf(side, last.mb, loaded))
      const marginal = (last.bytes - first.bytes) / 1e6 / ((lastMs - median(msOf(side, first.mb, loaded))) / 1000)
      const whole = last.bytes / 1e6 / (lastMs / 1000)
      rates.set(`${side}|${loaded}`, { marginal, whole })
      const machine = loaded ? `with ${busy} busy loops` : 'as found'
      rows.push(`| ${machine} | ${side} | ${cells.join(' | ')} | ${fmt(whole)} | **${fmt(marginal)}** |`)
    }
  }
  return {
    table: [
      `| machine | side | ${inputs.map((i) => `${i.mb} MB: wall s, median (min–max)`).join(' | ')} | MB/s at ${last.mb} MB, whole process | MB/s from ${first.mb} to ${last.mb} MB |`,
      `|---|---|${inputs.map(() => '---:|').join('')}---:|---:|`,
      ...rows,
    ].join('\n'),
    rates,
  }
}

// ---- Main ------------------------------------------------------------------

async function main(): Promise<void> {
  const args = parseArgs({
    options: {
      reps: { type: 'string' },
      busy: { type: 'string' },
      'no-write': { type: 'boolean' },
      'no-cli': { type: 'boolean' },
      profile: { type: 'string' },
    },
  }).values
  const reps = args.reps === undefined ? DEFAULT_REPS : Number(args.reps)
  const busy = args.busy === undefined ? DEFAULT_BUSY : Number(args.busy)
  if (!Number.isInteger(reps) || reps < 1)
    throw new RangeError(`--reps must be a whole number of at least 1, got ${args.reps}`)
  if (!Number.isInteger(busy) || busy < 0) throw new RangeError(`--busy must be a whole number, got ${args.busy}`)

  if (args.profile !== undefined) {
    // Only the whole preparation of one side on the 50 MB diff, for `bun --cpu-prof`.
    const side = args.profile
    if (side !== 'before' && side !== 'after') throw new RangeError(`--profile takes before or after, got ${side}`)
    const input = inputOf(50)
    for (let run = 0; run < reps; run += 1)
      console.error(`${side} whole, 50 MB: ${fmt(timeOnce(WHOLE, SIDES[side], input), 1)} ms`)
    return
  }

  const loadBefore = loadText()
  const started = Date.now()
  const inputs = SIZES_MB.map(inputOf)
  const timings = measureInProcess(inputs, reps)
  const loadAfterInProcess = loadText()
  const cli = args['no-cli'] === true ? undefined : await measureCli(inputs, reps, busy)
  const totalS = Math.round((Date.now() - started) / 1000)

  const whole = (side: Side, input: Input) =>
    input.bytes /
    1e6 /
    (median(timings.find((t) => t.side === side && t.mb === input.mb && t.step === WHOLE.name)?.ms ?? []) / 1000)
  const growth = { before: growthOf('before', inputs, timings), after: growthOf('after', inputs, timings) }
  const cliReport = cli === undefined ? undefined : cliTable(inputs, cli.runs, busy)
  const slowestAfter = Math.min(...inputs.map((input) => whole('after', input)))
  const cliRate = (side: Side, loaded: boolean) => cliReport?.rates.get(`${side}|${loaded}`)
  const cliGoal = cliRate('after', busy > 0)
  const contextShare = (inputs.at(-1) as Input).context.length / (inputs.at(-1) as Input).pr.diff.length

  const report = [
    '# Diff preparation: hash stripping, lockfile collapse and prompt assembly',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)} with \`${COMMAND}\` (${reps} timed runs per cell after ${WARMUPS} untimed, ${totalS} s in all).`,
    '',
    `Machine: ${availableParallelism()} CPUs (\`nproc\`), ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory; ` +
      `load average (1/5/15 min) ${loadBefore} before, ${loadAfterInProcess} after the in-process part; Bun ${Bun.version}.`,
    '',
    `Input: \`aMixedDiff\` (bench/support/synthetic-pr.ts) at ${inputs.map((i) => `${fmt(i.bytes / 1e6, 2)} MB`).join(', ')} ` +
      `(UTF-8 bytes; MB = 10^6 bytes): code files, new, deleted, renamed and mode-only files, lockfiles (${fmt(100 * (1 - (inputs.at(-1) as Input).collapsed.length / (inputs.at(-1) as Input).stripped.length))} % of the bytes collapse away), ` +
      `binary sections, quoted and spaced paths, CRLF content, non-ASCII and astral text, "data"/"end" words and a few fence-like phrases; ` +
      `the shared context comes to ${fmt(100 * contextShare)} % of the diff. Before is the code as of ${BEFORE_REV.slice(0, 7)} ` +
      '(in-process: its verbatim copy in test/core/diff-reference.ts; CLI: unpacked from git), after is the tree as it is; both give the same bytes (checked on every input before timing).',
    '',
    '## In-process',
    '',
    `Median wall time of one call (a full GC before each) and the rate it means over the input diff's bytes, for every step: each step takes the previous step's output, the shared context takes the raw diff, ` +
      'and **whole** is what a run does before the model is asked: `buildSharedContext`, `checkContextBudget` and `buildPromptFromContext` for each of 3 rules.',
    '',
    inProcessTable(inputs, timings),
    '',
    'Growth of the whole preparation (time per MB of the whole row; a ratio of 1.00 is linear):',
    '',
    growthTable(inputs, growth),
    '',
    ...(cli === undefined || cliReport === undefined
      ? []
      : [
          '## Through `cli.ts prompt`',
          '',
          `\`bun entrypoints/cli.ts prompt --rules rules.json --diff N.diff\`, 3 rules, the readable output to a file, timed from spawn to exit (start-up, reading and decoding the file, the preparation, the output). ` +
            `Every size is over the 600 KB budget, so each run prints its prompt and exits 1. Before and after alternate run by run. ` +
            `The last column is the issue's measure: the extra ${fmt(((inputs.at(-1) as Input).bytes - (inputs.find((i) => i.mb === 10) ?? (inputs[0] as Input)).bytes) / 1e6)} MB divided by the extra median time, which leaves start-up out. ` +
            'The machine "as found" is whatever else was running (the load averages say how much); ' +
            (busy > 0
              ? `"with ${busy} busy loops" runs ${busy} processes spinning beside it on the ${availableParallelism()} CPUs, to see it under load. `
              : '') +
            `Load average: ${Object.entries(cli.load)
              .map(([when, value]) => `${value} ${when}`)
              .join(', ')}.`,
          '',
          cliReport.table,
          '',
        ]),
    '## Goals',
    '',
    `- In-process whole preparation at ≥ 300 MB/s: after, ${inputs.map((i) => `${fmt(whole('after', i))} MB/s at ${i.mb} MB`).join(', ')} ` +
      `(before: ${inputs.map((i) => `${fmt(whole('before', i))}`).join(', ')}): **${slowestAfter >= 300 ? 'met' : `missed by ${fmt(300 - slowestAfter)} MB/s`}**.`,
    `- Linear to 50 MB: time per MB at ${(inputs.at(-1) as Input).mb} MB is ${fmt(growth.after.vsMiddle, 2)}× that at ${(inputs[Math.floor(inputs.length / 2)] as Input).mb} MB ` +
      `and ${fmt(growth.after.vsFirst, 2)}× that at ${(inputs[0] as Input).mb} MB (before: ${fmt(growth.before.vsMiddle, 2)}× and ${fmt(growth.before.vsFirst, 2)}×): ` +
      `**${growth.after.vsMiddle <= 1.15 && growth.after.vsFirst <= 1.5 ? 'met' : 'missed'}** ` +
      '(taken as at most 1.15× from 10 to 50 MB and 1.5× from 1 MB, where the diff and its output still fit in the CPU caches).',
    ...(cliGoal === undefined
      ? []
      : [
          `- Through \`cli.ts prompt\` well over 100 MB/s under load: after, ${fmt(cliGoal.marginal)} MB/s ${busy > 0 ? `with ${busy} busy loops` : 'as found'} ` +
            `(${fmt(cliGoal.whole)} MB/s for the whole 50 MB process, start-up included; before: ${fmt(cliRate('before', busy > 0)?.marginal ?? Number.NaN)}), ` +
            `${fmt(cliRate('after', false)?.marginal ?? Number.NaN)} MB/s as found (before: ${fmt(cliRate('before', false)?.marginal ?? Number.NaN)}): ` +
            `**${cliGoal.marginal >= 150 ? 'met' : cliGoal.marginal >= 100 ? 'met, but not by much' : `missed by ${fmt(100 - cliGoal.marginal)} MB/s`}** (taken as at least 150 MB/s).`,
        ]),
    '',
  ].join('\n')
  console.log(report)
  if (sink === 0) console.error('(no work was done?)')
  if (args['no-write'] !== true) writeFileSync(RESULTS_PATH, report)
}

await main()
