/**
 * bench/diff.ts in-process: every step of each side timed on each input (a
 * full GC before each call, untimed warm-ups first, sides alternating), and
 * the tables of its times, rates and growth with the diff's size.
 */
import { fmt, median } from '../support/common.ts'
import { type Input, type Preparation, SIDES, type Side, STEPS, type Step, WHOLE } from './steps.ts'

/** Untimed runs first, so the JIT has compiled what is timed. */
export const WARMUPS = 2

export type Timing = { side: Side; mb: number; step: string; ms: number[] }

let sink = 0

/** Whether the timed steps returned anything at all: a check that nothing was optimised away. */
export function workDone(): boolean {
  return sink !== 0
}

export function timeOnce(step: Step, side: Preparation, input: Input): number {
  Bun.gc(true) // the garbage of the run before is not this run's cost
  const started = performance.now()
  sink += step.run(side, input)
  return performance.now() - started
}

export function measureInProcess(inputs: readonly Input[], reps: number, only?: Side): Timing[] {
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

export function inProcessTable(inputs: readonly Input[], timings: readonly Timing[]): string {
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

export type Growth = { perMb: number[]; vsFirst: number; vsMiddle: number }

/** Time per MB of the whole preparation at each size, and its ratio at the largest size to the smallest and to the middle one. */
export function growthOf(side: Side, inputs: readonly Input[], timings: readonly Timing[]): Growth {
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

export function growthTable(inputs: readonly Input[], growth: Record<Side, Growth>): string {
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
