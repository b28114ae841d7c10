import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createMemoryKv } from '../../../../../adapters/memory/kv.ts'
import { createRecordingLogger } from '../../../../../adapters/memory/logger.ts'
import { connectNats, type NatsClient } from '../../../../../adapters/nats/connection.ts'
import { createNatsKvBuckets } from '../../../../../adapters/nats/kv.ts'
import { appError } from '../../../../../core/base/errors.ts'
import {
  RUN_FINISHED_MESSAGE,
  RUNS_BUCKET,
  RUNS_KEPT,
  RUNS_KEY,
  type RunRecord,
} from '../../../../../core/run/run-record.ts'
import {
  createKvRunStore,
  RUN_LEFT_OUT_MESSAGE,
  RUN_WRITE_FAILED_MESSAGE,
  RUNS_DROPPED_MESSAGE,
} from '../../../../../entrypoints/controller/usecases/run/run-store.ts'
import type { KvBuckets } from '../../../../../ports/kv.ts'
import { aRow, aRunRecord } from '../../../../support/builders.ts'
import { cleanUp } from '../../../../support/cleanup.ts'
import { type NatsServer, startNatsServer } from '../../../../support/nats-server.ts'
import { failureOf } from '../../http/http-support.ts'

setDefaultTimeout(60_000)

const WRITERS = 3
const RUNS_PER_WRITER = 50

function runOf(writer: number, index: number): RunRecord {
  return aRunRecord({ id: `w${writer}-${index}`, pr: writer * 1000 + index })
}

/**
 * Three stores (as three controllers would hold) each record 50 runs in
 * order, all at once. Nothing is lost when every writer's runs in the list
 * are its newest ones, contiguous and in order, and the list holds 100.
 */
async function recordConcurrently(
  bucketsFor: (writer: number) => KvBuckets,
): Promise<{ runs: RunRecord[]; warnings: unknown[] }> {
  const logger = createRecordingLogger()
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, writer) => {
      const store = createKvRunStore({ buckets: bucketsFor(writer), logger })
      for (let index = 0; index < RUNS_PER_WRITER; index += 1) await store.record(runOf(writer, index))
    }),
  )
  const runs = await createKvRunStore({ buckets: bucketsFor(0), logger }).list()
  expect(logger.withMessage(RUN_FINISHED_MESSAGE)).toHaveLength(WRITERS * RUNS_PER_WRITER)
  // The warnings' code and error, so a failure says why a write was lost.
  const warnings = logger.withMessage(RUN_WRITE_FAILED_MESSAGE).map(({ fields }) => [fields.code, fields.error])
  return { runs, warnings }
}

function expectNewestKept(runs: RunRecord[]): void {
  expect(runs).toHaveLength(RUNS_KEPT)
  expect(new Set(runs.map((run) => run.id)).size).toBe(RUNS_KEPT)
  let kept = 0
  for (let writer = 0; writer < WRITERS; writer += 1) {
    // Newest first in the list, so a writer's runs read from its last one backwards.
    const indexes = runs.filter((run) => run.id.startsWith(`w${writer}-`)).map((run) => Number(run.id.split('-')[1]))
    const expected = Array.from({ length: indexes.length }, (_, k) => RUNS_PER_WRITER - 1 - k)
    expect(indexes).toEqual(expected)
    kept += indexes.length
  }
  expect(kept).toBe(RUNS_KEPT)
}

/**
 * A run as large as the caps let one be: ten rows with a 500-character
 * reason and a 200-character error each, and a refusal listing ten problems
 * (some 15 KB). A hundred of them are well past NATS' default 1 MiB.
 */
function aLargeRun(index: number): RunRecord {
  const rows = Array.from({ length: 10 }, (_, i) =>
    aRow({ name: `rule-${i}`, reason: 'r'.repeat(500), error: { kind: 'runtime', detail: 'e'.repeat(200) } }),
  )
  return aRunRecord({ id: `large-${index}`, pr: index, outcome: 'no-verdict', detail: 'd'.repeat(4500), rows })
}

/** Records `count` large runs one after another; answers the store's list and what the writes logged. */
async function recordLarge(buckets: KvBuckets, count: number) {
  const logger = createRecordingLogger()
  const store = createKvRunStore({ buckets, logger })
  for (let index = 1; index <= count; index += 1) {
    await store.record(aLargeRun(index))
    const [newest] = await store.list()
    expect(newest?.id).toBe(`large-${index}`)
  }
  const stored = await (await buckets.open(RUNS_BUCKET)).get(RUNS_KEY)
  return {
    runs: await store.list(),
    bytes: new TextEncoder().encode(stored?.value ?? '').byteLength,
    failed: logger.withMessage(RUN_WRITE_FAILED_MESSAGE),
    dropped: logger.withMessage(RUNS_DROPPED_MESSAGE),
  }
}

/** The newest `kept` of `count` large runs, newest first. */
function newestLarge(count: number, kept: number): string[] {
  return Array.from({ length: kept }, (_, i) => `large-${count - i}`)
}

describe('createKvRunStore', () => {
  it('records a run newest first and lists it back as stored', async () => {
    const buckets = createMemoryKv()
    const store = createKvRunStore({ buckets, logger: createRecordingLogger() })
    const first = aRunRecord({ id: 'first' })
    const second = aRunRecord({
      id: 'second',
      trigger: 'try-out',
      outcome: 'failed',
      detail: 'classifier not running',
      rows: undefined,
      overall: undefined,
      review_url: undefined,
    })
    await store.record(first)
    await store.record(second)
    expect(await store.list()).toEqual([second, first])
    expect(buckets.bucketNames()).toEqual([RUNS_BUCKET])
  })

  it('logs the run finished event with the record fields and rows as JSON', async () => {
    const logger = createRecordingLogger()
    const store = createKvRunStore({ buckets: createMemoryKv(), logger })
    const run = aRunRecord({ outcome: 'post-failed', overall: 'approve', detail: 'the forge refused the review' })
    await store.record(run)
    const [event] = logger.withMessage(RUN_FINISHED_MESSAGE)
    expect(event?.level).toBe('info')
    expect(event?.fields).toMatchObject({
      id: run.id,
      trigger: 'review',
      repo: 'acme/widgets',
      pr: 7,
      outcome: 'post-failed',
      detail: 'the forge refused the review',
      review_url: run.review_url,
    })
    expect(JSON.parse(String(event?.fields.rows))).toEqual(run.rows)
  })

  it('logs the event and a warning when the write fails, and never throws', async () => {
    const buckets = createMemoryKv()
    const logger = createRecordingLogger()
    const store = createKvRunStore({ buckets, logger })
    buckets.simulateFailure(appError('unavailable', 'not connected to the queue'))
    await store.record(aRunRecord({ id: 'lost-write' }))
    expect(logger.withMessage(RUN_FINISHED_MESSAGE)).toHaveLength(1)
    const warnings = logger.withMessage(RUN_WRITE_FAILED_MESSAGE)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]?.level).toBe('warn')
    expect(warnings[0]?.fields).toMatchObject({ id: 'lost-write', code: 'unavailable' })
    buckets.simulateFailure(null)
    expect(await store.list()).toEqual([])
  })

  it('leaves an undecodable run out of the list with one warning per stored revision, and keeps it stored', async () => {
    const buckets = createMemoryKv()
    const logger = createRecordingLogger()
    const kv = await buckets.open(RUNS_BUCKET)
    const good = aRunRecord({ id: 'good' })
    await kv.create(
      RUNS_KEY,
      JSON.stringify([{ id: 'from-the-future', trigger: 'review', outcome: 'teleported' }, good]),
    )
    const store = createKvRunStore({ buckets, logger })
    expect(await store.list()).toEqual([good])
    expect(await store.list()).toEqual([good])
    expect(logger.withMessage(RUN_LEFT_OUT_MESSAGE)).toHaveLength(1)
    expect(String(logger.withMessage(RUN_LEFT_OUT_MESSAGE)[0]?.fields.reason)).toContain('from-the-future')
    await store.record(aRunRecord({ id: 'newer' }))
    const stored: unknown = JSON.parse((await kv.get(RUNS_KEY))?.value ?? 'null')
    expect(Array.isArray(stored) ? stored.map((entry: { id: string }) => entry.id) : stored).toEqual([
      'newer',
      'from-the-future',
      'good',
    ])
  })

  it('reads a stored document that is not a list as no runs', async () => {
    const buckets = createMemoryKv()
    await (await buckets.open(RUNS_BUCKET)).create(RUNS_KEY, '{"runs": []}')
    expect(await createKvRunStore({ buckets, logger: createRecordingLogger() }).list()).toEqual([])
  })

  it('lets a failed read through for the route to answer', async () => {
    const buckets = createMemoryKv()
    const store = createKvRunStore({ buckets, logger: createRecordingLogger() })
    buckets.simulateFailure(appError('timeout', 'the queue did not answer'))
    expect(await failureOf(store.list())).toMatchObject({ code: 'timeout' })
  })

  it('drops the oldest runs when the list would not fit the store, logs it, and keeps recording', async () => {
    const buckets = createMemoryKv({ maxValueBytes: 64 * 1024 })
    const { runs, bytes, failed, dropped } = await recordLarge(buckets, 20)
    expect(failed).toEqual([])
    expect(bytes).toBeLessThanOrEqual(64 * 1024)
    expect(runs.map((run) => run.id)).toEqual(newestLarge(20, runs.length))
    expect(runs.length).toBeGreaterThan(1)
    expect(dropped.length).toBeGreaterThan(0)
    expect(dropped[0]?.level).toBe('warn')
    expect(dropped.at(-1)?.fields).toEqual({
      bucket: RUNS_BUCKET,
      key: RUNS_KEY,
      id: 'large-20',
      kept: runs.length,
      dropped: 1,
      bytes: expect.any(Number),
      max_bytes: 64 * 1024,
    })
  })

  it('logs a run that alone is over what the store takes as not recorded, and keeps the list', async () => {
    const buckets = createMemoryKv({ maxValueBytes: 4 * 1024 })
    const logger = createRecordingLogger()
    const store = createKvRunStore({ buckets, logger })
    await store.record(aRunRecord({ id: 'small' }))
    await store.record(aLargeRun(1))
    expect(logger.withMessage(RUN_WRITE_FAILED_MESSAGE)[0]?.fields).toMatchObject({ id: 'large-1', code: 'invalid' })
    expect((await store.list()).map((run) => run.id)).toEqual(['small'])
  })

  it('loses nothing to three concurrent writers and keeps the newest 100 (memory KV)', async () => {
    const buckets = createMemoryKv()
    const { runs, warnings } = await recordConcurrently(() => buckets)
    expect(warnings).toEqual([])
    expectNewestKept(runs)
  })

  describe('on a real nats-server', () => {
    /**
     * How long a KV call may wait for the server here: not what these tests are about. With three
     * busy loops beside it on 2 cores, a starved server let a get run past the adapter's default 5 s.
     */
    const ROOMY_KV = { timeoutMs: 60_000 }
    let server: NatsServer
    const clients: NatsClient[] = []
    beforeAll(async () => {
      server = await startNatsServer()
      for (let writer = 0; writer < WRITERS; writer += 1) {
        clients.push(
          await connectNats({
            url: server.url,
            name: `run-store-${writer}`,
            firstConnectTimeoutMs: 10_000,
            logger: createRecordingLogger(),
          }),
        )
      }
    })
    afterAll(async () => {
      await cleanUp(
        () => Promise.all(clients.map((client) => client.close(1000))),
        server === undefined ? null : () => server.cleanup(),
      )
    })

    /** A server of its own (the runs bucket is one key), and one connection to it. */
    async function onOwnServer(maxPayloadBytes: number | undefined, test: (buckets: KvBuckets) => Promise<void>) {
      const own = await startNatsServer(maxPayloadBytes === undefined ? {} : { maxPayloadBytes })
      const client = await connectNats({
        url: own.url,
        name: 'run-store-large',
        firstConnectTimeoutMs: 10_000,
        logger: createRecordingLogger(),
      })
      try {
        await test(createNatsKvBuckets(client, ROOMY_KV))
      } finally {
        await cleanUp(
          () => client.close(1000),
          () => own.cleanup(),
        )
      }
    }

    it("keeps the list under the server's default max_payload with 100 large runs, dropping the oldest", async () => {
      await onOwnServer(undefined, async (buckets) => {
        const { runs, bytes, failed, dropped } = await recordLarge(buckets, RUNS_KEPT)
        expect(failed).toEqual([])
        expect(bytes).toBeLessThanOrEqual(1024 * 1024 - 1024)
        expect(runs.length).toBeLessThan(RUNS_KEPT)
        expect(runs.map((run) => run.id)).toEqual(newestLarge(RUNS_KEPT, runs.length))
        expect(dropped.at(-1)?.fields).toMatchObject({ max_bytes: 1024 * 1024 - 1024, kept: runs.length })
      })
    })

    it("reads the bound from the server's own max_payload", async () => {
      await onOwnServer(64 * 1024, async (buckets) => {
        expect((await buckets.open(RUNS_BUCKET)).maxValueBytes()).toBe(63 * 1024)
        const { runs, bytes, failed } = await recordLarge(buckets, 12)
        expect(failed).toEqual([])
        expect(bytes).toBeLessThanOrEqual(63 * 1024)
        expect(runs.map((run) => run.id)).toEqual(newestLarge(12, runs.length))
      })
    })

    it('loses nothing to three concurrent writers on their own connections and keeps the newest 100', async () => {
      const buckets = clients.map((client) => createNatsKvBuckets(client, ROOMY_KV))
      const { runs, warnings } = await recordConcurrently((writer) => {
        const bucket = buckets[writer]
        if (bucket === undefined) throw new Error(`no connection for writer ${writer}`)
        return bucket
      })
      expect(warnings).toEqual([])
      expectNewestKept(runs)
    })
  })
})
