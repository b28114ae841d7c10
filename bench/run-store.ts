/**
 * Run store benchmark (issue 12, benchmark 6): appends to the run store
 * (`createKvRunStore`: a compare-and-set read-modify-write of the one key
 * `recent` through `updateWithRetry`) by 1, 3 and 8 writers at once, each a
 * run store of its own on a connection of its own (as that many controllers
 * would be), against a real nats-server. Reports each append's latency, the
 * compare-and-set conflicts it retried, and whether every appended run is in
 * the list afterwards. The floor is one `get` and one compare-and-set
 * `update` of the same key with nobody else writing, measured in the same
 * run.
 *
 * Writes bench/results/run-store.md and prints it.
 *
 *   npx bun run bench/run-store.ts              # 5 rounds per writer count (a few seconds)
 *   npx bun run bench/run-store.ts --rounds 1 --no-write
 *
 * Not a test: it exits non-zero only if a run was lost.
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createRecordingLogger } from '../adapters/memory/logger.ts'
import { connectNats, type NatsClient } from '../adapters/nats/connection.ts'
import { createNatsKvBuckets } from '../adapters/nats/kv.ts'
import { isAppError } from '../core/base/errors.ts'
import { RUNS_BUCKET, RUNS_KEPT, RUNS_KEY, type RunRecord } from '../core/run/run-record.ts'
import { createKvRunStore } from '../entrypoints/controller/usecases/run/run-store.ts'
import type { KeyValue, KvBuckets } from '../ports/kv.ts'
import { aRow, aRunRecord } from '../test/support/builders.ts'
import { type NatsServer, startNatsServer } from '../test/support/nats-server.ts'
import { fmt, loadText, machineLine, median, percentile, publish } from './support/common.ts'

const WRITERS = [1, 3, 8] as const
/** Appends per round, split among the writers: under RUNS_KEPT, so every one must still be in the list. */
const APPENDS_PER_ROUND = 96
const DEFAULT_ROUNDS = 5
const FLOOR_SAMPLES = 200
const RESULTS_PATH = join(import.meta.dir, 'results/run-store.md')
const COMMAND = 'npx bun run bench/run-store.ts'

type Counters = { conflicts: number; writes: number }

/** The buckets with the runs bucket renamed per round (a fresh, empty one each time), every compare-and-set counted. */
function countingBuckets(buckets: KvBuckets, runsBucket: string, counters: Counters): KvBuckets {
  return {
    async open(bucket) {
      const kv = await buckets.open(bucket === RUNS_BUCKET ? runsBucket : bucket)
      const counted = async (write: () => Promise<number>) => {
        counters.writes += 1
        try {
          return await write()
        } catch (error) {
          if (isAppError(error, 'conflict')) counters.conflicts += 1
          throw error
        }
      }
      return {
        get: (key) => kv.get(key),
        create: (key, value) => counted(() => kv.create(key, value)),
        update: (key, value, revision) => counted(() => kv.update(key, value, revision)),
        keys: () => kv.keys(),
        delete: (key) => kv.delete(key),
        maxValueBytes: () => kv.maxValueBytes(),
      } satisfies KeyValue
    },
  }
}

/** A run of 10 classifications, as a review records it. */
function aRun(id: string, pr: number): RunRecord {
  return aRunRecord({
    id,
    repo: 'acme/ledger',
    pr,
    rows: Array.from({ length: 10 }, (_, i) =>
      aRow({ name: `rule-${i + 1}`, reason: 'Every new timestamp carries a zone, and each retry loop is bounded.' }),
    ),
    review_url: `https://forge.example/acme/ledger/pulls/${pr}#issuecomment-${pr}`,
  })
}

type Round = { writers: number; appendMs: number[]; conflicts: number; writes: number; lost: number; wallMs: number }

async function main(): Promise<void> {
  const args = parseArgs({ options: { rounds: { type: 'string' }, 'no-write': { type: 'boolean' } } }).values
  const rounds = args.rounds === undefined ? DEFAULT_ROUNDS : Number(args.rounds)
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new RangeError(`--rounds must be a whole number of at least 1, got ${args.rounds}`)
  const loadBefore = loadText()
  const startedAt = Date.now()
  const nats: NatsServer = await startNatsServer()
  const logger = createRecordingLogger()
  const clients: NatsClient[] = []
  const results: Round[] = []
  const floorMs: number[] = []
  try {
    for (let i = 0; i < Math.max(...WRITERS); i += 1)
      clients.push(
        await connectNats({ url: nats.url, name: `bench-writer-${i}`, firstConnectTimeoutMs: 5_000, logger }),
      )
    // The floor: one get and one compare-and-set update, alone.
    const alone = await createNatsKvBuckets(clients[0] as NatsClient).open('bench-floor')
    let revision = await alone.create(RUNS_KEY, JSON.stringify([aRun('floor', 1)]))
    const value = JSON.stringify(Array.from({ length: 50 }, (_, i) => aRun(`floor-${i}`, i)))
    for (let i = 0; i < FLOOR_SAMPLES; i += 1) {
      const t = performance.now()
      const entry = await alone.get(RUNS_KEY)
      revision = await alone.update(RUNS_KEY, value, entry?.revision ?? revision)
      floorMs.push(performance.now() - t)
    }

    let roundNo = 0
    for (let round = 0; round < rounds; round += 1) {
      for (const writers of WRITERS) {
        roundNo += 1
        const counters: Counters = { conflicts: 0, writes: 0 }
        const bucket = `bench-runs-${roundNo}`
        const stores = clients
          .slice(0, writers)
          .map((client) =>
            createKvRunStore({ buckets: countingBuckets(createNatsKvBuckets(client), bucket, counters), logger }),
          )
        const perWriter = APPENDS_PER_ROUND / writers
        const appendMs: number[] = []
        const ids: string[] = []
        const t0 = performance.now()
        await Promise.all(
          stores.map(async (store, w) => {
            for (let k = 0; k < perWriter; k += 1) {
              const id = `r${roundNo}-w${w}-${k}`
              ids.push(id)
              const t = performance.now()
              await store.record(aRun(id, 1 + w * perWriter + k))
              appendMs.push(performance.now() - t)
            }
          }),
        )
        const wallMs = performance.now() - t0
        const listed = new Set((await stores[0]?.list())?.map((run) => run.id) ?? [])
        const lost = ids.filter((id) => !listed.has(id)).length
        results.push({ writers, appendMs, conflicts: counters.conflicts, writes: counters.writes, lost, wallMs })
        console.error(
          `round ${round + 1}/${rounds} writers ${writers}: ${fmt(wallMs)} ms, ${counters.conflicts} conflicts, ${lost} lost`,
        )
      }
    }
  } finally {
    for (const client of clients) await client.close()
    await nats.cleanup()
  }

  const floor = median(floorMs)
  const rows = [
    '| writers | appends | append ms p50 | p95 | p99 | max | p50 ÷ floor | conflicts retried (per append) | appends/s, all writers (median round) | lost |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...WRITERS.map((writers) => {
      const set = results.filter((r) => r.writers === writers)
      const ms = set.flatMap((r) => r.appendMs)
      const conflicts = set.reduce((sum, r) => sum + r.conflicts, 0)
      const rate = median(set.map((r) => (r.appendMs.length / r.wallMs) * 1000))
      return `| ${writers} | ${ms.length} | ${fmt(percentile(ms, 50), 2)} | ${fmt(percentile(ms, 95), 2)} | ${fmt(percentile(ms, 99), 2)} | ${fmt(Math.max(...ms), 2)} | ${fmt(percentile(ms, 50) / floor, 2)} × | ${conflicts} (${fmt(conflicts / ms.length, 2)}) | ${fmt(rate)} | ${set.reduce((sum, r) => sum + r.lost, 0)} |`
    }),
  ]
  const lost = results.reduce((sum, r) => sum + r.lost, 0)
  const report = [
    '# Run store appends with 1, 3 and 8 writers',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)} with \`${COMMAND}\` (${rounds} rounds per writer count, ${Math.round((Date.now() - startedAt) / 1000)} s in all).`,
    '',
    machineLine(loadBefore),
    '',
    `Setup: a real nats-server (test/support/nats-server.ts, JetStream on). Each writer is \`createKvRunStore\` on a NATS connection of its own, as one controller each; in every round the writers append ${APPENDS_PER_ROUND} runs in all ` +
      `(${WRITERS.map((w) => `${w} × ${APPENDS_PER_ROUND / w}`).join(', ')}) back to back to a fresh bucket, each run a review of 10 classifications (~${fmt(JSON.stringify(aRun('x', 1)).length / 1000, 1)} KB stored, the key growing to ~${fmt((APPENDS_PER_ROUND * JSON.stringify(aRun('x', 1)).length) / 1000)} KB). ` +
      `An append is \`record(run)\`: the run-finished log line, then read, append, compare-and-set on the revision read, again from a fresh read on a conflict (\`updateWithRetry\`, up to 20 attempts with a random back-off). ` +
      `Conflicts are counted at the KV port; lost runs are appended runs missing from \`list()\` afterwards (${APPENDS_PER_ROUND} is under the ${RUNS_KEPT} the key keeps). ` +
      `The floor: one \`get\` and one compare-and-set \`update\` of a key of 50 such runs with nobody else writing, **${fmt(floor, 2)} ms** (p50 of ${FLOOR_SAMPLES}; p99 ${fmt(percentile(floorMs, 99), 2)} ms).`,
    '',
    rows.join('\n'),
    '',
    `Nothing lost: **${lost === 0 ? 'yes' : `no, ${lost} runs missing`}**.`,
    '',
  ].join('\n')
  publish(RESULTS_PATH, report, args['no-write'] !== true)
  if (lost > 0) process.exitCode = 1
}

await main()
