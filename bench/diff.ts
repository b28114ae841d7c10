/**
 * Diff-preparation benchmark (issue 12, benchmark 5): hash stripping,
 * lockfile collapse and prompt assembly (shared context with fence
 * neutralisation, the budget check, the prompts) on 1, 10 and 50 MB diffs
 * from bench/support/synthetic-pr.ts (`aMixedDiff`), in-process and through
 * `entrypoints/cli.ts prompt` as a whole process. Both sides run in the same
 * call: "before" is the code as it was (test/core/diff/diff-reference.ts
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

import { availableParallelism, cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { cliTable, measureCli } from './diff/cli.ts'
import {
  growthOf,
  growthTable,
  inProcessTable,
  measureInProcess,
  timeOnce,
  WARMUPS,
  workDone,
} from './diff/in-process.ts'
import { BEFORE_REV, type Input, inputOf, SIDES, type Side, WHOLE } from './diff/steps.ts'
import { fmt, loadText, median, publish } from './support/common.ts'

/** Diff sizes in MB (10^6 bytes); the diffs come out a little over. */
const SIZES_MB = [1, 10, 50] as const
/** Timed runs per (side, size, step) in-process, and per (side, size) through the CLI; medians are reported. */
const DEFAULT_REPS = 7
/** Busy-looping processes started for the loaded CLI pass: with 2 on 2 cores the CLI gets about half the machine. */
const DEFAULT_BUSY = 2
const COMMAND = 'npx bun run bench/diff.ts'
const RESULTS_PATH = join(import.meta.dir, 'results/diff.md')

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
      '(in-process: the verbatim copy of its diff preparation in test/core/diff/diff-reference.ts, with today’s wording around it; CLI: unpacked from git), after is the tree as it is; both give the same bytes (checked on every input before timing).',
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
  publish(RESULTS_PATH, report, args['no-write'] !== true)
  if (!workDone()) console.error('(no work was done?)')
}

await main()
