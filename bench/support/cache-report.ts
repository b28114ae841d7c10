/**
 * Turns the cache benchmark's measured runs into its results table and
 * conclusion. Pure: the numbers in, markdown out.
 */
import type { Schedule } from '../../entrypoints/classifier/service.ts'
import { median } from './common.ts'

export type MeasuredRun = {
  strategy: Schedule
  n: number
  /** Every classification answered. */
  ok: boolean
  wallMs: number
  /** Summed over the run's classifications as the CLI reported them (what the service's rows carry). */
  input: number
  output: number
  cacheRead: number
  cacheCreation: number
  /** The shared prefix (system and PR block), summed over the run's requests, from the fake provider's accounting. */
  sharedTokens: number
  sharedRead: number
  costUsd: number
}

export type Row = {
  strategy: Schedule
  n: number
  runs: number
  okRuns: number
  /** Shared-prefix tokens read from the cache over all shared-prefix tokens, median over the runs. */
  sharedReadShare: number
  /** The spec's hit rate, cacheRead / (input + cacheRead + cacheCreation), median over the runs. */
  hitRate: number
  costUsd: number
  wallMs: number
  wallMinMs: number
  wallMaxMs: number
}

const ratio = (part: number, whole: number) => (whole === 0 ? 0 : part / whole)

export function summarise(runs: readonly MeasuredRun[]): Row[] {
  const keys = [...new Set(runs.map((run) => `${run.strategy}|${run.n}`))]
  return keys.map((key) => {
    const group = runs.filter((run) => `${run.strategy}|${run.n}` === key)
    const first = group[0]
    if (first === undefined) throw new RangeError('empty group')
    const walls = group.map((run) => run.wallMs)
    return {
      strategy: first.strategy,
      n: first.n,
      runs: group.length,
      okRuns: group.filter((run) => run.ok).length,
      sharedReadShare: median(group.map((run) => ratio(run.sharedRead, run.sharedTokens))),
      hitRate: median(group.map((run) => ratio(run.cacheRead, run.input + run.cacheRead + run.cacheCreation))),
      costUsd: median(group.map((run) => run.costUsd)),
      wallMs: median(walls),
      wallMinMs: Math.min(...walls),
      wallMaxMs: Math.max(...walls),
    }
  })
}

const percent = (value: number) => `${(value * 100).toFixed(1)} %`
const usd = (value: number) => `$${value.toFixed(4)}`
const seconds = (ms: number) => (ms / 1000).toFixed(2)

export function renderTable(rows: readonly Row[]): string {
  const lines = [
    '| strategy | N | PR-prefix read share | hit rate (spec) | cost per run | cost per classification | wall s, median (min–max) | runs ok |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ]
  for (const row of [...rows].sort((a, b) => a.n - b.n || a.strategy.localeCompare(b.strategy))) {
    lines.push(
      `| ${row.strategy} | ${row.n} | ${percent(row.sharedReadShare)} | ${percent(row.hitRate)} | ${usd(row.costUsd)} | ${usd(row.costUsd / row.n)} | ${seconds(row.wallMs)} (${seconds(row.wallMinMs)}–${seconds(row.wallMaxMs)}) | ${row.okRuns}/${row.runs} |`,
    )
  }
  return lines.join('\n')
}

/** One paragraph drawn from the numbers, so it stays true when they change. */
export function conclusion(rows: readonly Row[]): string {
  const ns = [...new Set(rows.map((row) => row.n))].filter((n) => n > 1).sort((a, b) => a - b)
  const parts: string[] = []
  for (const n of ns) {
    const warm = rows.find((row) => row.n === n && row.strategy === 'warm-first')
    const parallel = rows.find((row) => row.n === n && row.strategy === 'all-parallel')
    if (warm === undefined || parallel === undefined) continue
    const saving = ratio(parallel.costUsd - warm.costUsd, parallel.costUsd)
    const slower = warm.wallMs - parallel.wallMs
    parts.push(
      `at N = ${n} warm first read ${percent(warm.sharedReadShare)} of the PR prefix from the cache against ${percent(parallel.sharedReadShare)} for all parallel, ` +
        `cost ${usd(warm.costUsd)} against ${usd(parallel.costUsd)} per run (${percent(saving)} ${saving >= 0 ? 'less' : 'more'}) ` +
        `and took ${seconds(warm.wallMs)} s against ${seconds(parallel.wallMs)} s (${slower >= 0 ? '+' : '−'}${seconds(Math.abs(slower))} s)`,
    )
  }
  if (parts.length === 0) return 'Nothing to compare: no N above 1 was measured.'
  return (
    `With the latency and prices above, ${parts.join('; ')}. ` +
    'All parallel pays cache creation for the whole PR once per question that starts before the first answer lands, ' +
    'so its cost grows with N at the cache-write price; warm first pays it once and reads it at a tenth of the input price, ' +
    'for the price of one question’s latency (process start, uncached prefill and decode) before the rest can start. ' +
    'Above MAX_SESSIONS the questions past the limit wait for a place anyway, and those late ones read the cache even under all parallel. ' +
    'A single question (N = 1) is the same under both and pays the 1.25× write premium for a cache nobody reads.'
  )
}
