/**
 * The classifier's drain (SIGTERM): the runs in hand answer, those still
 * going after the grace have their sessions stopped and answer anyway, and
 * nothing is taken once it has begun.
 */
import { describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../../adapters/memory/clock.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../../../adapters/memory/metrics.ts'
import { answered, createScriptedModelRuntime, hang, type ModelScript } from '../../../adapters/memory/model-runtime.ts'
import { createMemoryQueue } from '../../../adapters/memory/queue.ts'
import { createInlineRedactor } from '../../../adapters/memory/redactor.ts'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { decodeRunReply } from '../../../core/run/wire-decode.ts'
import { RUNTIME_KEY_SECRETS } from '../../../core/settings/service-account.ts'
import type { RunReply } from '../../../core/wire/types.ts'
import { createClassifier } from '../../../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../../../entrypoints/classifier/session-limiter.ts'
import { aClassification, aRunRequest } from '../../support/builders.ts'
import { waitFor } from '../../support/waits.ts'

const MATCH = '{"verdict":"match","certainty":95,"reason":"It holds."}'

async function serving(script: ModelScript) {
  const runtime = createScriptedModelRuntime(script)
  const classifier = createClassifier({
    runtimes: { 'api-key': runtime, acp: runtime, subscription: runtime },
    secrets: createMemorySecretStore({ [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: 'sk-ant-drain-test' } }),
    metrics: createRecordingMetrics(),
    logger: createRecordingLogger(),
    clock: createFixedClock(),
    limiter: createSessionLimiter(8),
    classificationTimeoutMs: 60_000,
    contextBudgetBytes: 600_000,
    redactor: createInlineRedactor(),
  })
  const queue = createMemoryQueue()
  const subscription = await queue.serve((text, tell) => classifier.handle(text, tell))
  const ask = async (id: string): Promise<RunReply> => {
    const text = await queue.request(
      aRunRequest({ id, classifications: [aClassification({ name: 'a' }), aClassification({ name: 'b' })] }),
      30_000,
    )
    const reply = decodeRunReply(text)
    if (!reply.ok) throw new Error(reply.error)
    return reply.value
  }
  return { runtime, classifier, queue, subscription, ask }
}

describe("the classifier's drain", () => {
  it('lets a run in hand finish within the grace, answers it, and takes nothing after', async () => {
    let release: () => void = () => undefined
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    const { runtime, classifier, queue, subscription, ask } = await serving(async () => {
      await released
      return answered(MATCH)
    })
    const pending = ask('drain-finishes')
    await waitFor(() => runtime.calls.length === 1, 'the first question to be asked')
    let drained = false
    const draining = classifier.drain(subscription, 60_000).then(() => {
      drained = true
    })
    await expect(ask('drain-late')).rejects.toThrow('classifier not running')
    expect(drained).toBe(false)
    release()
    expect(await pending).toMatchObject({ id: 'drain-finishes', ok: true, overall: 'approve' })
    await draining
    expect(queue.memberCount()).toBe(0)
  })

  it("stops a run's sessions once the grace has passed, and the run still answers", async () => {
    const { runtime, classifier, subscription, ask } = await serving(() => hang())
    const pending = ask('drain-stopped')
    await waitFor(() => runtime.calls.length === 1, 'the first question to be asked')
    await classifier.drain(subscription, 10)
    const reply = await pending
    expect(reply).toMatchObject({ id: 'drain-stopped', ok: false, overall: 'no-verdict' })
    expect(reply.rows.map((row) => row.error?.kind)).toEqual(['runtime', 'runtime'])
  })
})
