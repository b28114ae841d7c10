import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { existsSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { createOpencodeRuntime } from '../../../adapters/opencode/runtime.ts'
import { modelRuntimeContract, type ProviderBehaviour } from '../../ports/model-runtime.contract.ts'
import { aClassifyInput } from '../../support/builders.ts'
import { classifyOnce } from '../../support/classify-once.ts'
import type { FakeMode } from '../../support/fake-openai.ts'
import { ROOMY_DEADLINE_MS, waitFor } from '../../support/waits.ts'
import { MODEL, type OpencodeHarness, startOpencodeHarness } from './harness.ts'

// A start takes ~3 s of CPU: on a loaded 2-core machine, a classification on a new process can take a minute.
setDefaultTimeout(180_000)

const API_KEY = 'sk-opencode-test-7d2e91'
const ANSWER = '{"verdict":"match","certainty":88,"reason":"fake"}'

function modeFor(behaviour: ProviderBehaviour): FakeMode {
  if (behaviour.kind === 'answer' || behaviour.kind === 'hold') return { kind: 'answer', text: behaviour.text }
  if (behaviour.kind === 'hang') return { kind: 'hang' }
  return { kind: 'status', status: 401 }
}

modelRuntimeContract(
  'opencode',
  async () => {
    const harness = await startOpencodeHarness()
    return {
      runtime: harness.pointed,
      behave: async (behaviour) => {
        harness.fake.setMode(modeFor(behaviour))
        const until = behaviour.kind === 'hold' ? behaviour.until : null
        harness.fake.onRequest(until === null ? null : () => until)
      },
      providerCalls: () => harness.fake.requests().length,
      cleanup: harness.cleanup,
    }
  },
  // A classification on the run's process, already up, takes ~0.3 s on 2 idle cores.
  { deadlineMs: 5_000 },
)

describe('createOpencodeRuntime', () => {
  let harness: OpencodeHarness
  beforeAll(async () => {
    harness = await startOpencodeHarness()
  })
  afterAll(async () => {
    await harness.cleanup()
  })

  /**
   * The run of the tests about one classification's outcome: one process for them all (a run's
   * sessions are independent), ended by the last of them, the loops, so nothing they might still
   * send reaches a later test.
   */
  const SHARED_RUN = 'outcomes-run'

  it('reports the usage ACP gives: uncached input, output with reasoning, cache reads', async () => {
    const usage = { prompt: 1000, completion: 50, cached: 640, reasoning: 8 }
    const result = await harness.classify(
      { runId: SHARED_RUN, apiKey: API_KEY },
      { kind: 'answer', text: ANSWER, usage },
    )
    expect(result.ok ? result.value.usage : result.error).toEqual({
      input: 360,
      output: 50,
      cache_read: 640,
      cache_write: 0,
    })
  })

  it('reports a server error after its retries as a runtime failure without the key', async () => {
    // retry-after-ms 0 lets opencode's six attempts run back to back instead of over ~70 s.
    const before = harness.fake.requests().length
    const result = await harness.classify(
      { runId: SHARED_RUN, apiKey: API_KEY },
      { kind: 'status', status: 500, retryAfterMs: 0 },
    )
    expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
    expect(result.ok ? '' : result.error.detail).toContain('Internal server error (fake)')
    expect(result.ok ? '' : result.error.detail).not.toContain(API_KEY)
    expect(harness.fake.requests().length - before).toBe(6)
  })

  it('names the refused key as the provider error, without the key', async () => {
    const result = await harness.classify({ runId: SHARED_RUN, apiKey: API_KEY }, { kind: 'status', status: 401 })
    expect(result.ok ? 'answered' : result.error.detail).toBe('provider error: Incorrect API key provided (fake)')
  })

  it('sends no reasoning effort when the effort is null', async () => {
    const before = harness.fake.requests().length
    await harness.classify({ runId: SHARED_RUN, apiKey: API_KEY, effort: null }, { kind: 'answer', text: ANSWER })
    const bodies = harness.fake
      .requests()
      .slice(before)
      .map((request) => Object(request.body))
    expect(bodies.map((body) => 'reasoning_effort' in body)).toEqual([false])
  })

  it('stops a provider stream without finish_reason at the second assistant message, as a runtime failure', async () => {
    const before = harness.fake.requests().length
    const result = await harness.classify({ runId: SHARED_RUN, apiKey: API_KEY }, { kind: 'nofinish', text: ANSWER })
    expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
    expect(result.ok ? '' : result.error.detail).toContain('finish_reason')
    // Looping unchecked, opencode asks 10 to 20 times a second until the 120 s deadline (over 1,000
    // requests). Stopped at the second message, a few more slip in before the cancel lands: 14 on
    // one loaded core (`taskset -c 0`), so the bound tells the two apart without timing the stop.
    expect(harness.fake.requests().length - before).toBeLessThan(100)
  })

  it('stops a loop that streams nothing at the deadline, as a timeout', async () => {
    harness.fake.setMode({ kind: 'jsonbody', text: ANSWER })
    const { context, question, deadlineMs: _deadline, ...spec } = aClassifyInput({ runId: SHARED_RUN, apiKey: API_KEY })
    // The case is a loop that reached the provider and streams nothing. On a loaded machine opencode
    // may not reach the provider within the deadline at all: that stop is the same timeout, but not
    // this case, so it is asked again on a fresh session with twice the deadline. One try on a quiet
    // machine; three clones of the suite side by side on 2 cores needed a second.
    let reached = 0
    try {
      for (const deadlineMs of [4_000, 8_000, 16_000]) {
        const made = madeFor(SHARED_RUN).length
        const session = harness.pointed.open(spec)
        try {
          // Made on the run's process before it is asked: the deadline runs against the loop alone.
          await waitFor(() => madeFor(SHARED_RUN).length > made, 'the session made', ROOMY_DEADLINE_MS)
          const before = harness.fake.requests().length
          const result = await session.ask({ context, question, deadlineMs })
          expect(result.ok ? 'answered' : result.error).toEqual({
            kind: 'timeout',
            detail: `no answer within ${deadlineMs} ms`,
          })
          reached = harness.fake.requests().length - before
        } finally {
          await session.close()
        }
        if (reached > 0) break
      }
      expect(reached).toBeGreaterThan(0)
    } finally {
      await harness.runtime.endRun(SHARED_RUN)
    }
  })

  it('sends the effort as the reasoning effort, and asks the provider for at most max_output_tokens', async () => {
    // A run of its own, for both: the effort and the cap are in the config its process starts with
    // (one start, not two: each costs several CPU seconds).
    const before = harness.fake.requests().length
    const result = await harness.classify(
      { apiKey: API_KEY, effort: 'medium', maxOutputTokens: 700 },
      { kind: 'answer', text: ANSWER },
    )
    expect(result.ok ? 'ok' : result.error).toBe('ok')
    const sent = harness.fake.requests().slice(before)
    expect(sent.map((request) => Reflect.get(Object(request.body), 'reasoning_effort'))).toEqual(['medium'])
    expect(sent.map((request) => Reflect.get(Object(request.body), 'max_tokens'))).toEqual([700])
  })

  it('fails without a provider in the request, starting nothing', async () => {
    const started = harness.logger.withMessage('opencode session starting').length
    const result = await classifyOnce(harness.runtime, aClassifyInput({ acp: null }))
    expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
    expect(harness.logger.withMessage('opencode session starting').length).toBe(started)
  })

  it('reports a binary that cannot start as a runtime failure and removes its directory', async () => {
    const workDir = join(harness.workDir, 'broken')
    const runtime = createOpencodeRuntime(
      { opencodeBin: join(harness.workDir, 'no-such-opencode'), workDir, passEnv: {} },
      harness.logger,
    )
    const result = await classifyOnce(
      runtime,
      aClassifyInput({
        acp: { base_url: harness.fake.url, model: 'm', prices: { input: 1, output: 1 } },
        deadlineMs: ROOMY_DEADLINE_MS,
      }),
    )
    expect(result.ok ? 'answered' : result.error.detail).toContain('opencode could not start')
    expect(await readdir(join(workDir, 'runs'))).toEqual([])
  })

  const startedFor = (runId: string) =>
    harness.logger.withMessage('opencode process started').filter((e) => e.fields.run === runId)
  const madeFor = (runId: string) =>
    harness.logger.withMessage('opencode session made').filter((e) => e.fields.run === runId)
  const endedFor = (runId: string) =>
    harness.logger.withMessage('opencode session ended').filter((e) => e.fields.run === runId)
  const userMessages = (body: unknown): unknown => {
    const messages = Reflect.get(Object(body), 'messages')
    return Array.isArray(messages) ? messages.slice(1) : null
  }

  it("runs a run's classifications as sessions of one process, each provider request with only its own question", async () => {
    const runId = 'one-process-run'
    const before = harness.fake.requests().length
    harness.fake.setMode({ kind: 'answer', text: ANSWER })
    const questions = ['Question one: zones.', 'Question two: prints.']
    const results = await Promise.all(
      questions.map((question) => harness.classify({ runId, apiKey: API_KEY, question })),
    )
    expect(results.map((r) => (r.ok ? r.value.text : r.error.detail))).toEqual([ANSWER, ANSWER])
    expect(startedFor(runId)).toHaveLength(1)
    expect(new Set(endedFor(runId).map((e) => e.fields.pid)).size).toBe(1)
    expect(new Set(endedFor(runId).map((e) => e.fields.session)).size).toBe(2)
    const context = aClassifyInput().context
    const seen = harness.fake
      .requests()
      .slice(before)
      .map((request) => userMessages(request.body))
    expect(seen).toHaveLength(2)
    for (const question of questions) {
      expect(seen).toContainEqual([
        {
          role: 'user',
          content: [
            { type: 'text', text: context },
            { type: 'text', text: question },
          ],
        },
      ])
    }

    const pid = Number(startedFor(runId)[0]?.fields.pid)
    const dir = String(startedFor(runId)[0]?.fields.dir)
    expect(existsSync(`/proc/${pid}`)).toBe(true)
    await harness.runtime.endRun(runId)
    expect(existsSync(`/proc/${pid}`)).toBe(false)
    expect(existsSync(dir)).toBe(false)
  })

  it("makes a session opened ahead on the run's process before it is asked, and asks it there", async () => {
    const runId = 'ahead-run'
    harness.fake.setMode({ kind: 'answer', text: ANSWER })
    const before = harness.fake.requests().length
    const { context, question, deadlineMs, ...input } = aClassifyInput({
      runId,
      apiKey: API_KEY,
      deadlineMs: ROOMY_DEADLINE_MS,
    })
    const spec = {
      ...input,
      model: MODEL,
      acp: { base_url: harness.fake.url, model: MODEL, prices: { input: 1, output: 1 } },
    }
    const first = harness.runtime.open(spec)
    const second = harness.runtime.open(spec)
    try {
      const made = () => harness.logger.withMessage('opencode session made').filter((e) => e.fields.run === runId)
      await waitFor(() => made().length === 2, 'both sessions made', ROOMY_DEADLINE_MS)
      // Made, and still nothing asked of the provider.
      expect(harness.fake.requests().length).toBe(before)
      const answers = [
        await first.ask({ context, question: 'First question.', deadlineMs }),
        await second.ask({ context, question: 'Second question.', deadlineMs }),
      ]
      expect(answers.map((r) => (r.ok ? r.value.text : r.error.detail))).toEqual([ANSWER, ANSWER])
      const asked = harness.logger.withMessage('opencode session starting').filter((e) => e.fields.run === runId)
      expect(asked.map((e) => String(e.fields.session)).sort()).toEqual(
        made()
          .map((e) => String(e.fields.session))
          .sort(),
      )
      expect(startedFor(runId)).toHaveLength(1)
      expect(harness.fake.requests().length).toBe(before + 2)
    } finally {
      await first.close()
      await second.close()
      await harness.runtime.endRun(runId)
    }
  })

  it("ends the run's process within 5 s of a cancel (its sessions' signal) while the provider is still answering", async () => {
    const runId = 'cancelled-run'
    harness.fake.setMode({ kind: 'hang' })
    const before = harness.fake.requests().length
    const cancel = new AbortController()
    const { context, question, ...spec } = aClassifyInput({ runId, apiKey: API_KEY, signal: cancel.signal })
    const session = harness.pointed.open(spec)
    try {
      const asking = session.ask({ context, question, deadlineMs: ROOMY_DEADLINE_MS })
      await waitFor(
        () => harness.fake.requests().length > before,
        'the prompt to reach the provider',
        ROOMY_DEADLINE_MS,
      )
      const pid = Number(startedFor(runId)[0]?.fields.pid)
      expect(existsSync(`/proc/${pid}`)).toBe(true)
      const cancelledAt = performance.now()
      cancel.abort(new Error('the controller stopped waiting for this run'))
      expect(await asking).toEqual({ ok: false, error: { kind: 'runtime', detail: 'cancelled' } })
      // As the classifier does once a run's sessions have ended.
      await session.close()
      await harness.runtime.endRun(runId)
      await waitFor(() => !existsSync(`/proc/${pid}`), 'the process to be gone', 5_000)
      expect(performance.now() - cancelledAt).toBeLessThan(5_000)
    } finally {
      harness.fake.setMode({ kind: 'answer', text: ANSWER })
      await session.close()
      await harness.runtime.endRun(runId)
    }
  })

  it("cancels a session at its deadline and leaves the run's process to its other session", async () => {
    const runId = 'deadline-run'
    harness.fake.setMode({ kind: 'answer', text: ANSWER })
    let slowTimedOut = false
    let released = false
    harness.fake.onRequest(async (request) => {
      const slow = JSON.stringify(request.body).includes('SLOW-QUESTION')
      // The slow one is held past its deadline; the fast one until the slow one has timed out.
      while (!released && (slow || !slowTimedOut)) await Bun.sleep(50)
    })
    const { context, question: _question, deadlineMs: _deadline, ...spec } = aClassifyInput({ runId, apiKey: API_KEY })
    const slowSession = harness.pointed.open(spec)
    const fastSession = harness.pointed.open(spec)
    try {
      // Both made on the run's process before either is asked: the slow one's deadline then runs
      // against the held provider request alone, not against a start on a loaded machine.
      await waitFor(() => madeFor(runId).length === 2, 'both sessions made', ROOMY_DEADLINE_MS)
      const slow = slowSession.ask({ context, question: 'SLOW-QUESTION', deadlineMs: 4_000 })
      const fast = fastSession.ask({ context, question: 'FAST-QUESTION', deadlineMs: ROOMY_DEADLINE_MS })
      const slowResult = await slow
      slowTimedOut = true
      expect(slowResult.ok ? 'answered' : slowResult.error).toEqual({
        kind: 'timeout',
        detail: 'no answer within 4000 ms',
      })
      const fastResult = await fast
      expect(fastResult.ok ? fastResult.value.text : fastResult.error).toBe(ANSWER)
      expect(startedFor(runId)).toHaveLength(1)
      expect(existsSync(`/proc/${Number(startedFor(runId)[0]?.fields.pid)}`)).toBe(true)
    } finally {
      released = true
      harness.fake.onRequest(null)
      await slowSession.close()
      await fastSession.close()
      await harness.runtime.endRun(runId)
    }
  })

  it("fails the sessions of a process that died as runtime failures, and starts the run's next classification on a new one", async () => {
    const runId = 'crash-run'
    harness.fake.setMode({ kind: 'answer', text: ANSWER })
    harness.fake.onRequest(async () => {
      const pid = Number(startedFor(runId).at(-1)?.fields.pid)
      process.kill(-pid, 'SIGKILL')
      await Bun.sleep(200)
    })
    try {
      const crashed = await harness.classify({ runId, apiKey: API_KEY })
      expect(crashed.ok ? 'answered' : crashed.error.kind).toBe('runtime')
      expect(crashed.ok ? '' : crashed.error.detail).not.toContain(API_KEY)
      harness.fake.onRequest(null)
      const next = await harness.classify({ runId, apiKey: API_KEY })
      expect(next.ok ? next.value.text : next.error).toBe(ANSWER)
      const pids = startedFor(runId).map((e) => Number(e.fields.pid))
      expect(new Set(pids).size).toBe(2)
    } finally {
      harness.fake.onRequest(null)
      await harness.runtime.endRun(runId)
    }
    for (const entry of startedFor(runId)) expect(existsSync(String(entry.fields.dir))).toBe(false)
  })

  // Runs last: by now this runtime has answered, failed and timed out.
  it('removes every private directory and leaves the shared working directory empty, after answers and timeouts alike', async () => {
    const outcomes = harness.logger.withMessage('opencode session ended').map((entry) => entry.fields.outcome)
    expect(outcomes).toContain('answered')
    expect(outcomes).toContain('deadline')
    expect(await readdir(join(harness.workDir, 'runs'))).toEqual([])
    expect(await readdir(join(harness.workDir, 'empty'))).toEqual([])
  })
})
