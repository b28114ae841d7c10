/**
 * The model runtime's contract, run against every runtime (the scripted
 * fake; `claude` and `opencode` against a fake provider on loopback). The
 * harness sets how the provider behaves for the next session.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import type { ModelRuntime } from '../../ports/model-runtime.ts'
import { aClassifyInput } from '../support/builders.ts'
import { classifyOnce } from '../support/classify-once.ts'
import { expectNothingFor } from '../support/waits.ts'

export type ProviderBehaviour =
  | { kind: 'answer'; text: string }
  /** Accepts the request and never answers. */
  | { kind: 'hang' }
  /** Refuses the key (HTTP 401), which no runtime retries. */
  | { kind: 'refuse-key' }

export type ModelRuntimeHarness = {
  runtime: ModelRuntime
  behave(behaviour: ProviderBehaviour): Promise<void>
  /** Requests the provider has received so far. */
  providerCalls(): number
  cleanup(): Promise<void>
}

export type ModelRuntimeContractOptions = {
  /** A deadline the runtime can answer well within when the provider answers at once. */
  deadlineMs: number
}

const API_KEY = 'sk-contract-secret-4f9a1c'
const RUN_ID = 'contract-run'
const ANSWER = '{"verdict":"no-match","certainty":92,"reason":"Two timestamps are naive."}'

export function modelRuntimeContract(
  name: string,
  make: () => Promise<ModelRuntimeHarness>,
  options: ModelRuntimeContractOptions,
): void {
  describe(`ModelRuntime contract (${name})`, () => {
    let harness: ModelRuntimeHarness
    beforeEach(async () => {
      harness = await make()
    })
    afterEach(async () => {
      // As the service does once a run's classifications have ended.
      await harness.runtime.endRun(RUN_ID)
      await harness.cleanup()
    })

    it("answers with the model's final text", async () => {
      await harness.behave({ kind: 'answer', text: ANSWER })
      const result = await classifyOnce(
        harness.runtime,
        aClassifyInput({ runId: RUN_ID, apiKey: API_KEY, deadlineMs: options.deadlineMs }),
      )
      expect(result.ok ? result.value.text.trim() : result.error).toBe(ANSWER)
    })

    it('stops a session at its deadline with a timeout failure', async () => {
      await harness.behave({ kind: 'hang' })
      const started = performance.now()
      const result = await classifyOnce(
        harness.runtime,
        aClassifyInput({ runId: RUN_ID, apiKey: API_KEY, deadlineMs: options.deadlineMs }),
      )
      expect(result.ok ? 'answered' : result.error.kind).toBe('timeout')
      expect(performance.now() - started).toBeLessThan(options.deadlineMs + 2_000)
    })

    it('reports a refused key as a runtime failure whose detail holds no key material', async () => {
      await harness.behave({ kind: 'refuse-key' })
      const result = await classifyOnce(
        harness.runtime,
        aClassifyInput({ runId: RUN_ID, apiKey: API_KEY, deadlineMs: options.deadlineMs }),
      )
      expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
      expect(result.ok ? '' : result.error.detail).not.toContain(API_KEY)
      expect(result.ok ? '' : result.error.detail).not.toContain('\n')
    })

    it('answers a second classification of the same run, and ends a run it never saw without failing', async () => {
      await harness.behave({ kind: 'answer', text: ANSWER })
      const input = aClassifyInput({ runId: RUN_ID, apiKey: API_KEY, deadlineMs: options.deadlineMs })
      const first = await classifyOnce(harness.runtime, input)
      const second = await classifyOnce(harness.runtime, { ...input, question: 'Another rule.' })
      expect([first, second].map((result) => (result.ok ? result.value.text.trim() : result.error))).toEqual([
        ANSWER,
        ANSWER,
      ])
      await harness.runtime.endRun('a-run-never-classified')
    })

    it('ends a session at once when its signal aborts', async () => {
      await harness.behave({ kind: 'hang' })
      const controller = new AbortController()
      const pending = classifyOnce(
        harness.runtime,
        aClassifyInput({ runId: RUN_ID, apiKey: API_KEY, deadlineMs: 60_000, signal: controller.signal }),
      )
      const started = performance.now()
      controller.abort()
      const result = await pending
      expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
      expect(performance.now() - started).toBeLessThan(5_000)
    })
    it('asks nothing of the provider until asked, and counts the deadline from the ask, not the open', async () => {
      await harness.behave({ kind: 'answer', text: ANSWER })
      const { context, question, deadlineMs: _unused, ...spec } = aClassifyInput({ runId: RUN_ID, apiKey: API_KEY })
      const session = harness.runtime.open(spec)
      try {
        // Open for longer than the ask's deadline: had the deadline started at the open, the ask would time out.
        const deadlineMs = options.deadlineMs
        await expectNothingFor(() => harness.providerCalls() > 0, 'a provider call before the ask', deadlineMs + 500)
        let underway = false
        const result = await session.ask(
          { context, question, deadlineMs },
          {
            onUnderway: () => {
              underway = true
            },
          },
        )
        expect(result.ok ? result.value.text.trim() : result.error).toBe(ANSWER)
        expect(underway).toBe(true)
        expect(harness.providerCalls()).toBe(1)
      } finally {
        await session.close()
      }
    })

    it('closes a session never asked without a provider call, and answers nothing after', async () => {
      await harness.behave({ kind: 'answer', text: ANSWER })
      const { context, question, ...spec } = aClassifyInput({ runId: RUN_ID, apiKey: API_KEY })
      const session = harness.runtime.open(spec)
      await session.close()
      await session.close()
      const result = await session.ask({ context, question, deadlineMs: options.deadlineMs })
      expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
      expect(harness.providerCalls()).toBe(0)
    })

    it('fails the ask of a session whose signal aborted before it was asked, without a provider call', async () => {
      await harness.behave({ kind: 'answer', text: ANSWER })
      const controller = new AbortController()
      const { context, question, ...spec } = aClassifyInput({
        runId: RUN_ID,
        apiKey: API_KEY,
        signal: controller.signal,
      })
      const session = harness.runtime.open(spec)
      controller.abort()
      try {
        const result = await session.ask({ context, question, deadlineMs: options.deadlineMs })
        expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
        expect(harness.providerCalls()).toBe(0)
      } finally {
        await session.close()
      }
    })
  })
}
