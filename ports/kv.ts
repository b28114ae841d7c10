/**
 * Key-value buckets on the swarm queue (NATS JetStream KV). Values are text:
 * both buckets hold one JSON document per key, and decoding it is the
 * caller's business.
 *
 * Every method may throw `unavailable` (not connected to the queue) or
 * `timeout` (the server did not answer in time); the controller answers 503
 * for both.
 */

export type KvEntry = {
  value: string
  /** The key's current revision, to name in a compare-and-set `update`. */
  revision: number
}

/** One bucket. Revisions grow with every write to the bucket. */
export type KeyValue = {
  /** The key's value and revision, or `null` when it was never written. */
  get(key: string): Promise<KvEntry | null>
  /** Writes a key that must not exist yet; `conflict` when it does. Returns the new revision. */
  create(key: string, value: string): Promise<number>
  /**
   * Compare-and-set: writes only if the key is still at `revision`;
   * `conflict` when another write came first. Returns the new revision.
   */
  update(key: string, value: string, revision: number): Promise<number>
  /** Every key that holds a value, in no particular order; a deleted key is not one. */
  keys(): Promise<string[]>
  /** Removes the key, if it exists: `get` then answers `null`, and `create` may write it again. */
  delete(key: string): Promise<void>
  /**
   * The most UTF-8 bytes a value may hold: a larger one is refused with
   * `invalid`. On NATS it follows the server's `max_payload` as the
   * connection last heard it, less room for a write's headers.
   */
  maxValueBytes(): number
}

export type KvBuckets = {
  /** The bucket by name, created on first use with history 1; the same name gives the same bucket. */
  open(bucket: string): Promise<KeyValue>
}
