/**
 * KV open race benchmark: two processes opening a bucket that neither has
 * created yet, as a controller and a classifier starting together against a
 * fresh NATS do. nats-server 2.9 lists a new stream before it serves it, so
 * the side that finds the stream listed can have its first calls dropped
 * (docs/infra.md §A2). Each round starts a fresh nats-server, connects two
 * clients, and has 20 writers (10 per client) open the spend bucket and
 * read-modify-write one key through `updateWithRetry`, as reservations do.
 * A round counts as lost when any call failed (each waits at most 4 s).
 *
 * Two ways to open, each on the same rounds: `adapter` is
 * `createNatsKvBuckets` (which probes a new bucket until its stream takes
 * messages), `bare` is `Kvm.create` from `@nats-io/kv` with no probe, as the
 * adapter opened a bucket before (a lost race to create the stream opens
 * again, as there). The race shows only on a loaded machine,
 * so `--busy` busy loops (default 3) run beside it.
 *
 * Writes bench/results/kv-open-race.md and prints it.
 *
 *   npx bun run bench/kv-open-race.ts                  # 500 rounds each (~2 min)
 *   npx bun run bench/kv-open-race.ts --rounds 50 --no-write
 *
 * Not a test: it exits non-zero only if a round of the adapter lost a call.
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { jetstream } from '@nats-io/jetstream'
import { Kvm } from '@nats-io/kv'
import { createRecordingLogger } from '../adapters/memory/logger.ts'
import { connectNats, type NatsClient } from '../adapters/nats/connection.ts'
import { isStreamCreateRace, natsErrorToAppError } from '../adapters/nats/errors.ts'
import { createNatsKvBuckets } from '../adapters/nats/kv.ts'
import { describeError } from '../core/base/errors.ts'
import { SPEND_BUCKET } from '../core/settings/spend.ts'
import { updateWithRetry } from '../entrypoints/common/base/kv-update.ts'
import type { KeyValue } from '../ports/kv.ts'
import { startNatsServer } from '../test/support/nats-server.ts'
import { fmt, loadText, machineLine, median, publish } from './support/common.ts'

const RESULTS_PATH = join(import.meta.dir, 'results/kv-open-race.md')
const COMMAND = 'npx bun run bench/kv-open-race.ts'
const WRITERS = 20
const CALL_TIMEOUT_MS = 4000
const MODES = ['adapter', 'bare'] as const
type Mode = (typeof MODES)[number]

const args = parseArgs({
  options: {
    rounds: { type: 'string', default: '500' },
    busy: { type: 'string', default: '3' },
    'no-write': { type: 'boolean', default: false },
  },
}).values
const rounds = Math.max(1, Number(args.rounds))
const busy = Math.max(0, Number(args.busy))

/** The bucket as `Kvm.create` gives it, behind the port, calls mapped as the adapter maps them. */
async function bareView(client: NatsClient, bucket: string): Promise<KeyValue> {
  const kvm = new Kvm(jetstream(client.connection, { timeout: CALL_TIMEOUT_MS }))
  // The adapter's answer to two creates at once, kept: the only difference is the probe.
  const kv = await kvm.create(bucket, { history: 1 }).catch((error: unknown) => {
    if (!isStreamCreateRace(error)) throw error
    return kvm.create(bucket, { history: 1 })
  })
  const mapped = async <T>(action: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call()
    } catch (error) {
      throw natsErrorToAppError(error, action)
    }
  }
  return {
    async get(key) {
      const entry = await mapped('kv get', () => kv.get(key))
      return entry === null || entry.operation !== 'PUT' ? null : { value: entry.string(), revision: entry.revision }
    },
    create: (key, value) => mapped('kv create', () => kv.create(key, value)),
    update: (key, value, revision) => mapped('kv update', () => kv.update(key, value, revision)),
    keys: () => Promise.resolve([]),
    delete: (key) => mapped('kv delete', () => kv.delete(key)),
    maxValueBytes: () => 1024 * 1024,
  }
}

type Round = { mode: Mode; lostCalls: number; failures: string[]; ms: number }

async function round(mode: Mode): Promise<Round> {
  const server = await startNatsServer()
  const logger = createRecordingLogger()
  const clients = await Promise.all(
    ['a', 'b'].map((name) =>
      connectNats({ url: server.url, name, firstConnectTimeoutMs: 10_000, reconnectTimeWaitMs: 100, logger }),
    ),
  )
  const opens = clients.map((client) =>
    mode === 'adapter'
      ? createNatsKvBuckets(client, { timeoutMs: CALL_TIMEOUT_MS }).open(SPEND_BUCKET)
      : bareView(client, SPEND_BUCKET),
  )
  const failures: string[] = []
  const started = performance.now()
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, n) => {
      try {
        const kv = await opens[n % 2]
        if (kv === undefined) throw new Error('no client')
        await updateWithRetry(kv, '2026-12-01', (current) => String(Number(current ?? '0') + 1))
      } catch (error) {
        failures.push(describeError(error))
      }
    }),
  )
  const ms = performance.now() - started
  await Promise.all(clients.map((client) => client.close(1000)))
  await server.cleanup()
  return { mode, lostCalls: failures.length, failures, ms }
}

const loadBefore = loadText()
const startedAt = Date.now()
const burners = Array.from({ length: busy }, () => Bun.spawn(['sh', '-c', 'while :; do :; done']))
const results: Round[] = []
try {
  for (let n = 0; n < rounds; n += 1) {
    for (const mode of MODES) results.push(await round(mode))
    if ((n + 1) % 50 === 0) console.error(`round ${n + 1}/${rounds}`)
  }
} finally {
  for (const burner of burners) burner.kill('SIGKILL')
}

const rows = MODES.map((mode) => {
  const set = results.filter((r) => r.mode === mode)
  const lost = set.filter((r) => r.lostCalls > 0)
  const kinds = [...new Set(lost.flatMap((r) => r.failures.map((f) => f.replace(/ of \S+/, ''))))].slice(0, 3)
  return `| ${mode} | ${set.length} | ${lost.length} (${fmt((lost.length / set.length) * 100, 1)} %) | ${lost.reduce((sum, r) => sum + r.lostCalls, 0)} | ${fmt(median(set.map((r) => r.ms)))} | ${kinds.join('; ') || '—'} |`
})
const adapterLost = results.filter((r) => r.mode === 'adapter' && r.lostCalls > 0).length
const report = [
  '# Two processes opening a new KV bucket at once',
  '',
  `Run on ${new Date().toISOString().slice(0, 10)} with \`${COMMAND}\` (${rounds} rounds each, ${busy} busy loops beside it, ${Math.round((Date.now() - startedAt) / 1000)} s in all).`,
  '',
  machineLine(loadBefore),
  '',
  `Setup: each round a fresh nats-server (test/support/nats-server.ts, which waits until the JetStream API has answered once) and two connections; ${WRITERS} writers, half on each, open \`${SPEND_BUCKET}\` and add 1 to one key through \`updateWithRetry\`. A call waits at most ${CALL_TIMEOUT_MS / 1000} s. \`adapter\` opens through \`createNatsKvBuckets\` (probing a new bucket until its stream takes messages); \`bare\` through \`Kvm.create\` with no probe, as the adapter did before (a create that lost the race to create the stream opens again, as there).`,
  '',
  '| open | rounds | rounds with a lost call | calls lost | round ms p50 | what failed |',
  '|---|---:|---:|---:|---:|---|',
  ...rows,
  '',
  `The adapter lost no call: **${adapterLost === 0 ? 'yes' : `no, in ${adapterLost} rounds`}**.`,
  '',
].join('\n')
publish(RESULTS_PATH, report, args['no-write'] !== true)
if (adapterLost > 0) process.exitCode = 1
