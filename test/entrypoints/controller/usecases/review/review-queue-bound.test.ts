/**
 * A review waiting for the swarm queue (issue 28, item 4) holds its place
 * and its bounds: it waits at most `RUN_TIMEOUT_S`, then posts its
 * no-verdict; while it waits, the admission still runs at most its places
 * and turns away what doesn't fit; a drain stops it as any running review.
 * The queue's outage is the memory KV's, its connection a watch the test
 * connects by hand. The run's reservation waits as the other steps do, and
 * one the budget refuses still ends with the budget's no-verdict and status.
 */
import { describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../../../../adapters/memory/clock.ts'
import { createMemoryForge, type MemoryForge } from '../../../../../adapters/memory/forge.ts'
import { createSequenceIds } from '../../../../../adapters/memory/ids.ts'
import { createMemoryKv, type MemoryKv } from '../../../../../adapters/memory/kv.ts'
import { createRecordingLogger } from '../../../../../adapters/memory/logger.ts'
import { createMemoryQueue } from '../../../../../adapters/memory/queue.ts'
import { createMemorySecretStore } from '../../../../../adapters/memory/secret-store.ts'
import { appError } from '../../../../../core/base/errors.ts'
import { NO_RUN } from '../../../../../core/review/no-run.ts'
import type { ReviewRequest } from '../../../../../core/review/webhook.ts'
import { SERVICE_TOKEN } from '../../../../../core/settings/service-account.ts'
import { MAX_CONCURRENT_REVIEWS, WAITING_PLACES } from '../../../../../core/wire/limits.ts'
import {
  createReviewPipeline,
  type ReviewPipeline,
} from '../../../../../entrypoints/controller/usecases/review/review-pipeline.ts'
import { createKvRunStore } from '../../../../../entrypoints/controller/usecases/run/run-store.ts'
import { createKvSettingsStore } from '../../../../../entrypoints/controller/usecases/settings/settings-store.ts'
import {
  createSpendLedger,
  type SpendLedger,
} from '../../../../../entrypoints/controller/usecases/settings/spend-ledger.ts'
import type { QueueWatch } from '../../../../../ports/queue.ts'
import { aRunRequest, aSeedPull, aSeedRepo } from '../../../../support/builders.ts'
import { waitFor } from '../../../../support/waits.ts'
import { approveAll } from '../../review-world.ts'

const REPO = { owner: 'acme', name: 'widgets' }
const TOKEN = 'rc-svc-token-queue-bound-2c4d'
const PULLS = MAX_CONCURRENT_REVIEWS + WAITING_PLACES + 1

/** A connection the test brings up by hand; waiting on it ends at the connect or the waiter's abort. */
function aWatch(): QueueWatch & { connect(): void } {
  let connected = false
  const waiters = new Set<() => void>()
  return {
    connected: () => connected,
    untilConnected(signal) {
      if (connected) return Promise.resolve(true)
      return new Promise((resolve) => {
        const done = (): void => {
          waiters.delete(done)
          resolve(connected)
        }
        waiters.add(done)
        signal?.addEventListener('abort', done, { once: true })
      })
    },
    connect() {
      connected = true
      for (const waiter of [...waiters]) waiter()
    },
  }
}

/**
 * `reserveOutage`: the queue is up for the settings and the budget's look,
 * and only the run's reservation finds it out of reach until the watch connects.
 */
async function aWorld(runTimeoutMs: number, options: { reserveOutage?: true; dailyUsd?: number } = {}) {
  const forge: MemoryForge = createMemoryForge({
    users: [{ login: 'review-classifier' }, { login: 'alice' }],
    tokens: [{ login: 'review-classifier', name: 'swarm-review-classifier', token: TOKEN }],
    repos: [aSeedRepo({ pulls: Array.from({ length: PULLS }, (_, at) => aSeedPull({ number: at + 1 })) })],
  })
  const kv: MemoryKv = createMemoryKv()
  const watch = aWatch()
  const queue = createMemoryQueue()
  const logger = createRecordingLogger()
  const clock = createFixedClock()
  const settings = createKvSettingsStore({ buckets: kv, logger })
  if (options.dailyUsd !== undefined) await settings.update({ budget: { daily_usd: options.dailyUsd } })
  const ledger = createSpendLedger({ buckets: kv, settings, clock, logger, reservationTtlMs: runTimeoutMs + 60_000 })
  const reserves = { tried: 0 }
  const spend: Pick<SpendLedger, 'whyNoRun' | 'reserve'> = {
    whyNoRun: (repo) => ledger.whyNoRun(repo),
    reserve(request) {
      reserves.tried += 1
      if (options.reserveOutage && !watch.connected()) {
        return Promise.reject(appError('unavailable', 'not connected to the swarm queue yet'))
      }
      return ledger.reserve(request)
    },
  }
  if (options.reserveOutage === undefined)
    kv.simulateFailure(appError('unavailable', 'not connected to the swarm queue yet'))
  const pipeline: ReviewPipeline = createReviewPipeline({
    forge,
    queue,
    secrets: createMemorySecretStore({ [SERVICE_TOKEN.secret.path]: { [SERVICE_TOKEN.secret.field]: TOKEN } }),
    settings,
    runs: createKvRunStore({ buckets: kv, logger }),
    clock,
    ids: createSequenceIds(),
    logger,
    exchange: { runTimeoutMs, replyMarginMs: 0 },
    spend,
    queueWatch: watch,
  })
  const heads = new Map<number, string>()
  for (const pull of await forge.listRecentPulls(REPO, PULLS)) heads.set(pull.number, pull.headSha)
  const headSha = (pr: number): string => heads.get(pr) ?? ''
  const request = (pr: number): ReviewRequest => ({ repo: REPO, pr, headSha: headSha(pr), requester: 'alice' })
  const states = (pr: number) => forge.statuses(REPO, headSha(pr)).map((status) => status.state)
  return { forge, kv, watch, queue, pipeline, request, states, ledger, reserves }
}

describe('a review waiting for the swarm queue', () => {
  it('waits at most RUN_TIMEOUT_S, its pending status set meanwhile, then posts its no-verdict saying so', async () => {
    const world = await aWorld(1_000)
    expect(world.pipeline.submit(world.request(1))).toBe('started')
    await world.pipeline.idle()
    const [review] = world.forge.reviews(REPO, 1)
    expect(review?.event).toBe('COMMENT')
    expect(review?.body).toContain("the settings couldn't be read: the swarm queue couldn't be reached within")
    expect(review?.body).toContain('not connected to the swarm queue yet')
    expect(world.states(1)).toEqual(['pending', 'error'])
  })

  it('keeps its place while it waits, so the admission still turns away what does not fit, then runs once connected', async () => {
    const world = await aWorld(60_000)
    await world.queue.serve(async (text) => approveAll(JSON.parse(text)))
    const answers = Array.from({ length: PULLS }, (_, at) => world.pipeline.submit(world.request(at + 1)))
    expect(answers.filter((answer) => answer === 'queue-full')).toHaveLength(1)
    await waitFor(
      () =>
        Array.from({ length: MAX_CONCURRENT_REVIEWS }, (_, at) => world.states(at + 1)).every((s) => s.length === 1),
      'the running reviews to set pending',
    )
    expect(world.pipeline.counts()).toMatchObject({ running: MAX_CONCURRENT_REVIEWS, waiting: WAITING_PLACES })
    world.kv.simulateFailure(null)
    world.watch.connect()
    await world.pipeline.idle()
    const events = Array.from({ length: PULLS }, (_, at) => world.forge.reviews(REPO, at + 1)[0]?.event)
    expect(events.filter((event) => event === 'APPROVED')).toHaveLength(PULLS - 1)
    expect(events.filter((event) => event === 'COMMENT')).toHaveLength(1)
  })

  it('is stopped by the drain as a running review is, with the stopping comment', async () => {
    const world = await aWorld(60_000)
    expect(world.pipeline.submit(world.request(1))).toBe('started')
    await waitFor(() => world.states(1).includes('pending'), 'the pending status')
    const report = await world.pipeline.drain({ boundMs: 10, postMarginMs: 5_000 })
    expect(report).toMatchObject({ stopped: 1, complete: true })
    expect(world.forge.reviews(REPO, 1)[0]?.body).toContain('the controller was stopping')
  })

  it('waits for the queue at its run’s reservation too, then runs, and its reply settles it', async () => {
    const world = await aWorld(60_000, { reserveOutage: true, dailyUsd: 100 })
    await world.queue.serve(async (text) => ({ ...approveAll(JSON.parse(text)), cost_usd: 0.01 }))
    expect(world.pipeline.submit(world.request(1))).toBe('started')
    await waitFor(() => world.reserves.tried > 0, 'the run’s reservation to be tried')
    expect(world.states(1)).toEqual(['pending'])
    world.watch.connect()
    await world.pipeline.idle()
    expect(world.forge.reviews(REPO, 1)[0]?.event).toBe('APPROVED')
    expect(world.states(1)).toEqual(['pending', 'success'])
    expect(await world.ledger.view()).toMatchObject({ spent_usd: 0.01, reserved_usd: 0 })
  })

  it('posts its no-verdict and the error status once the reservation finds no queue within RUN_TIMEOUT_S', async () => {
    const world = await aWorld(300, { reserveOutage: true, dailyUsd: 100 })
    await world.queue.serve(async (text) => approveAll(JSON.parse(text)))
    expect(world.pipeline.submit(world.request(1))).toBe('started')
    await world.pipeline.idle()
    const body = world.forge.reviews(REPO, 1)[0]?.body ?? ''
    expect(body).toContain("today's spend against the budget couldn't be read: the swarm queue couldn't be reached")
    expect(world.states(1)).toEqual(['pending', 'error'])
  })

  it('gives a reservation the budget refuses, once the queue is back, the budget’s no-verdict and status', async () => {
    const world = await aWorld(60_000, { reserveOutage: true, dailyUsd: 0.000_1 })
    const runs = { served: 0 }
    await world.queue.serve(async (text) => {
      runs.served += 1
      return approveAll(JSON.parse(text))
    })
    // The look before the PR is read passes; while the reservation waits for the queue, another run takes the day.
    expect(world.pipeline.submit(world.request(1))).toBe('started')
    await waitFor(() => world.reserves.tried > 0, 'the run’s reservation to be tried')
    expect((await world.ledger.reserve(aRunRequest({ id: 'other' }))).kind).toBe('granted')
    world.watch.connect()
    await world.pipeline.idle()
    expect(world.forge.reviews(REPO, 1)[0]?.body).toContain('reserved by runs under way&#41;, so no run starts')
    const last = world.forge.statuses(REPO, world.request(1).headSha).at(-1)
    expect(last).toMatchObject(NO_RUN['budget-spent'].status)
    expect(runs.served).toBe(0)
  })
})
