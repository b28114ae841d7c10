/**
 * A review requested while the controller can't reach NATS waits for it
 * (issue 28, item 4): Forgejo sends the webhook once, so a review that
 * comes before the controller's first connect, or during a server restart,
 * sets its pending status (the forge answers), waits for the connection,
 * and then runs and posts its verdict. Real nats-server, the controller's
 * lazily connected queue, a classifier with the in-memory model on a
 * connection of its own, the memory forge.
 */
import { afterEach, describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../adapters/memory/clock.ts'
import { createMemoryForge, type MemoryForge } from '../../adapters/memory/forge.ts'
import { createSequenceIds } from '../../adapters/memory/ids.ts'
import { createRecordingLogger } from '../../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../../adapters/memory/metrics.ts'
import { answered, createScriptedModelRuntime } from '../../adapters/memory/model-runtime.ts'
import { createInlineRedactor } from '../../adapters/memory/redactor.ts'
import { createMemorySecretStore } from '../../adapters/memory/secret-store.ts'
import { connectNats, type NatsClient } from '../../adapters/nats/connection.ts'
import { connectLazily, type LazyQueue } from '../../adapters/nats/lazy-queue.ts'
import { createNatsRunResponder, runSubject } from '../../adapters/nats/queue.ts'
import type { ReviewRequest } from '../../core/review/webhook.ts'
import { RUNTIME_KEY_SECRETS, SERVICE_TOKEN } from '../../core/settings/service-account.ts'
import { createClassifier } from '../../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../../entrypoints/classifier/session-limiter.ts'
import {
  createReviewPipeline,
  type ReviewPipeline,
} from '../../entrypoints/controller/usecases/review/review-pipeline.ts'
import { createKvRunStore } from '../../entrypoints/controller/usecases/run/run-store.ts'
import { createKvSettingsStore } from '../../entrypoints/controller/usecases/settings/settings-store.ts'
import { createSpendLedger } from '../../entrypoints/controller/usecases/settings/spend-ledger.ts'
import { aSeedRepo } from '../support/builders.ts'
import { cleanUp } from '../support/cleanup.ts'
import { type NatsServer, startNatsServer } from '../support/nats-server.ts'
import { waitFor } from '../support/waits.ts'

const SUBJECT = runSubject('queue-wait')
const REPO = { owner: 'acme', name: 'widgets' }
const TOKEN = 'rc-svc-token-queue-wait-7e1f'
const MATCH = '{"verdict":"match","certainty":95,"reason":"It holds."}'

let nats: NatsServer | undefined
let lazy: LazyQueue | undefined
let classifierClient: NatsClient | undefined

afterEach(async () => {
  await cleanUp(
    lazy === undefined ? null : () => lazy?.close(),
    classifierClient === undefined ? null : () => classifierClient?.close(2_000),
    nats === undefined ? null : () => nats?.cleanup(),
  )
  nats = undefined
  lazy = undefined
  classifierClient = undefined
})

function aForge(): MemoryForge {
  return createMemoryForge({
    users: [{ login: 'review-classifier' }, { login: 'alice' }],
    tokens: [{ login: 'review-classifier', name: 'swarm-review-classifier', token: TOKEN }],
    repos: [aSeedRepo()],
  })
}

/** The controller's review pipeline on the lazily connected queue, waiting for it as the controller does. */
function aPipeline(forge: MemoryForge, queue: LazyQueue): ReviewPipeline {
  const logger = createRecordingLogger()
  const clock = createFixedClock()
  const settings = createKvSettingsStore({ buckets: queue.buckets, logger })
  return createReviewPipeline({
    forge,
    queue: queue.runQueue,
    secrets: createMemorySecretStore({ [SERVICE_TOKEN.secret.path]: { [SERVICE_TOKEN.secret.field]: TOKEN } }),
    settings,
    runs: createKvRunStore({ buckets: queue.buckets, logger }),
    clock,
    ids: createSequenceIds(),
    logger,
    exchange: { runTimeoutMs: 60_000 },
    spend: createSpendLedger({ buckets: queue.buckets, settings, clock, logger, reservationTtlMs: 120_000 }),
    queueWatch: queue.link,
  })
}

/** A classifier answering every rule `match`, on a connection of its own that reconnects quickly. */
async function aClassifier(server: NatsServer): Promise<void> {
  const runtime = createScriptedModelRuntime(() => answered(MATCH))
  const logger = createRecordingLogger()
  const classifier = createClassifier({
    runtimes: { 'api-key': runtime, acp: runtime, subscription: runtime },
    secrets: createMemorySecretStore({ [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: 'sk-ant-queue-wait' } }),
    metrics: createRecordingMetrics(),
    logger,
    clock: createFixedClock(),
    limiter: createSessionLimiter(8),
    classificationTimeoutMs: 60_000,
    contextBudgetBytes: 600_000,
    redactor: createInlineRedactor(),
  })
  classifierClient = await connectNats({
    url: server.url,
    name: 'classifier',
    firstConnectTimeoutMs: 10_000,
    reconnectTimeWaitMs: 100,
    logger,
  })
  await createNatsRunResponder(classifierClient, { subject: SUBJECT }, { logger }).serve(
    (text, tell) => classifier.handle(text, tell),
    (id) => classifier.cancel(id),
  )
}

async function aRequest(forge: MemoryForge): Promise<ReviewRequest> {
  const pull = await forge.getPullRequest(REPO, 42)
  return { repo: REPO, pr: 42, headSha: pull.headSha, requester: 'alice' }
}

function statesOn(forge: MemoryForge, sha: string): string[] {
  return forge.statuses(REPO, sha).map((status) => status.state)
}

describe('a review the controller gets while it cannot reach NATS', () => {
  it('comes before the first connect: sets pending, waits for the server, then posts its verdict', async () => {
    nats = await startNatsServer()
    // Down before the controller ever reaches it; started again, on its port, once the review waits.
    await nats.stop()
    const forge = aForge()
    lazy = connectLazily({ url: nats.url, subject: SUBJECT, logger: createRecordingLogger(), retryMs: 50 })
    const pipeline = aPipeline(forge, lazy)
    const request = await aRequest(forge)
    expect(pipeline.submit(request)).toBe('started')
    await waitFor(() => statesOn(forge, request.headSha).includes('pending'), 'the pending status')
    expect(forge.reviews(REPO, 42)).toEqual([])
    await nats.restart()
    await aClassifier(nats)
    await pipeline.idle()
    expect(forge.reviews(REPO, 42).map((review) => review.event)).toEqual(['APPROVED'])
    expect(statesOn(forge, request.headSha)).toEqual(['pending', 'success'])
  })

  it('is under way when the server restarts: waits for it with the run unsent, then posts its verdict', async () => {
    nats = await startNatsServer()
    const forge = aForge()
    // The PR's diff is read while the server is down: the run is sent after it, with no connection.
    let readDiff: () => void = () => undefined
    const diffHeld = new Promise<void>((resolve) => {
      readDiff = resolve
    })
    let diffAsked = false
    const heldForge: MemoryForge = {
      ...forge,
      async getPullDiff(...args) {
        diffAsked = true
        await diffHeld
        return forge.getPullDiff(...args)
      },
    }
    lazy = connectLazily({ url: nats.url, subject: SUBJECT, logger: createRecordingLogger(), retryMs: 50 })
    await lazy.ready
    await aClassifier(nats)
    const pipeline = aPipeline(heldForge, lazy)
    const request = await aRequest(forge)
    expect(pipeline.submit(request)).toBe('started')
    await waitFor(() => diffAsked, 'the diff to be read')
    await nats.stop()
    // Once the controller knows it is cut off: a run published before it noticed would be lost on the wire.
    await waitFor(() => lazy?.link.connected() === false, 'the controller to see the disconnect')
    readDiff()
    await waitFor(() => statesOn(forge, request.headSha).includes('pending'), 'the pending status')
    await nats.restart()
    await pipeline.idle()
    expect(forge.reviews(REPO, 42).map((review) => review.event)).toEqual(['APPROVED'])
    expect(statesOn(forge, request.headSha)).toEqual(['pending', 'success'])
  })
})
