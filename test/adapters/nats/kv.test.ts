import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { jetstreamManager } from '@nats-io/jetstream'
import { Kvm } from '@nats-io/kv'
import type { NatsClient } from '../../../adapters/nats/connection.ts'
import { createNatsKvBuckets } from '../../../adapters/nats/kv.ts'
import { isAppError } from '../../../core/base/errors.ts'
import { updateWithRetry } from '../../../entrypoints/common/base/kv-update.ts'
import { kvContract } from '../../ports/kv.contract.ts'
import { cleanUp } from '../../support/cleanup.ts'
import { type NatsServer, startNatsServer } from '../../support/nats-server.ts'
import { aClient, failureOf, waitUntil } from './harness.ts'

kvContract('nats', async () => {
  const server = await startNatsServer()
  const client = await aClient(server)
  return {
    buckets: createNatsKvBuckets(client),
    async cleanup() {
      await client.close()
      await server.cleanup()
    },
  }
})

describe('createNatsKvBuckets', () => {
  let server: NatsServer
  const clients: NatsClient[] = []
  async function connected(name = 'kv-test'): Promise<NatsClient> {
    const client = await aClient(server, name)
    clients.push(client)
    return client
  }
  beforeEach(async () => {
    server = await startNatsServer()
  })
  afterEach(async () => {
    await cleanUp(
      () => Promise.all(clients.splice(0).map((c) => c.close(1000))),
      () => server.cleanup(),
    )
  })

  it('creates the bucket on first open with history 1 and binds to it afterwards', async () => {
    const client = await connected()
    const buckets = createNatsKvBuckets(client)
    const first = await buckets.open('review-classifier-runs')
    await first.create('recent', 'one')
    const again = await createNatsKvBuckets(await connected('other')).open('review-classifier-runs')
    expect((await again.get('recent'))?.value).toBe('one')
    const info = await (await jetstreamManager(client.connection)).streams.info('KV_review-classifier-runs')
    expect(info.config.max_msgs_per_subject).toBe(1)
  })

  it('opens a new bucket from several connections at once, as controllers starting together do', async () => {
    // Each open finds no stream and adds one; all but the first add are refused, and must bind instead.
    const openers = await Promise.all(Array.from({ length: 8 }, (_, n) => connected(`opener-${n}`)))
    for (let round = 0; round < 10; round += 1) {
      const bucket = `race-${round}`
      const views = await Promise.all(openers.map((client) => createNatsKvBuckets(client).open(bucket)))
      await views[0]?.create('key', `round ${round}`)
      expect(await Promise.all(views.map(async (view) => (await view.get('key'))?.value))).toEqual(
        openers.map(() => `round ${round}`),
      )
    }
  })

  it('waits for a bucket listed before it takes messages, as one another process is creating', async () => {
    // nats-server 2.9 lists a new stream before it subscribes to its subjects: STREAM.INFO answers while a
    // write finds no responders and a get is dropped. A stream whose subjects miss the bucket's looks the same.
    const client = await connected()
    const jsm = await jetstreamManager(client.connection)
    await jsm.streams.add({
      name: 'KV_half-made',
      subjects: ['elsewhere.>'],
      max_msgs_per_subject: 1,
      allow_direct: true,
    })
    const sentBefore = client.connection.stats().outMsgs
    let opened = false
    const opening = createNatsKvBuckets(client)
      .open('half-made')
      .then((kv) => {
        opened = true
        return kv
      })
    // The open asks for the account and the stream, then probes: wait for the third probe.
    await waitUntil('the open probed three times', () => client.connection.stats().outMsgs >= sentBefore + 5)
    expect(opened).toBe(false)
    await jsm.streams.update('KV_half-made', { subjects: ['$KV.half-made.>'] })
    const kv = await opening
    await kv.create('key', 'value')
    expect((await kv.get('key'))?.value).toBe('value')
    // The probe is a compare-and-set that cannot succeed: it stored nothing.
    expect((await jsm.streams.info('KV_half-made')).state.messages).toBe(1)
  })

  it('opens a bucket that never takes messages at the timeout, and its calls say why', async () => {
    const client = await connected()
    const jsm = await jetstreamManager(client.connection)
    await jsm.streams.add({ name: 'KV_never-made', subjects: ['elsewhere.>'], max_msgs_per_subject: 1 })
    const kv = await createNatsKvBuckets(client, { timeoutMs: 300 }).open('never-made')
    const failure = await failureOf(kv.create('key', 'value'))
    expect(isAppError(failure, 'unavailable')).toBe(true)
    expect(String(failure)).toContain('kv create of never-made/key')
  })

  it('reads a deleted or purged key as absent, and lets create write it again', async () => {
    const client = await connected()
    const kv = await createNatsKvBuckets(client).open('review-classifier-settings')
    const raw = await new Kvm(client.connection).open('review-classifier-settings')
    await kv.create('all', '{"model":"haiku"}')
    await raw.delete('all')
    expect(await kv.get('all')).toBeNull()
    const revision = await kv.create('all', '{"model":"sonnet"}')
    expect(await kv.get('all')).toEqual({ value: '{"model":"sonnet"}', revision })
    await raw.purge('all')
    expect(await kv.get('all')).toBeNull()
  })

  it('loses nothing when writers on separate connections append through updateWithRetry', async () => {
    const writers = await Promise.all(
      Array.from(
        { length: 4 },
        async (_, w) => await createNatsKvBuckets(await connected(`writer-${w}`)).open('review-classifier-runs'),
      ),
    )
    const appendsEach = 25
    // A ~2 KB record, as a run record is.
    const padding = 'r'.repeat(2000)
    await Promise.all(
      writers.map(async (kv, w) => {
        for (let i = 0; i < appendsEach; i += 1) {
          await updateWithRetry(
            kv,
            'recent',
            (current) => {
              const list: unknown = current === null ? [] : JSON.parse(current)
              return JSON.stringify([...(Array.isArray(list) ? list : []), { id: `${w}-${i}`, padding }])
            },
            { maxAttempts: 1000 },
          )
        }
      }),
    )
    const stored = await writers[0]?.get('recent')
    const ids: unknown = JSON.parse(stored?.value ?? '[]')
    const expected = writers.flatMap((_, w) => Array.from({ length: appendsEach }, (_, i) => `${w}-${i}`)).sort()
    expect(Array.isArray(ids) ? ids.map((r: { id: string }) => r.id).sort() : ids).toEqual(expected)
    // One revision per successful write: every append landed exactly once.
    expect(stored?.revision).toBe(expected.length)
  })

  it('refuses a value over the server max_payload with invalid and stays usable', async () => {
    const kv = await createNatsKvBuckets(await connected()).open('review-classifier-runs')
    const failure = await failureOf(kv.create('recent', 'x'.repeat(1_048_577)))
    expect(isAppError(failure, 'invalid')).toBe(true)
    expect(isAppError(failure) ? failure.message : '').toContain('max_payload')
    await kv.create('recent', 'small')
    expect((await kv.get('recent'))?.value).toBe('small')
  })

  it('refuses a bucket or key name NATS cannot hold with invalid', async () => {
    const buckets = createNatsKvBuckets(await connected())
    expect(isAppError(await failureOf(buckets.open('no spaces allowed')), 'invalid')).toBe(true)
    const kv = await buckets.open('review-classifier-runs')
    expect(isAppError(await failureOf(kv.create('bad key', 'x')), 'invalid')).toBe(true)
    expect(isAppError(await failureOf(kv.get('.dotted')), 'invalid')).toBe(true)
  })

  it('fails with timeout when the server does not answer in time', async () => {
    const kv = await createNatsKvBuckets(await connected(), { timeoutMs: 300 }).open('review-classifier-runs')
    await server.pause()
    const failure = await failureOf(kv.get('recent'))
    server.resume()
    expect(isAppError(failure, 'timeout')).toBe(true)
    expect(await kv.get('recent')).toBeNull()
  })

  it('fails at once with unavailable while disconnected, and works again after the server is back', async () => {
    const client = await connected()
    const kv = await createNatsKvBuckets(client).open('review-classifier-settings')
    const revision = await kv.create('all', 'kept')
    await server.stop('SIGKILL')
    await waitUntil('the client notices the outage', () => !client.isConnected())
    const failures = await Promise.all(
      [kv.get('all'), kv.update('all', 'lost', revision), createNatsKvBuckets(client).open('other')].map(failureOf),
    )
    expect(failures.map((f) => (isAppError(f) ? f.code : String(f)))).toEqual([
      'unavailable',
      'unavailable',
      'unavailable',
    ])
    await server.restart()
    await waitUntil('the client reconnects', () => client.isConnected())
    expect(await kv.get('all')).toEqual({ value: 'kept', revision })
    expect(await kv.update('all', 'after restart', revision)).toBeGreaterThan(revision)
  })
})
