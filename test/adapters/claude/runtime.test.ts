/**
 * The claude runtime driving the real pinned `claude` binary against a fake
 * Anthropic API on loopback: the port's contract, the exact request the
 * provider receives, prompt caching across one run, and how failures land.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { readdir } from 'node:fs/promises'
import { createClaudeRuntime } from '../../../adapters/claude/runtime.ts'
import { createRecordingLogger, type RecordingLogger } from '../../../adapters/memory/logger.ts'
import { buildQuestion, buildSharedContext, SYSTEM_PROMPT } from '../../../core/run/prompt.ts'
import type { ModelRuntime } from '../../../ports/model-runtime.ts'
import { modelRuntimeContract } from '../../ports/model-runtime.contract.ts'
import { aClassification, aClassifyInput, aRunRequest } from '../../support/builders.ts'
import { classifyOnce } from '../../support/classify-once.ts'
import { type FakeAnthropic, type RecordedRequest, startFakeAnthropic } from '../../support/fake-anthropic.ts'
import { ROOMY_DEADLINE_MS, waitFor } from '../../support/waits.ts'
import { aWorkDir, CLAUDE_BIN, groupAlive, SECRET_KEY, startedPids } from './support.ts'

// bun 1.4.5 does not apply bunfig's [test] timeout; a loaded machine's starts need more than its 5 s default.
setDefaultTimeout(180_000)

modelRuntimeContract(
  'claude',
  async () => {
    const fake = startFakeAnthropic()
    const workDir = await aWorkDir()
    const runtime = createClaudeRuntime(
      { claudeBin: CLAUDE_BIN, workDir: workDir.path, passEnv: { ANTHROPIC_BASE_URL: fake.url } },
      createRecordingLogger(),
    )
    return {
      runtime,
      behave: async (behaviour) => {
        fake.setHold(null)
        if (behaviour.kind === 'answer') fake.setMode({ mode: 'ok', text: behaviour.text })
        else if (behaviour.kind === 'hold') {
          const { until } = behaviour
          fake.setMode({ mode: 'ok', text: behaviour.text })
          fake.setHold(() => until)
        } else fake.setMode({ mode: behaviour.kind === 'hang' ? 'hang' : '401' })
      },
      providerCalls: () => fake.stats().messages,
      cleanup: async () => {
        await fake.stop()
        await workDir.remove()
      },
    }
  },
  // Each session is a new process (~0.4 s to start alone): a loaded single core took over 10 s to
  // start one and answer, so the ask opened 10.5 s before it gets 10 s more.
  { deadlineMs: 10_000 },
)

type Harness = {
  fake: FakeAnthropic
  runtime: ModelRuntime
  logger: RecordingLogger
  workDir: string
  remove(): Promise<void>
}

async function aHarness(): Promise<Harness> {
  const fake = startFakeAnthropic({ text: '{"verdict":"match","certainty":90,"reason":"ok"}' })
  const workDir = await aWorkDir()
  const logger = createRecordingLogger()
  const runtime = createClaudeRuntime(
    { claudeBin: CLAUDE_BIN, workDir: workDir.path, passEnv: { ANTHROPIC_BASE_URL: fake.url } },
    logger,
  )
  return {
    fake,
    runtime,
    logger,
    workDir: workDir.path,
    remove: async () => {
      await fake.stop()
      await workDir.remove()
    },
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function field(value: unknown, ...path: Array<string | number>): unknown {
  let current = value
  for (const key of path) {
    if (typeof key === 'number') current = Array.isArray(current) ? current[key] : undefined
    else current = isRecord(current) ? current[key] : undefined
  }
  return current
}

function countMarkers(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countMarkers(item), 0)
  if (!isRecord(value)) return 0
  return Object.entries(value).reduce(
    (sum, [key, item]) => sum + (key === 'cache_control' ? 1 : 0) + countMarkers(item),
    0,
  )
}

function messageCalls(fake: FakeAnthropic): RecordedRequest[] {
  return fake.requests().filter((request) => request.method === 'POST' && request.path === '/v1/messages')
}

function userBlocks(request: RecordedRequest | undefined): unknown[] {
  const messages = field(request?.body, 'messages')
  const user = Array.isArray(messages) ? messages.find((message) => field(message, 'role') === 'user') : undefined
  const content = field(user, 'content')
  return Array.isArray(content) ? content : []
}

const run = aRunRequest()
const context = buildSharedContext({
  repo: run.repo,
  pr: run.pr,
  title: run.title,
  commits: run.commits,
  diff: run.diff,
})

describe('createClaudeRuntime (real claude, fake provider)', () => {
  let harness: Harness
  beforeEach(async () => {
    harness = await aHarness()
  })
  afterEach(async () => {
    await harness.remove()
  })

  it('sends one request: two user blocks, the breakpoint on the shared one only, no tools, our system prompt, haiku resolved', async () => {
    const result = await classifyOnce(
      harness.runtime,
      aClassifyInput({
        system: SYSTEM_PROMPT,
        context,
        question: buildQuestion(aClassification()),
        apiKey: SECRET_KEY,
        deadlineMs: ROOMY_DEADLINE_MS,
      }),
    )
    expect(result.ok).toBe(true)
    const requests = messageCalls(harness.fake)
    expect(requests).toHaveLength(1)
    const request = requests[0]
    const blocks = userBlocks(request)
    expect(blocks).toHaveLength(2)
    expect(field(blocks[0], 'text')).toBe(context)
    expect(field(blocks[0], 'cache_control')).toEqual({ type: 'ephemeral' })
    expect(field(blocks[1], 'text')).toBe(buildQuestion(aClassification()))
    expect(field(blocks[1], 'cache_control')).toBeUndefined()
    expect(countMarkers(request?.body)).toBeLessThanOrEqual(4)
    expect(field(request?.body, 'tools')).toEqual([])
    const system = field(request?.body, 'system')
    expect(Array.isArray(system) ? system.map((block) => field(block, 'text')) : []).toContain(SYSTEM_PROMPT)
    expect(field(request?.body, 'model')).toBe('claude-haiku-5-5')
    expect(request?.headers['x-api-key']).toBe(SECRET_KEY)
  })

  it('asks for the effort when one is set and leaves the default otherwise', async () => {
    await classifyOnce(harness.runtime, aClassifyInput({ effort: 'low', deadlineMs: ROOMY_DEADLINE_MS }))
    await classifyOnce(harness.runtime, aClassifyInput({ effort: null, deadlineMs: ROOMY_DEADLINE_MS }))
    const [withEffort, withoutEffort] = messageCalls(harness.fake)
    expect(field(withEffort?.body, 'output_config', 'effort')).toBe('low')
    expect(field(withoutEffort?.body, 'output_config', 'effort') ?? 'medium').toBe('medium')
  })

  it('caps every request at max_output_tokens, thinking included', async () => {
    const asked = (model: string, maxOutputTokens: number) =>
      classifyOnce(harness.runtime, aClassifyInput({ model, maxOutputTokens, deadlineMs: ROOMY_DEADLINE_MS }))
    // Adaptive thinking (haiku 5.5): thinking counts toward max_tokens. Haiku 4.5 takes a budget of its own.
    await asked('haiku', 1024)
    await asked('claude-haiku-4-5', 1024)
    await asked('claude-haiku-4-5', 4096)
    const [adaptive, small, large] = messageCalls(harness.fake).map((request) => request.body)
    expect(field(adaptive, 'max_tokens')).toBe(1024)
    expect(field(adaptive, 'thinking', 'type')).toBe('adaptive')
    expect(field(small, 'max_tokens')).toBe(1024)
    expect(field(small, 'thinking')).toEqual({ type: 'disabled' })
    expect(field(large, 'max_tokens')).toBe(4096)
    expect(field(large, 'thinking', 'budget_tokens')).toBe(3584)
  })

  it('talks to the provider only: no preflight, no other path', async () => {
    await classifyOnce(harness.runtime, aClassifyInput({ deadlineMs: ROOMY_DEADLINE_MS }))
    expect(harness.fake.requests().map((request) => `${request.method} ${request.path}`)).toEqual(['POST /v1/messages'])
  })

  it('keeps the shared block byte for byte across a run and a rebase, so the second classification reads the cache', async () => {
    const rebased = buildSharedContext({
      repo: run.repo,
      pr: run.pr,
      title: run.title,
      commits: run.commits,
      diff: run.diff.replace('index 1111111..2222222', 'index 9999999..aaaaaaa'),
    })
    const questions = [
      buildQuestion(aClassification()),
      buildQuestion(aClassification({ name: 'tests', description: 'Adds a test.' })),
    ]
    const ask = (shared: string, question: string) =>
      classifyOnce(
        harness.runtime,
        aClassifyInput({ system: SYSTEM_PROMPT, context: shared, question, deadlineMs: ROOMY_DEADLINE_MS }),
      )
    const results = [
      await ask(context, questions[0] ?? ''),
      await ask(context, questions[1] ?? ''),
      await ask(rebased, questions[1] ?? ''),
    ]

    const firstBlocks = messageCalls(harness.fake).map((request) => field(userBlocks(request)[0], 'text'))
    expect(firstBlocks).toEqual([context, context, context])
    const reported = harness.fake.stats().usages.map((usage) => usage.cache_read_input_tokens)
    const answered = results.map((result) => (result.ok ? result.value.usage?.cache_read : null))
    expect(answered).toEqual(reported)
    expect(reported[0]).toBe(0)
    // More than the shared block's own estimate: the prefix through the PR was read, not just the system prompt.
    expect(reported[1]).toBeGreaterThan(context.length / 4)
    expect(reported[2]).toBeGreaterThan(context.length / 4)
  })

  it('returns malformed answer text as it is: parsing is core’s', async () => {
    harness.fake.setMode({ text: 'I think it matches, probably.' })
    const result = await classifyOnce(harness.runtime, aClassifyInput({ deadlineMs: ROOMY_DEADLINE_MS }))
    expect(result.ok ? result.value.text : result.error.detail).toBe('I think it matches, probably.')
    expect(result.ok ? result.value.usage?.output : null).toBeGreaterThan(0)
  })

  it("reports the CLI's own total_cost_usd, which the budget counts", async () => {
    const result = await classifyOnce(harness.runtime, aClassifyInput({ deadlineMs: ROOMY_DEADLINE_MS }))
    expect(result.ok ? result.value.costUsd : null).toBeGreaterThan(0)
  })

  it('times out a slow answer, ends the process group and removes the private HOME and TMPDIR', async () => {
    harness.fake.setMode({ delayMs: 60_000 })
    const result = await classifyOnce(harness.runtime, aClassifyInput({ deadlineMs: 3_000 }))
    expect(result).toEqual({ ok: false, error: { kind: 'timeout', detail: 'no answer within 3000 ms' } })
    const pids = startedPids(harness.logger)
    expect(pids).toHaveLength(1)
    expect(await Promise.all(pids.map(groupAlive))).toEqual([false])
    expect(await readdir(harness.workDir)).toEqual(['cwd'])
  })

  it('ends the process group within 5 s of a cancel (its signal) while the provider is still answering', async () => {
    harness.fake.setMode({ mode: 'hang' })
    const cancel = new AbortController()
    const { context, question, ...spec } = aClassifyInput({ signal: cancel.signal, deadlineMs: ROOMY_DEADLINE_MS })
    const session = harness.runtime.open(spec)
    const asking = session.ask({ context, question, deadlineMs: ROOMY_DEADLINE_MS })
    await waitFor(() => messageCalls(harness.fake).length === 1, 'the request to reach the provider', ROOMY_DEADLINE_MS)
    const [pid] = startedPids(harness.logger)
    if (pid === undefined) throw new Error('no claude started')
    expect(await groupAlive(pid)).toBe(true)
    const cancelledAt = performance.now()
    cancel.abort(new Error('the controller stopped waiting for this run'))
    expect(await asking).toEqual({ ok: false, error: { kind: 'runtime', detail: 'cancelled' } })
    await session.close()
    expect(await groupAlive(pid)).toBe(false)
    expect(performance.now() - cancelledAt).toBeLessThan(5_000)
    expect(await readdir(harness.workDir)).toEqual(['cwd'])
  })

  it('reports a 200 the CLI cannot read as a runtime failure', async () => {
    harness.fake.setMode({ mode: 'malformed' })
    const result = await classifyOnce(harness.runtime, aClassifyInput({ deadlineMs: ROOMY_DEADLINE_MS }))
    expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
    expect(result.ok ? '' : result.error.detail).toContain('claude exited with code 1')
  })
})

describe('createClaudeRuntime API errors', () => {
  let harness: Harness
  beforeAll(async () => {
    harness = await aHarness()
  })
  afterAll(async () => {
    await harness.remove()
  })

  for (const status of ['401', '429', '500'] as const) {
    it(`reports HTTP ${status} as a runtime failure naming the status, after the configured retries, without key material`, async () => {
      harness.fake.reset()
      harness.fake.setMode({ mode: status, retryAfter: 1 })
      const result = await classifyOnce(
        harness.runtime,
        aClassifyInput({ apiKey: SECRET_KEY, deadlineMs: ROOMY_DEADLINE_MS }),
      )
      expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
      const detail = result.ok ? '' : result.error.detail
      expect(detail).toContain(`API status ${status}`)
      expect(detail).not.toContain(SECRET_KEY)
      expect(detail).not.toContain('sk-')
      expect(detail).not.toContain('\n')
      expect(detail.length).toBeLessThanOrEqual(300)
      // The default CLAUDE_CODE_MAX_RETRIES=2: one attempt and two retries, not the CLI's ten.
      expect(harness.fake.stats().messages).toBe(3)
    })
  }
})
