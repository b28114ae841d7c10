/**
 * `KvBuckets` on NATS JetStream KV. Buckets are created on first use with
 * history 1 and nothing newer than server 2.9 (no per-key TTL, which 2.9
 * accepts and silently ignores; no metadata or compression, which it
 * rejects). A bucket that already exists is bound as it is: `Kvm.create`
 * keeps an existing bucket's config.
 *
 * Sizes: a value travels as one message, so it must fit the server's
 * `max_payload` (1 MiB by default) together with the CAS header; a larger
 * one is `invalid`, refused by the client before anything is sent.
 */
import { type JetStreamClient, jetstream } from '@nats-io/jetstream'
import { type KV, Kvm } from '@nats-io/kv'
import { Empty, errors } from '@nats-io/transport-node'
import { appError } from '../../core/base/errors.ts'
import type { KeyValue, KvBuckets } from '../../ports/kv.ts'
import type { NatsClient } from './connection.ts'
import { isStreamCreateRace, natsErrorToAppError, notConnected } from './errors.ts'

export type NatsKvConfig = {
  /** How long one KV call waits for JetStream; default 5000 ms (the client's). */
  timeoutMs?: number
}

/** The server default, for a connection that hasn't heard the server's own yet. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024
/**
 * Room left for a write's headers: a compare-and-set carries
 * `Nats-Expected-Last-Subject-Sequence` (about 60 bytes); the rest is slack.
 */
export const KV_HEADER_ROOM_BYTES = 1024

/** A key nobody writes: the serving probe's compare-and-set names it, and can never succeed. */
const PROBE_KEY = '_serving-probe'

/**
 * Resolves once the bucket's stream takes messages, or at `deadlineMs`.
 *
 * nats-server 2.9 lists a new stream (STREAM.INFO answers, and a second
 * STREAM.CREATE with the same config succeeds) before it has set up its
 * store and subscribed to the stream's subjects. A process opening a bucket
 * that another is creating at that moment would see its first writes
 * refused with no responders and its first gets dropped unanswered, each
 * waiting out the whole timeout (docs/infra.md §A2: one side of two
 * connections racing a new bucket on a loaded machine lost its first gets
 * in up to 1.7 % of rounds; bench/kv-open-race.ts). The probe is a
 * compare-and-set at a revision no key reaches, so it stores nothing: the
 * stream's own refusal means it serves, and its subject and direct-get
 * subscriptions are made under one lock. No responders means not yet: it
 * is asked again. Anything else (a NATS user not allowed to write the
 * bucket, a timeout) ends the wait, and the call that follows reports its
 * own failure.
 */
async function untilServing(js: JetStreamClient, bucket: string, deadlineMs: number): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    const remaining = deadlineMs - Date.now()
    if (remaining <= 0) return
    try {
      await js.publish(`$KV.${bucket}.${PROBE_KEY}`, Empty, {
        expect: { lastSubjectSequence: Number.MAX_SAFE_INTEGER },
        timeout: remaining,
      })
      return
    } catch (error) {
      // The client reports no responders to a publish as "jetstream is not enabled", the cause kept.
      const cause = error instanceof Error ? error.cause : undefined
      if (!(cause instanceof errors.RequestError && cause.isNoResponders())) return
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 ** attempt)))
  }
}

export function createNatsKvBuckets(client: NatsClient, config: NatsKvConfig = {}): KvBuckets {
  const timeoutMs = config.timeoutMs ?? 5000
  const js = jetstream(client.connection, { timeout: timeoutMs })
  const kvm = new Kvm(js)
  // Per factory, not per module: one stream-info round trip per bucket, not per call.
  const opened = new Map<string, Promise<KV>>()

  /** Runs `call` as `action`, failing fast when disconnected and mapping what the client throws. */
  async function guarded<T>(action: string, call: () => Promise<T>): Promise<T> {
    if (!client.isConnected()) throw notConnected(action)
    try {
      return await call()
    } catch (error) {
      throw natsErrorToAppError(error, action)
    }
  }

  function openBucket(bucket: string): Promise<KV> {
    const cached = opened.get(bucket)
    if (cached !== undefined) return cached
    const opening = guarded(`kv open of ${bucket}`, async () => {
      const deadlineMs = Date.now() + timeoutMs
      let kv: KV
      try {
        kv = await kvm.create(bucket, { history: 1 })
      } catch (error) {
        if (!isStreamCreateRace(error)) throw error
        kv = await kvm.create(bucket, { history: 1 })
      }
      await untilServing(js, bucket, deadlineMs)
      return kv
    })
    opened.set(bucket, opening)
    // A failed open (NATS down at start) must not stick: the next call tries again.
    opening.catch(() => opened.delete(bucket))
    return opening
  }

  function bucketView(bucket: string, kv: KV): KeyValue {
    return {
      async get(key) {
        const entry = await guarded(`kv get of ${bucket}/${key}`, () => kv.get(key))
        // A deleted or purged key leaves a marker entry; to the port it is simply absent.
        if (entry === null || entry.operation !== 'PUT') return null
        return { value: entry.string(), revision: entry.revision }
      },
      create(key, value) {
        return guarded(`kv create of ${bucket}/${key}`, () => kv.create(key, value))
      },
      async update(key, value, revision) {
        const action = `kv update of ${bucket}/${key}`
        // The client throws a plain Error for revision 0; no key is ever at revision 0, so it can only conflict.
        if (!(Number.isSafeInteger(revision) && revision > 0))
          throw appError('conflict', `${action}: no key is at revision ${revision}`)
        return guarded(action, () => kv.update(key, value, revision))
      },
      async keys() {
        return await guarded(`kv keys of ${bucket}`, async () => {
          const keys: string[] = []
          for await (const key of await kv.keys()) keys.push(key)
          return keys
        })
      },
      async delete(key) {
        await guarded(`kv delete of ${bucket}/${key}`, () => kv.delete(key))
      },
      maxValueBytes() {
        return (client.connection.info?.max_payload ?? DEFAULT_MAX_PAYLOAD) - KV_HEADER_ROOM_BYTES
      },
    } satisfies KeyValue
  }

  return {
    async open(bucket) {
      return bucketView(bucket, await openBucket(bucket))
    },
  } satisfies KvBuckets
}
