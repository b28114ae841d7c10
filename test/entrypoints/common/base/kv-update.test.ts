import { describe, expect, it } from 'bun:test'
import { createMemoryKv } from '../../../../adapters/memory/kv.ts'
import { appError, isAppError } from '../../../../core/base/errors.ts'
import { updateWithRetry } from '../../../../entrypoints/common/base/kv-update.ts'
import type { KeyValue } from '../../../../ports/kv.ts'

function appendTo(item: string) {
  return (current: string | null): string => {
    const list: unknown = current === null ? [] : JSON.parse(current)
    return JSON.stringify([...(Array.isArray(list) ? list : []), item])
  }
}

async function aBucket(): Promise<KeyValue> {
  return createMemoryKv().open('review-classifier-runs')
}

describe('updateWithRetry', () => {
  it('creates a key never written, passing null to the update', async () => {
    const kv = await aBucket()
    const seen: Array<string | null> = []
    const written = await updateWithRetry(kv, 'recent', (current) => {
      seen.push(current)
      return '["first"]'
    })
    expect(seen).toEqual([null])
    expect(await kv.get('recent')).toEqual({ value: '["first"]', revision: written.revision })
  })

  it('loses nothing when many writers append to one list at once', async () => {
    const kv = await aBucket()
    const writers = 10
    const appendsEach = 10
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let i = 0; i < appendsEach; i += 1)
          await updateWithRetry(kv, 'recent', appendTo(`${w}-${i}`), { maxAttempts: writers + 1 })
      }),
    )
    const stored: unknown = JSON.parse((await kv.get('recent'))?.value ?? '[]')
    expect(Array.isArray(stored) ? stored.length : -1).toBe(writers * appendsEach)
    expect(new Set(Array.isArray(stored) ? stored : []).size).toBe(writers * appendsEach)
  })

  it('retries on conflict, reading afresh each time', async () => {
    const kv = await aBucket()
    const revision = await kv.create('recent', '["a"]')
    let interfered: Promise<number> | null = null
    const written = await updateWithRetry(kv, 'recent', (current) => {
      // Another writer lands between this read and this write.
      interfered ??= kv.update('recent', '["a","other"]', revision)
      return appendTo('mine')(current)
    })
    await interfered
    expect(JSON.parse(written.value)).toEqual(['a', 'other', 'mine'])
  })

  it('gives up with the conflict after maxAttempts', async () => {
    const kv = await aBucket()
    await kv.create('recent', '[]')
    const alwaysStale: KeyValue = {
      ...kv,
      update: async () => {
        throw appError('conflict', 'wrong last sequence')
      },
    }
    let attempts = 0
    const failure = await updateWithRetry(
      alwaysStale,
      'recent',
      (current) => {
        attempts += 1
        return current ?? ''
      },
      { maxAttempts: 3 },
    ).catch((error: unknown) => error)
    expect(isAppError(failure, 'conflict')).toBe(true)
    expect(attempts).toBe(3)
  })

  it('rethrows any other error at once', async () => {
    const kv = await aBucket()
    let attempts = 0
    const down: KeyValue = {
      ...kv,
      create: async () => {
        attempts += 1
        throw appError('unavailable', 'not connected')
      },
    }
    const failure = await updateWithRetry(down, 'recent', () => '[]').catch((error: unknown) => error)
    expect(isAppError(failure, 'unavailable')).toBe(true)
    expect(attempts).toBe(1)
  })
})
