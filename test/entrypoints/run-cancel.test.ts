/**
 * A run the controller stops waiting for is cancelled at the classifier
 * (issue 28, item 3): at `RUN_TIMEOUT_S`, at an abort (the drain, a silent
 * classifier), and for a try-out dropped when the controller stops. Real
 * nats-server; two classifier instances on connections of their own, whose
 * model answers never finish (the in-memory runtime), so only a cancel ends
 * them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../adapters/memory/clock.ts'
import { createMemoryForge } from '../../adapters/memory/forge.ts'
import { createSequenceIds } from '../../adapters/memory/ids.ts'
import { createRecordingLogger, type RecordingLogger } from '../../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../../adapters/memory/metrics.ts'
import { createScriptedModelRuntime, hang, type ScriptedModelRuntime } from '../../adapters/memory/model-runtime.ts'
import { createInlineRedactor } from '../../adapters/memory/redactor.ts'
import { createMemorySecretStore } from '../../adapters/memory/secret-store.ts'
import { connectNats, type NatsClient } from '../../adapters/nats/connection.ts'
import { createNatsRunQueue, createNatsRunResponder, runSubject } from '../../adapters/nats/queue.ts'
import { RUNTIME_KEY_SECRETS } from '../../core/settings/service-account.ts'
import type { RunRequest } from '../../core/wire/types.ts'
import { CANCELLED_REASON, createClassifier } from '../../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../../entrypoints/classifier/session-limiter.ts'
import { TRY_OUT_STOPPED_REASON } from '../../entrypoints/controller/service.ts'
import { sendRunRequest } from '../../entrypoints/controller/usecases/run/run-exchange.ts'
import { createTryOuts } from '../../entrypoints/controller/usecases/try-out/try-outs.ts'
import type { RunQueue } from '../../ports/queue.ts'
import { aClassification, aRunRequest, aSeedPull, aSettings } from '../support/builders.ts'
import { cleanUp } from '../support/cleanup.ts'
import { type NatsServer, startNatsServer } from '../support/nats-server.ts'
import { waitFor } from '../support/waits.ts'

const SUBJECT = runSubject('cancel-test')
/** The bound: the model processes are gone within 5 s of the controller giving up. */
const CANCEL_BOUND_MS = 5_000

type Instance = { runtime: ScriptedModelRuntime; logger: RecordingLogger }

let nats: NatsServer
let clients: NatsClient[]
let instances: Instance[]
let queue: RunQueue

async function aClient(name: string): Promise<NatsClient> {
  const client = await connectNats({
    url: nats.url,
    name,
    firstConnectTimeoutMs: 10_000,
    logger: createRecordingLogger(),
  })
  clients.push(client)
  return client
}

/** A classifier on a connection of its own, every answer of its model hanging until its session is stopped. */
async function aClassifierInstance(name: string): Promise<Instance> {
  const runtime = createScriptedModelRuntime(() => hang())
  const logger = createRecordingLogger()
  const classifier = createClassifier({
    runtimes: { 'api-key': runtime, acp: runtime, subscription: runtime },
    secrets: createMemorySecretStore({ [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: 'sk-ant-cancel-test' } }),
    metrics: createRecordingMetrics(),
    logger,
    clock: createFixedClock(),
    limiter: createSessionLimiter(8),
    classificationTimeoutMs: 600_000,
    contextBudgetBytes: 600_000,
    redactor: createInlineRedactor(),
  })
  const client = await aClient(name)
  await createNatsRunResponder(client, { subject: SUBJECT }, { logger }).serve(
    (text, tell) => classifier.handle(text, tell),
    (id) => classifier.cancel(id),
  )
  return { runtime, logger }
}

/** The instance the run went to: the one whose model was asked. */
async function holder(): Promise<Instance> {
  await waitFor(() => instances.some((instance) => instance.runtime.calls.length > 0), 'a classifier to ask its model')
  const found = instances.find((instance) => instance.runtime.calls.length > 0)
  if (found === undefined) throw new Error('no classifier asked its model')
  return found
}

/** Every session the instance opened was closed and its run ended, within the bound. */
async function expectSessionsEnded(instance: Instance, runs: number): Promise<void> {
  await waitFor(
    () =>
      instance.runtime.openNow() === 0 &&
      instance.runtime.inFlight() === 0 &&
      instance.runtime.endedRuns.length === runs,
    "the run's sessions to end",
    CANCEL_BOUND_MS,
  )
}

function cancelledReplies(instance: Instance): unknown[] {
  return instance.logger.withMessage('review classifier run failed').map((entry) => entry.fields.error)
}

beforeEach(async () => {
  nats = await startNatsServer()
  clients = []
  instances = [await aClassifierInstance('classifier-a'), await aClassifierInstance('classifier-b')]
  queue = createNatsRunQueue(await aClient('controller'), { subject: SUBJECT, logger: createRecordingLogger() })
})

afterEach(async () => {
  await cleanUp(...clients.map((client) => () => client.close(2_000)), nats === undefined ? null : () => nats.cleanup())
})

function aRun(id: string): RunRequest {
  return aRunRequest({ id, classifications: [aClassification({ name: 'a' }), aClassification({ name: 'b' })] })
}

describe('a run the controller stops waiting for', () => {
  it('is cancelled at RUN_TIMEOUT_S: the classifier holding it ends its sessions, the other ignores it', async () => {
    const result = await sendRunRequest(queue, aRun('timed-out'), { runTimeoutMs: 1_000, replyMarginMs: 0 })
    expect(result).toEqual({ ok: false, error: "the classifier didn't answer within 1 s" })
    const held = await holder()
    await expectSessionsEnded(held, 1)
    await waitFor(() => cancelledReplies(held).length === 1, 'the cancelled run to answer')
    expect(cancelledReplies(held)).toEqual([CANCELLED_REASON])
    const other = instances.find((instance) => instance !== held)
    expect(other?.runtime.opens).toEqual([])
    expect(other?.logger.withMessage('review classifier run cancelled')).toEqual([])
  })

  it('is cancelled when its wait is aborted, as the drain and a silent classifier abort it', async () => {
    const stop = new AbortController()
    const sending = sendRunRequest(queue, aRun('aborted'), { runTimeoutMs: 600_000, signal: stop.signal })
    const held = await holder()
    stop.abort(new Error('the controller was stopping'))
    expect(await sending).toEqual({ ok: false, error: 'the controller was stopping' })
    await expectSessionsEnded(held, 1)
    expect(held.logger.withMessage('review classifier run cancelled').map((entry) => entry.fields.id)).toEqual([
      'aborted',
    ])
  })

  it('is cancelled for a try-out in hand when the controller stops, and the try-out ends failed', async () => {
    const forge = createMemoryForge({ repos: [{ owner: 'acme', name: 'widgets', pulls: [aSeedPull()] }] })
    const tryOuts = createTryOuts({
      queue,
      runs: { record: async () => undefined },
      clock: createFixedClock(),
      ids: createSequenceIds('try-'),
      logger: createRecordingLogger(),
      exchange: { runTimeoutMs: 600_000 },
    })
    const id = tryOuts.start({
      forge,
      repo: { owner: 'acme', name: 'widgets' },
      pr: 42,
      headSha: '',
      repeat: 3,
      classifications: [aClassification()],
      settings: aSettings(),
      runtime: 'api-key',
      requester: 'ann',
    })
    const held = await holder()
    tryOuts.stop(new Error(TRY_OUT_STOPPED_REASON))
    await tryOuts.idle()
    await expectSessionsEnded(held, 1)
    expect(tryOuts.get(id)).toMatchObject({ status: 'failed', detail: `run 1 of 3: ${TRY_OUT_STOPPED_REASON}` })
    // The repeat's later runs were never sent.
    expect(instances.flatMap((instance) => instance.runtime.opens)).toHaveLength(1)
  })
})
