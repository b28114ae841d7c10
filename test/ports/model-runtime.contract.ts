/**
 * The model runtime's contract, run against every runtime (the scripted
 * fake; `claude` and `opencode` against a fake provider on loopback). The
 * harness sets how the provider behaves for the next session.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import type { ModelRuntime } from '../../ports/model-runtime.ts'
import { aClassifyInput } from '../builders.ts'

export type ProviderBehaviour =
  | { kind: 'answer'; text: string }
  /** Accepts the request and never answers. */
  | { kind: 'hang' }
  /** Refuses the key (HTTP 401), which no runtime retries. */
  | { kind: 'refuse-key' }

export type ModelRuntimeHarness = {
  runtime: ModelRuntime
  behave(behaviour: ProviderBehaviour): Promise<void>
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
      const result = await harness.runtime.classify(
        aClassifyInput({ runId: RUN_ID, apiKey: API_KEY, deadlineMs: options.deadlineMs }),
      )
      expect(result.ok ? result.value.text.trim() : result.error).toBe(ANSWER)
    })

    it('stops a session at its deadline with a timeout failure', async () => {
      await harness.behave({ kind: 'hang' })
      const started = performance.now()
      const result = await harness.runtime.classify(
        aClassifyInput({ runId: RUN_ID, apiKey: API_KEY, deadlineMs: options.deadlineMs }),
      )
      expect(result.ok ? 'answered' : result.error.kind).toBe('timeout')
      expect(performance.now() - started).toBeLessThan(options.deadlineMs + 2_000)
    })

    it('reports a refused key as a runtime failure whose detail holds no key material', async () => {
      await harness.behave({ kind: 'refuse-key' })
      const result = await harness.runtime.classify(
        aClassifyInput({ runId: RUN_ID, apiKey: API_KEY, deadlineMs: options.deadlineMs }),
      )
      expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
      expect(result.ok ? '' : result.error.detail).not.toContain(API_KEY)
      expect(result.ok ? '' : result.error.detail).not.toContain('\n')
    })

    it('answers a second classification of the same run, and ends a run it never saw without failing', async () => {
      await harness.behave({ kind: 'answer', text: ANSWER })
      const input = aClassifyInput({ runId: RUN_ID, apiKey: API_KEY, deadlineMs: options.deadlineMs })
      const first = await harness.runtime.classify(input)
      const second = await harness.runtime.classify({ ...input, question: 'Another rule.' })
      expect([first, second].map((result) => (result.ok ? result.value.text.trim() : result.error))).toEqual([
        ANSWER,
        ANSWER,
      ])
      await harness.runtime.endRun('a-run-never-classified')
    })

    it('ends a session at once when its signal aborts', async () => {
      await harness.behave({ kind: 'hang' })
      const controller = new AbortController()
      const pending = harness.runtime.classify(
        aClassifyInput({ runId: RUN_ID, apiKey: API_KEY, deadlineMs: 60_000, signal: controller.signal }),
      )
      const started = performance.now()
      controller.abort()
      const result = await pending
      expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
      expect(performance.now() - started).toBeLessThan(5_000)
    })
  })
}
