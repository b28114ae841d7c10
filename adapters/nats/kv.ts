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
import { jetstream } from '@nats-io/jetstream'
import { type KV, Kvm } from '@nats-io/kv'
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

export function createNatsKvBuckets(client: NatsClient, config: NatsKvConfig = {}): KvBuckets {
  const kvm = new Kvm(jetstream(client.connection, { timeout: config.timeoutMs ?? 5000 }))
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
      try {
        return await kvm.create(bucket, { history: 1 })
      } catch (error) {
        if (!isStreamCreateRace(error)) throw error
        return await kvm.create(bucket, { history: 1 })
      }
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
