/**
 * bench/diff.ts through the CLI: `entrypoints/cli.ts prompt` of each side
 * as a whole process on each input, as the machine was found and with busy
 * loops beside it, and the table of its times and rates.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fmt, loadText, median, ROOT, unpackRevision } from '../support/common.ts'
import { BEFORE_REV, type Input, RULES, type Side } from './steps.ts'

export type CliRun = { side: Side; mb: number; loaded: boolean; ms: number }

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

export async function measureCli(
  inputs: readonly Input[],
  reps: number,
  busy: number,
): Promise<{ runs: CliRun[]; load: Record<string, string> }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-diff-'))
  // The CLI and core as of BEFORE_REV, beside a link to node_modules.
  const before = unpackRevision(BEFORE_REV, ['core', 'entrypoints/cli.ts', 'package.json'])
  const load: Record<string, string> = {}
  try {
    const clis: Record<Side, string> = {
      before: join(before.dir, 'entrypoints/cli.ts'),
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
    before.remove()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The CLI's rate over the extra bytes from the 10 MB diff to the largest, which leaves start-up out (the issue's measure). */
export type CliRates = Map<string, { marginal: number; whole: number }>

export function cliTable(
  inputs: readonly Input[],
  runs: readonly CliRun[],
  busy: number,
): { table: string; rates: CliRates } {
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
