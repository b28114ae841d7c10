import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { createFixedClock, type FixedClock } from '../../../../../adapters/memory/clock.ts'
import { createMemoryKv, type MemoryKv } from '../../../../../adapters/memory/kv.ts'
import { createRecordingLogger, type RecordingLogger } from '../../../../../adapters/memory/logger.ts'
import { createRecordingMetrics, type RecordingMetrics } from '../../../../../adapters/memory/metrics.ts'
import type { NatsClient } from '../../../../../adapters/nats/connection.ts'
import { createNatsKvBuckets } from '../../../../../adapters/nats/kv.ts'
import { appError, isAppError } from '../../../../../core/base/errors.ts'
import { SPEND_BUCKET } from '../../../../../core/settings/spend.ts'
import type { RunRequest } from '../../../../../core/wire/types.ts'
import {
  createSessionCostRecorder,
  SESSION_COST_NOT_RECORDED,
} from '../../../../../entrypoints/common/settings/spend-writes.ts'
import {
  createSpendLedger,
  type RunBudget,
  SPEND_WRITE_FAILED_MESSAGE,
  type SpendLedger,
} from '../../../../../entrypoints/controller/usecases/settings/spend-ledger.ts'
import type { KvBuckets } from '../../../../../ports/kv.ts'
import { aClient } from '../../../../adapters/nats/harness.ts'
import { aRunRequest } from '../../../../support/builders.ts'
import { cleanUp } from '../../../../support/cleanup.ts'
import { type NatsServer, startNatsServer } from '../../../../support/nats-server.ts'
import { createTestSettingsStore, type TestSettingsStore } from '../../review-world.ts'

const REPO = { owner: 'acme', name: 'widgets' }
const LATE = Date.parse('2026-12-01T23:59:00.000Z')
const TTL_MS = 120_000

/**
 * A run whose estimate is exactly `usd`: on the ACP runtime with input free and
 * each answer's 1024 output tokens priced so they cost `usd`.
 */
function aRunCosting(id: string, usd: number, repo = 'acme/widgets'): RunRequest {
  const output = (usd * 1_000_000) / 1024
  const acp = { base_url: 'https://provider.example/v1', model: 'm', prices: { input: 0, output } }
  return aRunRequest({ id, repo, runtime: 'acp', acp })
}

function aReply(id: string, cost: { cost_usd?: number; cost_recorded_usd?: number }): string {
  return JSON.stringify({ id, ok: true, rows: [], overall: 'approve', ...cost })
}

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
    ledger: createSpendLedger({ buckets, settings, clock, logger, metrics, reservationTtlMs: TTL_MS }),
    buckets,
    clock,
    settings,
    logger,
    metrics,
  }
}

function granted(budget: RunBudget): Extract<RunBudget, { kind: 'granted' }> {
  if (budget.kind !== 'granted') throw new Error(`refused: ${budget.reason}`)
  return budget
}

function aRecorder(world: Ledger) {
  return createSessionCostRecorder({ buckets: world.buckets, clock: world.clock, logger: world.logger })
}

describe('createSpendLedger', () => {
  it('reserves each run’s estimate, refuses once spend and reservations reach the budget, and frees them as replies settle', async () => {
    const world = aLedger()
    const { ledger, metrics } = world
    const first = granted(await ledger.reserve(aRunCosting('r1', 0.5)))
    granted(await ledger.reserve(aRunCosting('r2', 0.5)))
    expect(await ledger.view()).toMatchObject({ spent_usd: 0, reserved_usd: 1 })
    const refused = await ledger.reserve(aRunCosting('r3', 0.25))
    expect(refused.kind === 'refused' ? refused.reason : 'granted').toContain(
      "today's budget of $1.00 (UTC) is spent ($0.00 so far, and $1.00 reserved by runs under way)",
    )
    expect(await ledger.whyNoRun(REPO)).toContain("today's budget of $1.00 (UTC) is spent")

    // The classifier recorded what r1 cost, a quarter, against its reservation; the reply adds nothing more.
    expect(await aRecorder(world)({ id: 'r1', repo: 'acme/widgets', usd: 0.25, estimated: false })).toBe(true)
    expect(await ledger.view()).toMatchObject({ spent_usd: 0.25, reserved_usd: 0.75 })
    await first.settle(aReply('r1', { cost_usd: 0.25, cost_recorded_usd: 0.25 }))
    expect(await ledger.view()).toEqual({
      day: '2026-12-01',
      spent_usd: 0.25,
      estimated_usd: 0,
      reserved_usd: 0.5,
      budget_usd: 1,
      by_repo: { 'acme/widgets': 0.25 },
      days: [{ day: '2026-12-01', spent_usd: 0.25 }],
    })
    expect(metrics.daySpend.get('2026-12-01')).toBe(0.25)
    expect(await ledger.whyNoRun(REPO)).toBeNull()
    granted(await ledger.reserve(aRunCosting('r3', 0.25)))
  })

  it('adds what a classifier older than the ledger writes reports in its reply, and logs a reply without a cost', async () => {
    const { ledger, logger } = aLedger()
    await granted(await ledger.reserve(aRunCosting('r1', 0.5))).settle(aReply('r1', { cost_usd: 0.75 }))
    expect(await ledger.view()).toMatchObject({ spent_usd: 0.75, reserved_usd: 0, by_repo: { 'acme/widgets': 0.75 } })
    await granted(await ledger.reserve(aRunCosting('r2', 0.1))).settle(aReply('r2', {}))
    expect(await ledger.view()).toMatchObject({ spent_usd: 0.75, reserved_usd: 0 })
    expect(logger.withMessage('review classifier reply carries no cost; counted as 0')).toHaveLength(1)
    // A reply for another run counts nothing, and still frees the reservation.
    await granted(await ledger.reserve(aRunCosting('r3', 0.1))).settle(aReply('other', { cost_usd: 9 }))
    expect(await ledger.view()).toMatchObject({ spent_usd: 0.75, reserved_usd: 0 })
  })

  it('holds a reservation nobody settles until it expires, so a controller that died leaks nothing for long', async () => {
    const { ledger, clock } = aLedger()
    clock.set(Date.parse('2026-12-01T12:00:00.000Z'))
    granted(await ledger.reserve(aRunCosting('dead', 1)))
    expect((await ledger.reserve(aRunCosting('next', 0.1))).kind).toBe('refused')
    clock.advance(TTL_MS - 1_000)
    expect((await ledger.reserve(aRunCosting('next', 0.1))).kind).toBe('refused')
    clock.advance(1_000)
    granted(await ledger.reserve(aRunCosting('next', 0.1)))
    expect(await ledger.view()).toMatchObject({ reserved_usd: 0.1 })
  })

  it('refuses a run that costs nothing once the day is spent, and reserves nothing for one', async () => {
    const { ledger } = aLedger()
    const free = aRunRequest({ id: 'sub', runtime: 'subscription' })
    granted(await ledger.reserve(free))
    expect(await ledger.view()).toMatchObject({ reserved_usd: 0 })
    granted(await ledger.reserve(aRunCosting('r1', 1)))
    expect((await ledger.reserve(free)).kind).toBe('refused')
  })

  it('lets a run start again when the day rolls over at 00:00 UTC', async () => {
    const { ledger, clock } = aLedger()
    await granted(await ledger.reserve(aRunCosting('r1', 0.5))).settle(aReply('r1', { cost_usd: 1 }))
    expect(await ledger.whyNoRun(REPO)).toContain("today's budget of $1.00 (UTC) is spent ($1.00 so far)")
    clock.advance(59_999)
    expect(await ledger.whyNoRun(REPO)).not.toBeNull()
    clock.advance(1)
    expect(await ledger.whyNoRun(REPO)).toBeNull()
    await granted(await ledger.reserve(aRunCosting('r2', 0.1))).settle(aReply('r2', { cost_usd: 0.1 }))
    expect(await ledger.view()).toMatchObject({
      day: '2026-12-02',
      spent_usd: 0.1,
      days: [
        { day: '2026-12-02', spent_usd: 0.1 },
        { day: '2026-12-01', spent_usd: 1 },
      ],
    })
  })

  it('reserves nothing and reads no ledger without a budget, and rejects as the store does when one is set and the queue is down', async () => {
    const { ledger, buckets, settings } = aLedger()
    settings.set({ budget: null })
    buckets.simulateFailure(appError('unavailable', 'not connected'))
    expect(await ledger.whyNoRun(REPO)).toBeNull()
    expect((await ledger.reserve(aRunCosting('r1', 5))).kind).toBe('granted')
    settings.set({ budget: { daily_usd: 1 } })
    expect(isAppError(await ledger.whyNoRun(REPO).catch((error: unknown) => error), 'unavailable')).toBe(true)
    expect(
      isAppError(await ledger.reserve(aRunCosting('r2', 0.1)).catch((error: unknown) => error), 'unavailable'),
    ).toBe(true)
  })

  it('logs a settle or a session cost it could not write, and never rejects', async () => {
    const world = aLedger()
    const { ledger, buckets, logger } = world
    const budget = granted(await ledger.reserve(aRunCosting('r1', 0.5)))
    buckets.simulateFailure(appError('timeout', 'no answer'))
    await budget.settle(aReply('r1', { cost_usd: 0.5 }))
    expect(logger.withMessage(SPEND_WRITE_FAILED_MESSAGE)).toHaveLength(1)
    expect(await aRecorder(world)({ id: 'r1', repo: 'acme/widgets', usd: 0.5, estimated: true })).toBe(false)
    expect(logger.withMessage(SESSION_COST_NOT_RECORDED)).toHaveLength(1)
  })

  it('deletes the days past the last 31 when a new day starts', async () => {
    const { ledger, buckets, clock } = aLedger()
    const kv = await buckets.open(SPEND_BUCKET)
    const old = { spent_usd: 2, by_repo: { 'acme/widgets': 2 } }
    await kv.create('2026-10-31', JSON.stringify({ day: '2026-10-31', ...old }))
    await kv.create('2026-11-01', JSON.stringify({ day: '2026-11-01', ...old }))
    granted(await ledger.reserve(aRunCosting('r1', 0.1)))
    expect((await kv.keys()).sort()).toEqual(['2026-11-01', '2026-12-01'])
    clock.advance(60_000)
    granted(await ledger.reserve(aRunCosting('r2', 0.1)))
    expect((await kv.keys()).sort()).toEqual(['2026-12-01', '2026-12-02'])
  })
})

describe('two controllers and a classifier on one NATS', () => {
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
    // A KV call waits as long as the test may: on a loaded machine twenty writers racing one key
    // take longer than the production 5 s a call, and what is asserted is the count, not the pace.
    return createNatsKvBuckets(client, { timeoutMs: 60_000 })
  }

  it('grant exactly the reservations that fit, lose no session cost, and a restarted one reads it all back', async () => {
    const clock = createFixedClock(LATE)
    const settings = createTestSettingsStore({ budget: { daily_usd: 1 } })
    const logger = createRecordingLogger()
    const ledgers = await Promise.all(
      ['controller-a', 'controller-b'].map(async (name) =>
        createSpendLedger({ buckets: await natsBuckets(name), settings, clock, logger, reservationTtlMs: TTL_MS }),
      ),
    )
    const recorder = createSessionCostRecorder({ buckets: await natsBuckets('classifier'), clock, logger })
    // Ten asks of a quarter each from both at once: spend plus reservations under $1 lets exactly four in.
    const asks = ledgers.flatMap((ledger, c) =>
      Array.from({ length: 10 }, (_, n) => ledger.reserve(aRunCosting(`c${c}-${n}`, 0.25))),
    )
    // Meanwhile a classifier records sessions of runs nobody reserved for (quarters add exactly).
    const sessions = Array.from({ length: 8 }, (_, n) =>
      recorder({ id: `late-${n}`, repo: 'acme/gears', usd: 0.25, estimated: n % 2 === 0 }),
    )
    const [budgets, written] = await Promise.all([Promise.all(asks), Promise.all(sessions)])
    expect(written.every(Boolean)).toBe(true)
    const grants = budgets.filter((budget) => budget.kind === 'granted')
    // The sessions' $2 may have landed before some asks: then fewer fit, never more.
    expect(grants.length).toBeLessThanOrEqual(4)
    const restarted = createSpendLedger({
      buckets: await natsBuckets('controller-c'),
      settings,
      clock,
      logger,
      reservationTtlMs: TTL_MS,
    })
    expect(await restarted.view()).toMatchObject({
      spent_usd: 2,
      estimated_usd: 1,
      reserved_usd: grants.length * 0.25,
      by_repo: { 'acme/gears': 2 },
    })
  })

  it('grant exactly four quarter reservations of a $1 budget, whichever controller asks', async () => {
    const clock = createFixedClock(LATE)
    const settings = createTestSettingsStore({ budget: { daily_usd: 1 } })
    const ledgers = await Promise.all(
      ['controller-a', 'controller-b'].map(async (name) =>
        createSpendLedger({
          buckets: await natsBuckets(name),
          settings,
          clock,
          logger: createRecordingLogger(),
          reservationTtlMs: TTL_MS,
        }),
      ),
    )
    const budgets = await Promise.all(
      ledgers.flatMap((ledger, c) =>
        Array.from({ length: 10 }, (_, n) => ledger.reserve(aRunCosting(`c${c}-${n}`, 0.25))),
      ),
    )
    expect(budgets.filter((budget) => budget.kind === 'granted')).toHaveLength(4)
  })
})
