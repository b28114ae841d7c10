/**
 * A run's redaction under its deadline (issue 27): a redaction that cannot
 * finish ends the run as no verdict before any model process starts, and
 * while a redaction holds its worker the classifier's loop goes on, its
 * heartbeats included. Seen through events (the queue's progress, the
 * model runtime's sessions), never through time: the redactions here never
 * finish, so the deadline is the only way out, not a race with one.
 */
import { afterEach, describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../../adapters/memory/clock.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../../../adapters/memory/metrics.ts'
import { answered, createScriptedModelRuntime } from '../../../adapters/memory/model-runtime.ts'
import { createMemoryQueue } from '../../../adapters/memory/queue.ts'
import { createHeldRedactor } from '../../../adapters/memory/redactor.ts'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { createWorkerRedactor } from '../../../adapters/worker/redactor.ts'
import { RUNTIME_KEY_SECRETS } from '../../../core/settings/service-account.ts'
import type { RunProgress, RunReply } from '../../../core/wire/types.ts'
import { createClassifier } from '../../../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../../../entrypoints/classifier/session-limiter.ts'
import type { Redactor } from '../../../ports/redactor.ts'
import { aClassification, aRunRequest } from '../../support/builders.ts'
import { STUCK_CHANNEL } from '../../support/stuck-redact-worker.ts'

const MATCH = '{"verdict":"match","certainty":95,"reason":"It holds."}'
const STUCK_WORKER = new URL('../../support/stuck-redact-worker.ts', import.meta.url)

function setup(redactor: Redactor, redactionDeadlineMs?: number) {
  const claude = createScriptedModelRuntime(() => answered(MATCH))
  const logger = createRecordingLogger()
  const classifier = createClassifier({
    runtimes: { 'api-key': claude, acp: createScriptedModelRuntime(() => answered(MATCH)), subscription: claude },
    secrets: createMemorySecretStore({
      [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: 'sk-ant-deadline-test-4b1c' },
    }),
    metrics: createRecordingMetrics(),
    logger,
    clock: createFixedClock(),
    limiter: createSessionLimiter(4),
    classificationTimeoutMs: 2_000,
    contextBudgetBytes: 600_000,
    redactor,
    ...(redactionDeadlineMs === undefined ? {} : { redactionDeadlineMs }),
  })
  return { claude, logger, classifier }
}

describe("a run's redaction deadline", () => {
  const redactors: Redactor[] = []
  afterEach(() => {
    for (const redactor of redactors.splice(0)) redactor.close()
  })

  it('ends a run whose redaction cannot finish as no verdict, before any model process starts', async () => {
    const redactor = createHeldRedactor()
    const { claude, logger, classifier } = setup(redactor, 20)
    const reply = await classifier.handle(JSON.stringify(aRunRequest({ id: 'r-stuck' })))
    expect(reply).toMatchObject({ id: 'r-stuck', ok: false, overall: 'no-verdict', rows: [] })
    expect(reply.error).toBe(
      "the PR's redaction took longer than 0.02 s, so it was stopped and nothing was sent to the model",
    )
    expect(redactor.inputs).toHaveLength(1)
    expect(claude.opens).toEqual([])
    expect(claude.calls).toEqual([])
    expect(logger.entries.map((entry) => entry.msg)).toContain('review classifier run not redacted; nothing was sent')
  })

  it('asks the model with what the redactor gave once it finishes in time', async () => {
    const redactor = createHeldRedactor()
    const { claude, classifier } = setup(redactor)
    const reply = classifier.handle(JSON.stringify(aRunRequest({ classifications: [aClassification()] })))
    await redactor.asked()
    expect(claude.opens).toEqual([])
    redactor.release()
    expect((await reply).ok).toBe(true)
    expect(claude.calls).toHaveLength(1)
  })

  it('keeps the heartbeats going while a redaction holds its worker, and stops it on shutdown', async () => {
    // The real worker adapter, on a worker stuck in its redaction as a runaway pattern would be.
    const redactor = createWorkerRedactor({ workerUrl: STUCK_WORKER })
    redactors.push(redactor)
    const { claude, classifier } = setup(redactor, 600_000)
    const queue = createMemoryQueue({ heartbeatMs: 5 })
    const subscription = await queue.serve((text, tell) => classifier.handle(text, tell))
    const channel = new BroadcastChannel(STUCK_CHANNEL)
    const stuck = new Promise<void>((resolve) => {
      channel.onmessage = () => resolve()
    })
    let spinning = false
    let heartbeatsWhileStuck = 0
    const progress: RunProgress['kind'][] = []
    let heard: () => void = () => {}
    const threeHeartbeats = new Promise<void>((resolve) => {
      heard = resolve
    })
    const reply = queue.request(aRunRequest({ id: 'r-held', title: 'stuck' }), 600_000, {
      onProgress: (event) => {
        progress.push(event.kind)
        // Counted only once the worker is busy in the redaction.
        if (spinning && event.kind === 'heartbeat' && ++heartbeatsWhileStuck === 3) heard()
      },
    })
    await stuck
    spinning = true
    await threeHeartbeats
    channel.close()
    // Still redacting: no reply, no model process.
    expect(claude.opens).toEqual([])
    classifier.abortAll()
    const answer: RunReply = JSON.parse(await reply)
    expect(answer).toMatchObject({ id: 'r-held', ok: false, overall: 'no-verdict' })
    expect(answer.error).toBe('the classifier stopped while it redacted the PR, so nothing was sent to the model')
    expect(progress[0]).toBe('taken')
    expect(progress.filter((kind) => kind !== 'heartbeat')).toEqual(['taken'])
    expect(claude.opens).toEqual([])
    await subscription.drain()
  })
})
