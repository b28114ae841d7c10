/**
 * The pool question of bench/start.ts: would a `claude` process kept warm
 * between runs help a run's first question, and what does a waiting process
 * hold in memory?
 */
import { join } from 'node:path'
import { SYSTEM_PROMPT } from '../../core/run/prompt.ts'
import type { CachingFakeAnthropic } from '../support/caching-fake-anthropic.ts'
import { API_KEY, bareCliMs, CLAUDE_BIN, fmt, median, processMemoryMiB, s, spread } from '../support/common.ts'
import { CLASSIFICATION_TIMEOUT_MS } from '../support/run-shape.ts'
import { CONTEXT, createTimedLogger, type Modules, type PartResult, QUESTION } from './fixture.ts'

/** How long a process spawned ahead waits before it is asked, in the pool measurement: well past its start-up. */
const POOL_WAIT_MS = 1_500

type PoolSample = { coldMs: number; aheadMs: number; memory: { rss: number; anon: number; pss: number } | null }

/**
 * One session asked at once (spawn to answer) against one spawned ahead and
 * asked once it has waited (ask to answer): the second is what a process
 * kept warm between runs would give a run's first question. The memory is
 * the waiting process's, read just before it is asked.
 */
async function poolSample(modules: Modules, fake: CachingFakeAnthropic, workDir: string): Promise<PoolSample> {
  const logger = createTimedLogger()
  const runtime = modules.createClaudeRuntime(
    { claudeBin: CLAUDE_BIN, workDir, passEnv: { ANTHROPIC_BASE_URL: fake.url } },
    logger,
  ) as {
    open(spec: Record<string, unknown>): {
      ask(q: Record<string, unknown>): Promise<{ ok: boolean }>
      close(): Promise<void>
    }
  }
  const spec = {
    runId: 'pool',
    system: SYSTEM_PROMPT,
    model: 'haiku',
    effort: null,
    maxOutputTokens: 1024,
    acp: null,
    apiKey: API_KEY,
    labels: { repo: 'acme/ledger', pr: 314 },
  }
  const question = { context: CONTEXT, question: QUESTION, deadlineMs: CLASSIFICATION_TIMEOUT_MS }
  fake.reset()
  const coldStart = performance.now()
  const cold = runtime.open(spec)
  const coldResult = await cold.ask(question)
  const coldMs = performance.now() - coldStart
  await cold.close()
  const ahead = runtime.open(spec)
  await Bun.sleep(POOL_WAIT_MS)
  const pid = Number(logger.entries.filter((e) => e.msg === 'claude session started').at(-1)?.fields.pid)
  const memory = processMemoryMiB(pid)
  const askedAt = performance.now()
  const aheadResult = await ahead.ask(question)
  const aheadMs = performance.now() - askedAt
  await ahead.close()
  if (!coldResult.ok || !aheadResult.ok) throw new Error('a pool measurement did not answer')
  return { coldMs, aheadMs, memory }
}

/** Memory of `count` processes spawned ahead and waiting together: PSS splits the binary's shared pages between them. */
async function waitingTogether(
  modules: Modules,
  fake: CachingFakeAnthropic,
  workDir: string,
  count: number,
): Promise<{ pss: number; anon: number; rss: number }> {
  const logger = createTimedLogger()
  const runtime = modules.createClaudeRuntime(
    { claudeBin: CLAUDE_BIN, workDir, passEnv: { ANTHROPIC_BASE_URL: fake.url } },
    logger,
  ) as { open(spec: Record<string, unknown>): { close(): Promise<void> } }
  const spec = {
    runId: 'pool-memory',
    system: 'x',
    model: 'haiku',
    effort: null,
    maxOutputTokens: 1024,
    acp: null,
    apiKey: API_KEY,
    labels: { repo: 'acme/ledger', pr: 314 },
  }
  const sessions = Array.from({ length: count }, () => runtime.open(spec))
  await Bun.sleep(POOL_WAIT_MS + 500 * count)
  const pids = logger.entries.filter((e) => e.msg === 'claude session started').map((e) => Number(e.fields.pid))
  const total = { pss: 0, anon: 0, rss: 0 }
  for (const pid of pids) {
    const memory = processMemoryMiB(pid)
    if (memory === null) continue
    total.pss += memory.pss
    total.anon += memory.anon
    total.rss += memory.rss
  }
  await Promise.all(sessions.map((session) => session.close()))
  return total
}

/** The pool part, on the after side: `reps` samples, topping `floorMs` up to two floors per repetition. */
export async function measurePool({
  modules,
  instant,
  workDir,
  reps,
  floorMs,
}: {
  modules: Modules
  instant: CachingFakeAnthropic
  workDir: string
  reps: number
  floorMs: number[]
}): Promise<PartResult> {
  const sections: string[] = []
  const goals: string[] = []
  const samples: PoolSample[] = []
  for (let rep = 0; rep < reps; rep += 1) {
    samples.push(await poolSample(modules, instant, join(workDir, 'pool')))
    if (floorMs.length < 2 * reps) floorMs.push(await bareCliMs(instant.url, CONTEXT, QUESTION))
  }
  const together = await waitingTogether(modules, instant, join(workDir, 'pool'), 4)
  const cold = median(samples.map((p) => p.coldMs))
  const ahead = median(samples.map((p) => p.aheadMs))
  const mem = (key: 'rss' | 'anon' | 'pss') => median(samples.map((p) => p.memory?.[key] ?? Number.NaN))
  sections.push(
    '## A pool kept warm between runs?',
    '',
    `A session asked at once (spawn to answer) against one spawned ahead and asked after ${s(POOL_WAIT_MS, 1)} s of waiting (ask to answer), on the after side, instant fake, ${samples.length} of each: ` +
      'what a process kept warm between runs would give the first question of a run (the others are started ahead within the run already).',
    '',
    '| session | answer in s, median (min–max) |',
    '|---|---:|',
    `| cold: spawned and asked at once | ${spread(samples.map((p) => p.coldMs))} |`,
    `| spawned ahead, asked after ${s(POOL_WAIT_MS, 1)} s | ${spread(samples.map((p) => p.aheadMs))} |`,
    '',
    `A process waiting on its stdin holds ${fmt(mem('rss'))} MiB resident (VmRSS), ${fmt(mem('anon'))} MiB of it anonymous (RssAnon), ${fmt(mem('pss'))} MiB proportional (PSS, the binary's shared pages split among the claude processes alive); ` +
      `four waiting together: ${fmt(together.pss)} MiB PSS, ${fmt(together.anon)} MiB anonymous, ${fmt(together.rss)} MiB resident in all.`,
  )
  goals.push(
    `Pool: a process kept warm would save a run's first question ${s(cold - ahead)} s (${s(cold)} → ${s(ahead)} s) for about ${fmt(mem('anon'))} MiB of anonymous memory (${fmt(mem('rss'))} MiB resident) held per pooled process all the time, and a session place.`,
  )
  return { sections, goals, failures: 0 }
}
