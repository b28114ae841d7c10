/**
 * The run's start-up off the critical path, with the real `claude` against
 * the fake provider: the other questions' processes are spawned while the
 * first is asked and get their stdin line only once its answer is in (warm
 * first keeps the cache benefit); a process started ahead and never asked is
 * ended with its directories. Seen through the fake's request log and the
 * runtime's debug log, never through time.
 */
import { afterEach, beforeEach, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { readdir } from 'node:fs/promises'
import { createClaudeRuntime } from '../../../adapters/claude/runtime.ts'
import { createFixedClock } from '../../../adapters/memory/clock.ts'
import { createRecordingLogger, type RecordingLogger } from '../../../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../../../adapters/memory/metrics.ts'
import { createScriptedModelRuntime, failed } from '../../../adapters/memory/model-runtime.ts'
import { createInlineRedactor } from '../../../adapters/memory/redactor.ts'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { RUNTIME_KEY_SECRETS } from '../../../core/settings/service-account.ts'
import type { Classification, RunReply } from '../../../core/wire/types.ts'
import { createClassifier } from '../../../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../../../entrypoints/classifier/session-limiter.ts'
import { aWorkDir, CLAUDE_BIN, processAlive } from '../../adapters/claude/support.ts'
import { aClassification, aRunRequest } from '../../support/builders.ts'
import { type FakeAnthropic, startFakeAnthropic } from '../../support/fake-anthropic.ts'
import { waitFor } from '../../support/waits.ts'

setDefaultTimeout(60_000)

const API_KEY = 'sk-ant-start-ahead-test-5a1f'
const MATCH = '{"verdict":"match","certainty":90,"reason":"It holds."}'

function rules(count: number): Classification[] {
  return Array.from({ length: count }, (_, i) => aClassification({ name: `rule-${i + 1}` }))
}

type World = {
  fake: FakeAnthropic
  logger: RecordingLogger
  workDir: string
  handle(classifications: Classification[], diff?: string): Promise<RunReply>
  abortAll(): void
  remove(): Promise<void>
}

async function aWorld(options: { budget?: number } = {}): Promise<World> {
  const fake = startFakeAnthropic({ text: MATCH })
  const work = await aWorkDir()
  const logger = createRecordingLogger()
  const classifier = createClassifier({
    runtimes: {
      'api-key': createClaudeRuntime(
        { claudeBin: CLAUDE_BIN, workDir: work.path, passEnv: { ANTHROPIC_BASE_URL: fake.url } },
        logger,
      ),
      acp: createScriptedModelRuntime(() => failed('runtime', 'not used')),
      subscription: createScriptedModelRuntime(() => failed('runtime', 'not used')),
    },
    secrets: createMemorySecretStore({ [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: API_KEY } }),
    metrics: createRecordingMetrics(),
    logger,
    clock: createFixedClock(),
    limiter: createSessionLimiter(8),
    classificationTimeoutMs: 30_000,
    contextBudgetBytes: options.budget ?? 600_000,
    redactor: createInlineRedactor(),
  })
  return {
    fake,
    logger,
    workDir: work.path,
    handle: (classifications, diff) =>
      classifier.handle(JSON.stringify(aRunRequest({ classifications, ...(diff === undefined ? {} : { diff }) }))),
    abortAll: () => classifier.abortAll(),
    remove: async () => {
      await fake.stop()
      await work.remove()
    },
  }
}

/** The runtime's session events in log order, as `<event> <pid>`. */
function sessionEvents(logger: RecordingLogger): string[] {
  const names: Record<string, string> = {
    'claude session started': 'spawned',
    'claude question sent': 'asked',
    'claude session ended': 'ended',
    'claude session closed unasked': 'closed',
  }
  return logger.entries
    .filter((entry) => names[entry.msg] !== undefined)
    .map((entry) => `${names[entry.msg]} ${entry.fields.pid}`)
}

describe('a run on the claude runtime starts its processes ahead', () => {
  let world: World
  beforeEach(async () => {
    world = await aWorld()
  })
  afterEach(async () => {
    await world.remove()
  })

  it('spawns the other processes before the first answer and writes their lines only after it', async () => {
    let requestsWhileHeld = -1
    let holding = true
    world.fake.setHold(async () => {
      if (!holding) return
      holding = false
      // The first answer waits until the other three processes are running.
      await waitFor(
        () => world.logger.withMessage('claude session started').length === 4,
        'the other processes to be spawned',
        30_000,
      )
      requestsWhileHeld = world.fake.stats().messages
    })
    const reply = await world.handle(rules(4))
    expect(reply.ok).toBe(true)
    expect(reply.rows.map((row) => row.verdict)).toEqual(['match', 'match', 'match', 'match'])
    // Four processes ran while the provider had only the first question.
    expect(requestsWhileHeld).toBe(1)
    expect(world.fake.stats().messages).toBe(4)

    const events = sessionEvents(world.logger)
    const [first, ...others] = world.logger.withMessage('claude session started').map((e) => Number(e.fields.pid))
    const at = (event: string) => events.indexOf(event)
    expect(at(`asked ${first}`)).toBeLessThan(at(`ended ${first}`))
    for (const pid of others) {
      expect(at(`spawned ${pid}`)).toBeLessThan(at(`ended ${first}`))
      expect(at(`asked ${pid}`)).toBeGreaterThan(at(`ended ${first}`))
    }
    // Warm first still pays off: the later questions read the PR block the first one wrote.
    expect(reply.rows.slice(1).every((row) => (row.usage?.cache_read ?? 0) > 0)).toBe(true)
    expect(await readdir(world.workDir)).toEqual(['cwd'])
  })

  it('on shutdown ends the processes waiting ahead like the one asked, and removes their directories', async () => {
    world.fake.setMode({ mode: 'hang' })
    const pending = world.handle(rules(3))
    await waitFor(() => world.logger.withMessage('claude session started').length === 3, 'three processes', 30_000)
    // The first one's question at the provider, where it hangs: a stop before that would find it unasked.
    await waitFor(() => world.fake.stats().messages === 1, 'the first question at the provider', 30_000)
    world.abortAll()
    const reply = await pending
    expect(reply.ok).toBe(false)
    expect(reply.rows.map((row) => row.error?.detail)).toEqual(['cancelled', 'cancelled', 'cancelled'])
    for (const entry of world.logger.withMessage('claude session started'))
      expect(await processAlive(Number(entry.fields.pid))).toBe(false)
    // Only the first was asked; the two started ahead never got a line.
    expect(world.logger.withMessage('claude question sent')).toHaveLength(1)
    expect(world.fake.stats().messages).toBe(1)
    expect(await readdir(world.workDir)).toEqual(['cwd'])
  })
})

describe('a run that stops before its questions', () => {
  it('ends the process started for its first question, unasked, and removes its directories', async () => {
    const world = await aWorld({ budget: 2_000 })
    try {
      const diff = `diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +1 @@\n+${'x'.repeat(5_000)}\n`
      const reply = await world.handle(rules(3), diff)
      expect(reply.ok).toBe(false)
      expect(reply.error).toContain('budget')
      expect(world.fake.stats().messages).toBe(0)
      const spawned = world.logger.withMessage('claude session started').map((e) => Number(e.fields.pid))
      // The spawn may have been skipped altogether when the check came first; either way nothing runs on.
      expect(spawned.length).toBeLessThanOrEqual(1)
      for (const pid of spawned) expect(await processAlive(pid)).toBe(false)
      expect(world.logger.withMessage('claude question sent')).toHaveLength(0)
      expect((await readdir(world.workDir)).filter((name) => name !== 'cwd')).toEqual([])
    } finally {
      await world.remove()
    }
  })
})
