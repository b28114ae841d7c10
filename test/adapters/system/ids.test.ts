import { describe, expect, it } from 'bun:test'
import { createRandomIds } from '../../../adapters/system/ids.ts'

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('createRandomIds', () => {
  it('makes run ids that are version 4 UUIDs (122 random bits)', () => {
    const ids = createRandomIds()
    for (let i = 0; i < 100; i += 1) expect(ids.runId()).toMatch(uuidV4)
  })

  it('never repeats a run id over many draws', () => {
    const ids = createRandomIds()
    const seen = new Set<string>()
    for (let i = 0; i < 20_000; i += 1) seen.add(ids.runId())
    expect(seen.size).toBe(20_000)
  })

  it('makes hex8 values of exactly eight lowercase hex digits', () => {
    const ids = createRandomIds()
    for (let i = 0; i < 1_000; i += 1) expect(ids.hex8()).toMatch(/^[0-9a-f]{8}$/)
  })

  it('spreads hex8 values: few collisions and every digit in every position', () => {
    const ids = createRandomIds()
    const draws = Array.from({ length: 5_000 }, () => ids.hex8())
    // 5,000 draws from 2^32 collide with probability ~0.3%; more than 3 means the source is broken.
    expect(draws.length - new Set(draws).size).toBeLessThanOrEqual(3)
    for (let position = 0; position < 8; position += 1) {
      const digits = new Set(draws.map((d) => d[position]))
      expect(digits.size).toBe(16)
    }
  })

  it('keeps separate instances independent (no shared sequence)', () => {
    const a = createRandomIds()
    const b = createRandomIds()
    expect(a.runId()).not.toBe(b.runId())
  })
})
