/**
 * In-memory KV buckets, with NATS KV's revision semantics: one revision
 * sequence per bucket, a stale `update` and a `create` on an existing key
 * both `conflict`.
 */
import { type AppError, appError } from '../../core/base/errors.ts'
import type { KeyValue, KvBuckets, KvEntry } from '../../ports/kv.ts'

export type MemoryKv = KvBuckets & {
  /** While set, every call on every bucket rejects with this error (an outage). */
  simulateFailure(error: AppError | null): void
  /** The names of the buckets opened so far. */
  bucketNames(): string[]
}

type BucketState = { entries: Map<string, KvEntry>; lastRevision: number }

export type MemoryKvOptions = {
  /** The most UTF-8 bytes a value may hold, as a NATS server's max_payload bounds it; default 1 MiB less 1 KiB. */
  maxValueBytes?: number
}

const encoder = new TextEncoder()

export function createMemoryKv(options: MemoryKvOptions = {}): MemoryKv {
  const buckets = new Map<string, BucketState>()
  const maxValueBytes = options.maxValueBytes ?? 1024 * 1024 - 1024
  let failure: AppError | null = null

  // Every call yields once before touching the state, as a real round trip
  // would, so concurrent read-modify-write callers really interleave.
  async function roundTrip(): Promise<void> {
    await Promise.resolve()
    if (failure !== null) throw failure
  }

  function bucketView(name: string, state: BucketState): KeyValue {
    function write(key: string, value: string): number {
      const bytes = encoder.encode(value).byteLength
      if (bytes > maxValueBytes) {
        throw appError('invalid', `kv write of ${name}/${key}: larger than the server's max_payload (${bytes} bytes)`)
      }
      state.lastRevision += 1
      state.entries.set(key, { value, revision: state.lastRevision })
      return state.lastRevision
    }
    return {
      async get(key) {
        await roundTrip()
        const entry = state.entries.get(key)
        return entry === undefined ? null : { ...entry }
      },
      async create(key, value) {
        await roundTrip()
        if (state.entries.has(key)) throw appError('conflict', `key ${key} already exists in bucket ${name}`)
        return write(key, value)
      },
      async update(key, value, revision) {
        await roundTrip()
        const current = state.entries.get(key)
        if (current === undefined || current.revision !== revision) {
          throw appError('conflict', `key ${key} in bucket ${name} is not at revision ${revision}`)
        }
        return write(key, value)
      },
      async keys() {
        await roundTrip()
        return [...state.entries.keys()]
      },
      async delete(key) {
        await roundTrip()
        // NATS writes a delete marker, which takes a revision of its own.
        if (state.entries.delete(key)) state.lastRevision += 1
      },
      maxValueBytes: () => maxValueBytes,
    } satisfies KeyValue
  }

  return {
    async open(bucket) {
      await roundTrip()
      let state = buckets.get(bucket)
      if (state === undefined) {
        state = { entries: new Map(), lastRevision: 0 }
        buckets.set(bucket, state)
      }
      return bucketView(bucket, state)
    },
    simulateFailure(error) {
      failure = error
    },
    bucketNames() {
      return [...buckets.keys()]
    },
  } satisfies MemoryKv
}
