/**
 * The model runtime's contract, run against every runtime (the scripted
 * fake; `claude` and `opencode` against a fake provider on loopback). The
 * harness sets how the provider behaves for the next session.
 *
 * One harness and one run for the whole contract, ended after the last test
 * as the service ends a run once its classifications have ended: a runtime
 * that keeps a process per run (opencode) starts it once, not once a test,
 * and every count of provider calls is taken from the test's own start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { ModelRuntime } from '../../ports/model-runtime.ts'
import { aClassifyInput } from '../support/builders.ts'
import { classifyOnce } from '../support/classify-once.ts'
import { expectNothingFor, ROOMY_DEADLINE_MS, waitFor } from '../support/waits.ts'

export type ProviderBehaviour =
  | { kind: 'answer'; text: string }
  /**
   * Takes the request and answers `text` only once `until` resolves: a slow provider, as the
   * end-to-end tests script one (test/support/scripted-model.ts holds answers until the test lets go).
   */
  | { kind: 'hold'; text: string; until: Promise<void> }
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
  /**
   * The deadline of the tests about the deadline: one the runtime answers well within once what
   * it starts for a session is up and the provider answers at once. The other tests get
   * {@link ROOMY_DEADLINE_MS}, so a loaded machine's slow start can't fail them.
   */
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
    beforeAll(async () => {
      harness = await make()
    })
    afterAll(async () => {
      // As the service does once a run's classifications have ended.
      await harness.runtime.endRun(RUN_ID)
      await harness.cleanup()
    })

    it("answers with the model's final text", async () => {
      await harness.behave({ kind: 'answer', text: ANSWER })
      const result = await classifyOnce(
        harness.runtime,
        aClassifyInput({ runId: RUN_ID, apiKey: API_KEY, deadlineMs: ROOMY_DEADLINE_MS }),
      )
      expect(result.ok ? result.value.text.trim() : result.error).toBe(ANSWER)
    })

    it('waits for an answer the provider holds back, and answers with it once the provider lets go', async () => {
      let release = () => {}
      const until = new Promise<void>((resolve) => {
        release = resolve
      })
      await harness.behave({ kind: 'hold', text: ANSWER, until })
      const before = harness.providerCalls()
      let settled = false
      const pending = classifyOnce(
        harness.runtime,
        aClassifyInput({ runId: RUN_ID, apiKey: API_KEY, deadlineMs: ROOMY_DEADLINE_MS }),
      ).finally(() => {
        settled = true
      })
      try {
        await waitFor(() => harness.providerCalls() > before, 'the question at the provider', ROOMY_DEADLINE_MS)
        await expectNothingFor(() => settled, 'an answer while the provider holds it', 500)
      } finally {
        release()
      }
      const result = await pending
      expect(result.ok ? result.value.text.trim() : result.error).toBe(ANSWER)
      expect(harness.providerCalls() - before).toBe(1)
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
        aClassifyInput({ runId: RUN_ID, apiKey: API_KEY, deadlineMs: ROOMY_DEADLINE_MS }),
      )
      expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
      expect(result.ok ? '' : result.error.detail).not.toContain(API_KEY)
      expect(result.ok ? '' : result.error.detail).not.toContain('\n')
    })

    it('answers a second classification of the same run, and ends a run it never saw without failing', async () => {
      await harness.behave({ kind: 'answer', text: ANSWER })
      const input = aClassifyInput({ runId: RUN_ID, apiKey: API_KEY, deadlineMs: ROOMY_DEADLINE_MS })
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
        aClassifyInput({ runId: RUN_ID, apiKey: API_KEY, deadlineMs: ROOMY_DEADLINE_MS, signal: controller.signal }),
      )
      const started = performance.now()
      controller.abort()
      const result = await pending
      expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
      expect(performance.now() - started).toBeLessThan(5_000)
    })
    it('asks nothing of the provider until asked, and counts the deadline from the ask, not the open', async () => {
      await harness.behave({ kind: 'answer', text: ANSWER })
      const input = aClassifyInput({ runId: RUN_ID, apiKey: API_KEY })
      // One answer first, so what the runtime starts for the run is up: the ask below is then the
      // provider's answer alone, which the deadline is meant to cover, not a start on a loaded machine.
      await classifyOnce(harness.runtime, { ...input, deadlineMs: ROOMY_DEADLINE_MS })
      const { context, question, deadlineMs: _unused, ...spec } = input
      const before = harness.providerCalls()
      const session = harness.runtime.open(spec)
      try {
        // Open for longer than the ask's deadline: had the deadline started at the open, the ask would time out.
        const deadlineMs = options.deadlineMs
        await expectNothingFor(
          () => harness.providerCalls() > before,
          'a provider call before the ask',
          deadlineMs + 500,
        )
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
        expect(harness.providerCalls() - before).toBe(1)
      } finally {
        await session.close()
      }
    })

    it('closes a session never asked without a provider call, and answers nothing after', async () => {
      await harness.behave({ kind: 'answer', text: ANSWER })
      const { context, question, ...spec } = aClassifyInput({ runId: RUN_ID, apiKey: API_KEY })
      const before = harness.providerCalls()
      const session = harness.runtime.open(spec)
      await session.close()
      await session.close()
      const result = await session.ask({ context, question, deadlineMs: ROOMY_DEADLINE_MS })
      expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
      expect(harness.providerCalls() - before).toBe(0)
    })

    it('fails the ask of a session whose signal aborted before it was asked, without a provider call', async () => {
      await harness.behave({ kind: 'answer', text: ANSWER })
      const controller = new AbortController()
      const { context, question, ...spec } = aClassifyInput({
        runId: RUN_ID,
        apiKey: API_KEY,
        signal: controller.signal,
      })
      const before = harness.providerCalls()
      const session = harness.runtime.open(spec)
      controller.abort()
      try {
        const result = await session.ask({ context, question, deadlineMs: ROOMY_DEADLINE_MS })
        expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
        expect(harness.providerCalls() - before).toBe(0)
      } finally {
        await session.close()
      }
    })
  })
}
