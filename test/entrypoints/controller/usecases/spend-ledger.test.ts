import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { createFixedClock, type FixedClock } from '../../../../adapters/memory/clock.ts'
import { createMemoryKv, type MemoryKv } from '../../../../adapters/memory/kv.ts'
import { createRecordingLogger, type RecordingLogger } from '../../../../adapters/memory/logger.ts'
import { createRecordingMetrics, type RecordingMetrics } from '../../../../adapters/memory/metrics.ts'
import { createMemoryQueue } from '../../../../adapters/memory/queue.ts'
import type { NatsClient } from '../../../../adapters/nats/connection.ts'
import { createNatsKvBuckets } from '../../../../adapters/nats/kv.ts'
import { appError, isAppError } from '../../../../core/errors.ts'
import { SPEND_BUCKET } from '../../../../core/spend.ts'
import {
  createSpendLedger,
  SPEND_WRITE_FAILED_MESSAGE,
  type SpendLedger,
  spendCountingQueue,
} from '../../../../entrypoints/controller/usecases/spend-ledger.ts'
import type { KvBuckets } from '../../../../ports/kv.ts'
import { aClient } from '../../../adapters/nats/harness.ts'
import { aRunRequest } from '../../../support/builders.ts'
import { cleanUp } from '../../../support/cleanup.ts'
import { type NatsServer, startNatsServer } from '../../../support/nats-server.ts'
import { createTestSettingsStore, type TestSettingsStore } from '../review-world.ts'

const REPO = { owner: 'acme', name: 'widgets' }
const LATE = Date.parse('2026-12-01T23:59:59.000Z')

type Ledger = {
  ledger: SpendLedger
  buckets: MemoryKv
  clock: FixedClock
  settings: TestSettingsStore
  logger: RecordingLogger
  metrics: RecordingMetrics
}

function aLedger(buckets: MemoryKv = createMemoryKv()): Ledger {
  const clock = createFixedClock(LATE)
  const settings = createTestSettingsStore({ budget: { daily_usd: 1 } })
  const logger = createRecordingLogger()
  const metrics = createRecordingMetrics()
  return {
    ledger: createSpendLedger({ buckets, settings, clock, logger, metrics }),
    buckets,
    clock,
    settings,
    logger,
    metrics,
  }
}

describe('createSpendLedger', () => {
  it("adds each run's cost to the UTC day and the repo, and answers the spend view", async () => {
    const { ledger, metrics } = aLedger()
    await ledger.add('acme/widgets', 0.25)
    await ledger.add('acme/gears', 0.5)
    await ledger.add('acme/widgets', 0)
    expect(await ledger.view()).toEqual({
      day: '2026-12-01',
      spent_usd: 0.75,
      budget_usd: 1,
      by_repo: { 'acme/widgets': 0.25, 'acme/gears': 0.5 },
      days: [{ day: '2026-12-01', spent_usd: 0.75 }],
    })
    expect(metrics.daySpend.get('2026-12-01')).toBe(0.75)
  })

  it('refuses a run once the spend reaches the budget, and lets it start again when the day rolls over at 00:00 UTC', async () => {
    const { ledger, clock } = aLedger()
    await ledger.add('acme/widgets', 0.6)
    expect(await ledger.whyNoRun(REPO)).toBeNull()
    await ledger.add('acme/widgets', 0.4)
    expect(await ledger.whyNoRun(REPO)).toContain("today's budget of $1.00 (UTC) is spent ($1.00 so far)")
    clock.advance(999)
    expect(await ledger.whyNoRun(REPO)).toContain("today's budget of $1.00 (UTC) is spent")
    clock.advance(1)
    expect(await ledger.whyNoRun(REPO)).toBeNull()
    await ledger.add('acme/widgets', 0.1)
    expect(await ledger.view()).toMatchObject({
      day: '2026-12-02',
      spent_usd: 0.1,
      days: [
        { day: '2026-12-02', spent_usd: 0.1 },
        { day: '2026-12-01', spent_usd: 1 },
      ],
    })
  })

  it('reads no ledger without a budget, and fails as the store does when one is set and the queue is down', async () => {
    const { ledger, buckets, settings } = aLedger()
    settings.set({ budget: null })
    buckets.simulateFailure(appError('unavailable', 'not connected'))
    expect(await ledger.whyNoRun(REPO)).toBeNull()
    settings.set({ budget: { daily_usd: 1 } })
    expect(isAppError(await ledger.whyNoRun(REPO).catch((error: unknown) => error), 'unavailable')).toBe(true)
  })

  it('logs a write it could not make and never rejects', async () => {
    const { ledger, buckets, logger } = aLedger()
    buckets.simulateFailure(appError('timeout', 'no answer'))
    await ledger.add('acme/widgets', 0.5)
    expect(logger.withMessage(SPEND_WRITE_FAILED_MESSAGE)).toHaveLength(1)
  })

  it('deletes the days past the last 31 when a new day starts', async () => {
    const { ledger, buckets, clock } = aLedger()
    const kv = await buckets.open(SPEND_BUCKET)
    const old = { spent_usd: 2, by_repo: { 'acme/widgets': 2 } }
    await kv.create('2026-10-31', JSON.stringify({ day: '2026-10-31', ...old }))
    await kv.create('2026-11-01', JSON.stringify({ day: '2026-11-01', ...old }))
    await ledger.add('acme/widgets', 0.5)
    expect((await kv.keys()).sort()).toEqual(['2026-11-01', '2026-12-01'])
    clock.advance(1000)
    await ledger.add('acme/widgets', 0.5)
    expect((await kv.keys()).sort()).toEqual(['2026-12-01', '2026-12-02'])
  })
})

describe('spendCountingQueue', () => {
  it("adds a reply's cost_usd before handing the reply on, and logs a reply without one", async () => {
    const { ledger, logger } = aLedger()
    const inner = createMemoryQueue()
    let cost: number | undefined = 0.3
    await inner.serve(async (text) => {
      const { id } = JSON.parse(text)
      return { id, ok: true, rows: [], overall: 'approve', ...(cost === undefined ? {} : { cost_usd: cost }) }
    })
    const queue = spendCountingQueue(inner, ledger, logger)
    await queue.request(aRunRequest({ id: 'r1', repo: 'acme/widgets' }), 1000)
    expect((await ledger.view()).spent_usd).toBe(0.3)
    cost = undefined
    await queue.request(aRunRequest({ id: 'r2', repo: 'acme/widgets' }), 1000)
    expect((await ledger.view()).spent_usd).toBe(0.3)
    expect(logger.withMessage('review classifier reply carries no cost; counted as 0')).toHaveLength(1)
  })
})

describe('two controllers on one NATS', () => {
  let server: NatsServer
  const clients: NatsClient[] = []
  beforeEach(async () => {
    server = await startNatsServer()
  })
  afterEach(async () => {
    await cleanUp(
      () => Promise.all(clients.splice(0).map((c) => c.close(1000))),
      () => server.cleanup(),
    )
  })

  async function natsBuckets(name: string): Promise<KvBuckets> {
    const client = await aClient(server, name)
    clients.push(client)
    return createNatsKvBuckets(client)
  }

  it('lose no spend when both add at once, and a restarted one reads it back', async () => {
    const clock = createFixedClock(LATE)
    const settings = createTestSettingsStore({ budget: { daily_usd: 100 } })
    const ledgers = await Promise.all(
      ['controller-a', 'controller-b'].map(async (name) =>
        createSpendLedger({ buckets: await natsBuckets(name), settings, clock, logger: createRecordingLogger() }),
      ),
    )
    const addsEach = 20
    // Quarters add exactly in binary floating point, so the total can be compared exactly.
    await Promise.all(
      ledgers.map(async (ledger, i) => {
        for (let n = 0; n < addsEach; n += 1) await ledger.add(i === 0 ? 'acme/widgets' : 'acme/gears', 0.25)
      }),
    )
    const restarted = createSpendLedger({
      buckets: await natsBuckets('controller-c'),
      settings,
      clock,
      logger: createRecordingLogger(),
    })
    expect(await restarted.view()).toMatchObject({
      spent_usd: 10,
      by_repo: { 'acme/widgets': 5, 'acme/gears': 5 },
    })
  })
})
