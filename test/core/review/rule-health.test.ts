import { describe, expect, it } from 'bun:test'
import {
  addRun,
  addWaiver,
  type CountedRow,
  dayKey,
  decodeHealthDay,
  expiredHealthDays,
  FAILING_RUNS_KEPT_PER_DAY,
  healthDays,
  PRS_KEPT_PER_DAY,
  PRS_REMEMBERED,
  prsKey,
  type RuleRunCount,
  rowOutcome,
} from '../../../core/review/rule-health.ts'
import { decodePrMemory, type PrMemory, trackRun } from '../../../core/review/rule-health-prs.ts'

const row = (patch: Partial<CountedRow> = {}): CountedRow => ({
  name: 'datetime',
  verdict: 'match',
  counted: true,
  fails: false,
  error: null,
  ...patch,
})

describe('rowOutcome', () => {
  it('counts a row by what its verdict did', () => {
    expect(rowOutcome(row())).toEqual({ outcome: 'passed', asked: true })
    expect(rowOutcome(row({ fails: true }))).toEqual({ outcome: 'failed', asked: true })
    expect(rowOutcome(row({ counted: false }))).toEqual({ outcome: 'uncounted', asked: true })
    expect(rowOutcome(row({ verdict: 'not-applicable', counted: false }))).toEqual({
      outcome: 'uncounted',
      asked: true,
    })
    expect(rowOutcome(row({ verdict: null, counted: false, error: { kind: 'timeout', detail: 'slow' } }))).toEqual({
      outcome: 'unanswered',
      asked: true,
    })
  })

  it('counts a row out of scope as uncounted and not asked', () => {
    expect(rowOutcome(row({ in_scope: false, verdict: 'not-applicable', counted: false }))).toEqual({
      outcome: 'uncounted',
      asked: false,
    })
    expect(rowOutcome(row({ in_scope: true }))).toEqual({ outcome: 'passed', asked: true })
  })
})

const count = (name: string, outcome: RuleRunCount['outcome'], extra: Partial<RuleRunCount> = {}): RuleRunCount => ({
  name,
  outcome,
  asked: true,
  fixed: false,
  flaky: false,
  ...extra,
})
const at = { repo: 'acme/app', day: '2026-12-01' }

describe('addRun and addWaiver', () => {
  it('adds each rule’s outcome, the PR it was asked on and its failing run, without touching the day given', () => {
    const first = addRun(null, at, { id: 'r1', pr: 7, rules: [count('a', 'failed'), count('b', 'passed')] })
    const second = addRun(first, at, {
      id: 'r2',
      pr: 7,
      rules: [count('a', 'passed', { fixed: true }), count('b', 'uncounted', { asked: false })],
    })
    expect(first.rules.find((r) => r.name === 'a')?.passed).toBe(0)
    expect(second.rules).toEqual([
      {
        name: 'a',
        asked: 2,
        failed: 1,
        passed: 1,
        uncounted: 0,
        unanswered: 0,
        waived: 0,
        fixed: 1,
        prs: [7],
        flaky_prs: [],
        failing_runs: ['r1'],
      },
      {
        name: 'b',
        asked: 1,
        failed: 0,
        passed: 1,
        uncounted: 1,
        unanswered: 0,
        waived: 0,
        fixed: 0,
        prs: [7],
        flaky_prs: [],
        failing_runs: [],
      },
    ])
    const waived = addWaiver(addWaiver(second, at, 'a'), at, 'gone')
    expect(waived.rules.find((r) => r.name === 'a')?.waived).toBe(1)
    expect(waived.rules.find((r) => r.name === 'gone')).toMatchObject({ waived: 1, asked: 0 })
  })

  it('keeps its lists bounded', () => {
    let day = addRun(null, at, { id: 'r0', pr: 0, rules: [count('a', 'failed')] })
    for (let pr = 1; pr < 50; pr += 1) day = addRun(day, at, { id: `r${pr}`, pr, rules: [count('a', 'failed')] })
    const rule = day.rules[0]
    expect(rule?.prs).toHaveLength(PRS_KEPT_PER_DAY)
    expect(rule?.failing_runs).toEqual(['r49', 'r48', 'r47', 'r46', 'r45'].slice(0, FAILING_RUNS_KEPT_PER_DAY))
    expect(rule?.failed).toBe(50)
  })

  it('takes a rule named like an object’s own keys as any other name', () => {
    const day = addRun(null, at, {
      id: 'r1',
      pr: 1,
      rules: [count('__proto__', 'failed'), count('constructor', 'passed')],
    })
    const back = decodeHealthDay(JSON.stringify(day), at.repo, at.day).day
    expect(back.rules.map((r) => [r.name, r.failed, r.passed])).toEqual([
      ['__proto__', 1, 0],
      ['constructor', 0, 1],
    ])
  })
})

describe('decodeHealthDay', () => {
  it('reads what is not a day as nothing counted, with the reason, and drops bad fields', () => {
    expect(decodeHealthDay('{', at.repo, at.day)).toEqual({
      day: { ...at, rules: [] },
      warning: "the stored day isn't JSON",
    })
    expect(decodeHealthDay('[]', at.repo, at.day).warning).toBe("the stored day isn't a day")
    const odd = JSON.stringify({
      rules: [{ name: 'a', failed: -3, passed: 2.5, asked: 4, prs: ['x', 5] }, { nope: 1 }],
    })
    expect(decodeHealthDay(odd, at.repo, at.day).day.rules).toEqual([
      {
        name: 'a',
        asked: 4,
        failed: 0,
        passed: 0,
        uncounted: 0,
        unanswered: 0,
        waived: 0,
        fixed: 0,
        prs: [5],
        flaky_prs: [],
        failing_runs: [],
      },
    ])
  })
})

describe('keys and days', () => {
  it('escapes what NATS keys cannot hold', () => {
    expect(dayKey('acme/my.app', '2026-12-01')).toBe('days.acme/my=2Eapp.2026-12-01')
    expect(prsKey('acme/app')).toBe('prs.acme/app')
  })

  it('keeps 30 days, today included', () => {
    const days = healthDays('2026-12-03')
    expect(days).toHaveLength(30)
    expect(days[0]).toBe('2026-11-04')
    expect(days.at(-1)).toBe('2026-12-03')
    const expired = expiredHealthDays('2026-12-03')
    expect([expired.length, expired[0], expired.at(-1)]).toEqual([30, '2026-10-05', '2026-11-03'])
  })
})

describe('trackRun', () => {
  const run = (pr: number, head: string, ...rules: Array<[string, RuleRunCount['outcome']]>) => ({
    pr,
    head,
    rules: rules.map(([name, outcome]) => ({ name, outcome, asked: true })),
  })

  it('counts a fix when a rule that failed on one head passes on a later one, once', () => {
    let memory: PrMemory = { prs: [] }
    const steps: Array<ReturnType<typeof run>> = [
      run(1, 'h1', ['a', 'failed'], ['b', 'failed']),
      run(1, 'h2', ['a', 'passed'], ['b', 'failed']),
      run(1, 'h3', ['a', 'passed'], ['b', 'passed']),
    ]
    const fixed: string[][] = []
    for (const step of steps) {
      const next = trackRun(memory, step)
      memory = next.memory
      fixed.push(next.rules.filter((r) => r.fixed).map((r) => r.name))
    }
    expect(fixed).toEqual([[], ['a'], ['b']])
  })

  it('does not count a pass on the same head as a fix, but as a disagreement, once per PR', () => {
    let memory: PrMemory = { prs: [] }
    const flaky: string[][] = []
    const fixed: string[][] = []
    for (const outcome of ['failed', 'passed', 'failed'] as const) {
      const next = trackRun(memory, run(2, 'h1', ['a', outcome]))
      memory = next.memory
      flaky.push(next.rules.filter((r) => r.flaky).map((r) => r.name))
      fixed.push(next.rules.filter((r) => r.fixed).map((r) => r.name))
    }
    expect(flaky).toEqual([[], ['a'], []])
    expect(fixed).toEqual([[], [], []])
  })

  it('takes an unanswered row or one out of scope as no answer', () => {
    let memory = trackRun({ prs: [] }, run(3, 'h1', ['a', 'failed'])).memory
    const next = trackRun(memory, { pr: 3, head: 'h1', rules: [{ name: 'a', outcome: 'unanswered', asked: true }] })
    expect(next.rules[0]).toMatchObject({ flaky: false, fixed: false })
    memory = next.memory
    const scoped = trackRun(memory, { pr: 3, head: 'h2', rules: [{ name: 'a', outcome: 'uncounted', asked: false }] })
    expect(scoped.rules[0]).toMatchObject({ flaky: false, fixed: false })
  })

  it('remembers the most recently reviewed PRs only, and reads a broken memory as none', () => {
    let memory: PrMemory = { prs: [] }
    for (let pr = 1; pr <= PRS_REMEMBERED + 5; pr += 1) memory = trackRun(memory, run(pr, 'h', ['a', 'failed'])).memory
    expect(memory.prs).toHaveLength(PRS_REMEMBERED)
    expect(memory.prs[0]?.pr).toBe(PRS_REMEMBERED + 5)
    expect(decodePrMemory(JSON.stringify(memory))).toEqual(memory)
    expect(decodePrMemory('nope')).toEqual({ prs: [] })
    expect(decodePrMemory('{"prs":[{"pr":"x"},{"pr":4,"head":"h","rules":[{"name":"a","last":"odd"}]}]}')).toEqual({
      prs: [{ pr: 4, head: 'h', rules: [{ name: 'a', last: null, failed_head: null, flaky: false }] }],
    })
  })
})
