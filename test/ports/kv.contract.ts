/**
 * The KV port's contract, run against every adapter (memory, NATS). `make`
 * must give each test a fresh, isolated set of buckets (a fresh server or
 * store, or buckets purged by `cleanup`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { isAppError } from '../../core/base/errors.ts'
import { updateWithRetry } from '../../entrypoints/common/base/kv-update.ts'
import type { KvBuckets } from '../../ports/kv.ts'

export type KvHarness = {
  buckets: KvBuckets
  cleanup(): Promise<void>
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    return isAppError(error) ? error.code : `not an AppError: ${String(error)}`
  }
  return 'resolved'
}

export function kvContract(name: string, make: () => Promise<KvHarness>): void {
  describe(`KvBuckets contract (${name})`, () => {
    let harness: KvHarness
    beforeEach(async () => {
      harness = await make()
    })
    afterEach(async () => {
      await harness.cleanup()
    })

    it('answers null for a key never written', async () => {
      const kv = await harness.buckets.open('contract-a')
      expect(await kv.get('recent')).toBeNull()
    })

    it('creates a key and reads it back at the revision create answered', async () => {
      const kv = await harness.buckets.open('contract-a')
      const revision = await kv.create('recent', '[1]')
      expect(await kv.get('recent')).toEqual({ value: '[1]', revision })
    })

    it('refuses to create a key that exists with conflict and keeps its value', async () => {
      const kv = await harness.buckets.open('contract-a')
      await kv.create('recent', 'first')
      expect(await codeOf(kv.create('recent', 'second'))).toBe('conflict')
      expect((await kv.get('recent'))?.value).toBe('first')
    })

    it('updates at the current revision and moves the revision forward', async () => {
      const kv = await harness.buckets.open('contract-a')
      const first = await kv.create('recent', 'one')
      const second = await kv.update('recent', 'two', first)
      expect(second).toBeGreaterThan(first)
      expect(await kv.get('recent')).toEqual({ value: 'two', revision: second })
    })

    it('refuses an update at a stale revision with conflict and keeps the newer value', async () => {
      const kv = await harness.buckets.open('contract-a')
      const stale = await kv.create('recent', 'one')
      await kv.update('recent', 'two', stale)
      expect(await codeOf(kv.update('recent', 'three', stale))).toBe('conflict')
      expect((await kv.get('recent'))?.value).toBe('two')
    })

    it('refuses an update of a key never written with conflict', async () => {
      const kv = await harness.buckets.open('contract-a')
      expect(await codeOf(kv.update('recent', 'x', 1))).toBe('conflict')
      expect(await kv.get('recent')).toBeNull()
    })

    it('lets exactly one of two concurrent updates at one revision win', async () => {
      const kv = await harness.buckets.open('contract-a')
      const revision = await kv.create('recent', 'base')
      const outcomes = await Promise.allSettled([
        kv.update('recent', 'a', revision),
        kv.update('recent', 'b', revision),
      ])
      const won = outcomes.filter((o) => o.status === 'fulfilled')
      const lost = outcomes.filter((o) => o.status === 'rejected' && isAppError(o.reason, 'conflict'))
      expect([won.length, lost.length]).toEqual([1, 1])
      expect(['a', 'b']).toContain((await kv.get('recent'))?.value ?? '')
    })

    it('lists the keys that hold a value, and none of another bucket', async () => {
      const kv = await harness.buckets.open('contract-a')
      expect(await kv.keys()).toEqual([])
      await kv.create('2026-12-01', 'one')
      const revision = await kv.create('2026-12-02', 'two')
      await kv.update('2026-12-02', 'three', revision)
      await (await harness.buckets.open('contract-b')).create('elsewhere', 'x')
      expect((await kv.keys()).sort()).toEqual(['2026-12-01', '2026-12-02'])
    })

    it('deletes a key: it reads as absent, is no longer listed, and create writes it again', async () => {
      const kv = await harness.buckets.open('contract-a')
      await kv.create('2026-11-01', 'old')
      await kv.create('2026-12-01', 'kept')
      await kv.delete('2026-11-01')
      expect(await kv.get('2026-11-01')).toBeNull()
      expect(await kv.keys()).toEqual(['2026-12-01'])
      const revision = await kv.create('2026-11-01', 'again')
      expect(await kv.get('2026-11-01')).toEqual({ value: 'again', revision })
    })

    it('deletes a key never written without an error', async () => {
      const kv = await harness.buckets.open('contract-a')
      await kv.delete('never')
      expect(await kv.get('never')).toBeNull()
      expect(await kv.keys()).toEqual([])
    })

    it('opens the same bucket for the same name and a separate one for another name', async () => {
      const one = await harness.buckets.open('contract-a')
      await one.create('k', 'in a')
      const again = await harness.buckets.open('contract-a')
      const other = await harness.buckets.open('contract-b')
      expect((await again.get('k'))?.value).toBe('in a')
      expect(await other.get('k')).toBeNull()
    })

    it('keeps text exactly, unicode and a 200 KB document included', async () => {
      const kv = await harness.buckets.open('contract-a')
      const text = `${'ünïcødé ✓ — 🚀\n'.repeat(10)}${'x'.repeat(200_000)}`
      await kv.create('recent', text)
      expect((await kv.get('recent'))?.value).toBe(text)
    })

    it('takes a value of maxValueBytes() UTF-8 bytes, on create and on update', async () => {
      const kv = await harness.buckets.open('contract-a')
      const max = kv.maxValueBytes()
      expect(max).toBeGreaterThan(0)
      // Two-byte characters, so a bound counted in UTF-16 units would let twice as much through.
      const full = `${'é'.repeat(Math.floor(max / 2) - 1)}${'x'.repeat(max % 2)}xx`
      expect(new TextEncoder().encode(full).byteLength).toBe(max)
      const revision = await kv.create('recent', full)
      expect((await kv.get('recent'))?.value).toBe(full)
      await kv.update('recent', `${full.slice(1)}y`, revision)
    })

    it('loses no write when concurrent writers append through updateWithRetry', async () => {
      const kv = await harness.buckets.open('contract-a')
      const writers = 4
      const appendsEach = 8
      await Promise.all(
        Array.from({ length: writers }, async (_, writer) => {
          for (let i = 0; i < appendsEach; i += 1) {
            await updateWithRetry(kv, 'recent', (current) => {
              const list: unknown = current === null ? [] : JSON.parse(current)
              return JSON.stringify([...(Array.isArray(list) ? list : []), `${writer}-${i}`])
            })
          }
        }),
      )
      const stored: unknown = JSON.parse((await kv.get('recent'))?.value ?? '[]')
      expect(Array.isArray(stored) ? [...stored].sort() : stored).toEqual(
        Array.from({ length: writers }, (_, w) => Array.from({ length: appendsEach }, (_, i) => `${w}-${i}`))
          .flat()
          .sort(),
      )
    })
  })
}
