import { describe, expect, it } from 'bun:test'
import { createMemoryKv } from '../../../adapters/memory/kv.ts'
import { appError, isAppError } from '../../../core/base/errors.ts'
import { kvContract } from '../../ports/kv.contract.ts'

kvContract('memory', async () => ({ buckets: createMemoryKv(), cleanup: async () => undefined }))

describe('createMemoryKv', () => {
  it('creates a bucket on first open only', async () => {
    const kv = createMemoryKv()
    await kv.open('review-classifier-runs')
    await kv.open('review-classifier-runs')
    expect(kv.bucketNames()).toEqual(['review-classifier-runs'])
  })

  it('rejects every call with the simulated failure until it is cleared', async () => {
    const kv = createMemoryKv()
    const bucket = await kv.open('review-classifier-settings')
    kv.simulateFailure(appError('unavailable', 'not connected'))
    const failures = await Promise.all(
      [bucket.get('all'), bucket.create('all', '{}'), kv.open('other')].map((p) => p.catch((e: unknown) => e)),
    )
    expect(failures.every((f) => isAppError(f, 'unavailable'))).toBe(true)
    kv.simulateFailure(null)
    expect(await bucket.get('all')).toBeNull()
  })

  it('refuses a value over its max_payload with invalid, as a NATS server does, and keeps the old one', async () => {
    const bucket = await createMemoryKv({ maxValueBytes: 10 }).open('review-classifier-runs')
    const revision = await bucket.create('recent', '0123456789')
    const failure = await bucket.update('recent', '€€€€', revision).catch((error: unknown) => error)
    expect(isAppError(failure, 'invalid')).toBe(true)
    expect(isAppError(failure) ? failure.message : '').toContain('max_payload')
    expect((await bucket.get('recent'))?.value).toBe('0123456789')
  })

  it('numbers revisions per bucket, as one stream per bucket does', async () => {
    const kv = createMemoryKv()
    const a = await kv.open('a')
    const b = await kv.open('b')
    expect([await a.create('x', '1'), await a.create('y', '2'), await b.create('x', '3')]).toEqual([1, 2, 1])
  })
})
