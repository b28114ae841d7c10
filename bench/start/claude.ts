/**
 * Benchmarks 1 and 2 of bench/start.ts: `claude` runs of each side against
 * the instant fake and the 2 s one, warm first (and all parallel beside it),
 * with the floor of a bare `claude --print` measured between them, and
 * their tables and goals.
 */
import { join } from 'node:path'
import { costUsd, rowsUsage } from '../../core/settings/cost.ts'
import { RUNTIME_KEY_SECRETS } from '../../core/settings/service-account.ts'
import type { RunRequest } from '../../core/wire/types.ts'
import type { CachingFakeAnthropic } from '../support/caching-fake-anthropic.ts'
import { API_KEY, bareCliMs, CLAUDE_BIN, fmt, median, s, spread } from '../support/common.ts'
import { CLASSIFICATION_TIMEOUT_MS, CONTEXT_BUDGET_BYTES, MAX_SESSIONS } from '../support/run-shape.ts'
import { someRules } from '../support/synthetic-pr.ts'
import {
  BASE,
  CONTEXT,
  createTimedLogger,
  type Modules,
  nextRunNumber,
  type PartResult,
  PRICES,
  QUESTION,
  SIDES,
  type Side,
} from './fixture.ts'

export type Schedule = 'warm-first' | 'all-parallel'

type ClaudeRun = {
  side: Side
  label: string
  n: number
  schedule: Schedule
  ok: boolean
  wallMs: number
  sharedShare: number
  costUsd: number
}

async function claudeRun(
  side: Side,
  modules: Modules,
  fake: CachingFakeAnthropic,
  workDir: string,
  shape: { label: string; n: number; schedule: Schedule; maxSessions: number },
): Promise<ClaudeRun> {
  const logger = createTimedLogger()
  const runtime = modules.createClaudeRuntime(
    { claudeBin: CLAUDE_BIN, workDir, passEnv: { ANTHROPIC_BASE_URL: fake.url } },
    logger,
  )
  const classifier = modules.createClassifier({
    runtimes: {
      'api-key': runtime,
      acp: modules.createScriptedModelRuntime(() => modules.failed('runtime', 'not benchmarked')),
    },
    secrets: modules.createMemorySecretStore({ [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: API_KEY } }),
    metrics: modules.createRecordingMetrics(),
    logger,
    clock: modules.createSystemClock(),
    limiter: modules.createSessionLimiter(shape.maxSessions),
    classificationTimeoutMs: CLASSIFICATION_TIMEOUT_MS,
    contextBudgetBytes: CONTEXT_BUDGET_BYTES,
    schedule: shape.schedule,
  })
  fake.reset() // a cold cache, as a new PR head would find
  const request: RunRequest = { ...BASE, id: `bench-${nextRunNumber()}`, classifications: someRules(shape.n) }
  const started = performance.now()
  const reply = await classifier.handle(JSON.stringify(request))
  const wallMs = performance.now() - started
  const usage = rowsUsage(reply.rows)
  const calls = fake.calls()
  const sharedTokens = calls.reduce((sum, call) => sum + call.sharedTokens, 0)
  const sharedRead = calls.reduce((sum, call) => sum + call.sharedRead, 0)
  return {
    side,
    label: shape.label,
    n: shape.n,
    schedule: shape.schedule,
    ok: reply.ok && reply.rows.every((row) => row.error === null) && calls.length === shape.n,
    wallMs,
    sharedShare: sharedTokens === 0 ? 0 : sharedRead / sharedTokens,
    costUsd: costUsd(usage, PRICES),
  }
}

function claudeTables(runs: readonly ClaudeRun[], floorMs: readonly number[]): { text: string; goals: string[] } {
  const floor = median(floorMs)
  const of = (side: Side, label: string, schedule: Schedule) =>
    runs.filter((r) => r.side === side && r.label === label && r.schedule === schedule)
  const wall = (side: Side, label: string, schedule: Schedule = 'warm-first') =>
    median(of(side, label, schedule).map((r) => r.wallMs))
  const row = (side: Side, label: string, schedule: Schedule, reference: number, referenceName: string) => {
    const set = of(side, label, schedule)
    if (set.length === 0) return null
    const ms = set.map((r) => r.wallMs)
    const okRuns = set.filter((r) => r.ok).length
    return `| ${label} | ${schedule} | ${side} | ${spread(ms)} | ${fmt(median(ms) / floor, 2)} × | ${fmt(median(ms) / reference, 2)} × ${referenceName} | ${fmt(100 * median(set.map((r) => r.sharedShare)), 1)} % | $${fmt(median(set.map((r) => r.costUsd)), 4)} | ${okRuns}/${set.length} |`
  }
  const one = (side: Side) => wall(side, '1 rule, 2 s answer')
  const header =
    '| run | schedule | side | wall s, median (min–max) | ÷ bare CLI | ÷ reference | PR-prefix read from cache | cost per run | runs ok |\n|---|---|---|---:|---:|---:|---:|---:|---:|'
  const bench1 = [header]
  for (const side of SIDES) {
    const line = row(side, '1 rule, instant model', 'warm-first', floor, 'bare CLI')
    if (line !== null) bench1.push(line)
  }
  const bench2 = [header]
  for (const label of [
    '1 rule, 2 s answer',
    '5 rules, 2 s answers',
    '10 rules, 2 s answers',
    '10 rules, 2 s answers, MAX_SESSIONS 10',
  ]) {
    for (const schedule of ['warm-first', 'all-parallel'] as const) {
      for (const side of SIDES) {
        const line = row(side, label, schedule, one(side), 'one classification')
        if (line !== null) bench2.push(line)
      }
    }
  }
  const goals: string[] = []
  const oneRuleAfter = wall('after', '1 rule, instant model')
  const oneRuleBefore = wall('before', '1 rule, instant model')
  goals.push(
    `(1) A 1-rule run against an instant model took ${s(oneRuleAfter)} s after (${s(oneRuleBefore)} s before) against ${s(floor)} s for the bare CLI: ` +
      `${s(oneRuleAfter - floor)} s over it, the goal being at most 0.40 s over: **${oneRuleAfter - floor <= 400 ? 'met' : `missed by ${s(oneRuleAfter - floor - 400)} s`}**.`,
  )
  for (const label of ['5 rules, 2 s answers', '10 rules, 2 s answers', '10 rules, 2 s answers, MAX_SESSIONS 10']) {
    const after = wall('after', label) / one('after')
    const before = wall('before', label) / one('before')
    if (!Number.isFinite(after)) continue
    goals.push(
      `(2) ${label}, warm first: ${fmt(after, 2)} × one classification after (${s(wall('after', label))} s against ${s(one('after'))} s), ${fmt(before, 2)} × before; ` +
        `goal at most 2.1 ×: **${after <= 2.1 ? 'met' : `missed by ${fmt(after - 2.1, after - 2.1 < 0.01 ? 3 : 2)} ×`}**.`,
    )
  }
  return {
    text: [
      '## Benchmark 1: a 1-rule run against an instant model',
      '',
      bench1.join('\n'),
      '',
      '## Benchmark 2: warm first with 5 and 10 rules and 2 s answers, against one classification',
      '',
      `"One classification" is the 1-rule run with the same 2 s answer on the same side. MAX_SESSIONS is ${MAX_SESSIONS} unless the row says otherwise.`,
      '',
      bench2.join('\n'),
    ].join('\n'),
    goals,
  }
}

/** The claude part: every shape `reps` times, sides alternating, the floor measured before and after each repetition into `floorMs`. */
export async function measureClaude({
  modules,
  instant,
  twoSeconds,
  workDir,
  reps,
  shapeFilter,
  floorMs,
}: {
  modules: Record<Side, Modules>
  instant: CachingFakeAnthropic
  twoSeconds: CachingFakeAnthropic
  workDir: string
  reps: number
  shapeFilter: string | undefined
  floorMs: number[]
}): Promise<PartResult> {
  const sections: string[] = []
  const goals: string[] = []
  let failures = 0
  const allShapes = [
    {
      label: '1 rule, instant model',
      n: 1,
      schedule: 'warm-first' as const,
      maxSessions: MAX_SESSIONS,
      fake: instant,
    },
    {
      label: '1 rule, 2 s answer',
      n: 1,
      schedule: 'warm-first' as const,
      maxSessions: MAX_SESSIONS,
      fake: twoSeconds,
    },
    {
      label: '5 rules, 2 s answers',
      n: 5,
      schedule: 'warm-first' as const,
      maxSessions: MAX_SESSIONS,
      fake: twoSeconds,
    },
    {
      label: '10 rules, 2 s answers',
      n: 10,
      schedule: 'warm-first' as const,
      maxSessions: MAX_SESSIONS,
      fake: twoSeconds,
    },
    {
      label: '10 rules, 2 s answers, MAX_SESSIONS 10',
      n: 10,
      schedule: 'warm-first' as const,
      maxSessions: 10,
      fake: twoSeconds,
    },
  ]
  const shapes = allShapes.filter((shape) => shapeFilter === undefined || shape.label.includes(shapeFilter))
  // All parallel is the strategy warm first is weighed against (bench/cache.ts); the start-up change leaves it as it was.
  const parallel =
    shapeFilter !== undefined
      ? []
      : [
          {
            label: '5 rules, 2 s answers',
            n: 5,
            schedule: 'all-parallel' as const,
            maxSessions: MAX_SESSIONS,
            fake: twoSeconds,
          },
          {
            label: '10 rules, 2 s answers',
            n: 10,
            schedule: 'all-parallel' as const,
            maxSessions: MAX_SESSIONS,
            fake: twoSeconds,
          },
        ]
  const runs: ClaudeRun[] = []
  for (let rep = 0; rep < reps; rep += 1) {
    floorMs.push(await bareCliMs(instant.url, CONTEXT, QUESTION))
    const order = rep % 2 === 0 ? SIDES : [...SIDES].reverse()
    for (const shape of shapes) {
      for (const side of order) {
        const run = await claudeRun(side, modules[side], shape.fake, join(workDir, side), shape)
        runs.push(run)
        if (!run.ok) failures += 1
        console.error(
          `rep ${rep + 1}/${reps} ${side} ${shape.label}: ${s(run.wallMs)} s${run.ok ? '' : ' (NOT all answered)'}`,
        )
      }
    }
    for (const shape of parallel) {
      const run = await claudeRun('after', modules.after, shape.fake, join(workDir, 'after'), shape)
      runs.push(run)
      if (!run.ok) failures += 1
      console.error(`rep ${rep + 1}/${reps} after ${shape.label} all-parallel: ${s(run.wallMs)} s`)
    }
    floorMs.push(await bareCliMs(instant.url, CONTEXT, QUESTION))
  }
  const tables = claudeTables(runs, floorMs)
  sections.push(
    `Floor: a bare \`claude --print\` (the adapter's arguments, environment and stdin line; a fresh HOME; spawn to exit) against the instant fake, ${floorMs.length} runs spread through the claude part: **${spread(floorMs)} s**.`,
    '',
    tables.text,
  )
  goals.push(...tables.goals)
  return { sections, goals, failures }
}
