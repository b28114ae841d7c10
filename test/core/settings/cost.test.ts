import { describe, expect, it } from 'bun:test'
import { costUsd, rowsUsage, tokenCounts } from '../../../core/settings/cost.ts'
import { anUnansweredRow, aRow, aUsage } from '../../support/builders.ts'

describe('costUsd', () => {
  it('prices input and output per million tokens', () => {
    expect(costUsd(aUsage({ input: 2_000_000, output: 500_000 }), { input: 0.5, output: 2 })).toBeCloseTo(2)
  })

  it('prices cache reads and writes as input when they have no price of their own', () => {
    const usage = aUsage({ input: 0, output: 0, cache_read: 1_000_000, cache_write: 3_000_000 })
    expect(costUsd(usage, { input: 0.5, output: 2 })).toBeCloseTo(2)
  })

  it('uses the cache prices when given', () => {
    const usage = aUsage({ input: 1_000_000, output: 0, cache_read: 1_000_000, cache_write: 1_000_000 })
    expect(costUsd(usage, { input: 1, output: 4, cache_read: 0.1, cache_write: 1.25 })).toBeCloseTo(2.35)
  })

  it('is zero for no tokens', () => {
    expect(costUsd(aUsage({ input: 0, output: 0 }), { input: 3, output: 15 })).toBe(0)
  })
})

describe('tokenCounts', () => {
  it('names the four counts as the token counter types them', () => {
    expect(tokenCounts(aUsage({ input: 1, output: 2, cache_read: 3, cache_write: 4 }))).toEqual({
      input: 1,
      output: 2,
      cacheRead: 3,
      cacheCreation: 4,
    })
  })
})

describe('rowsUsage', () => {
  it('sums the four counts over the rows, a row without usage adding nothing', () => {
    const rows = [
      aRow({ usage: aUsage({ input: 1200, output: 40, cache_read: 0, cache_write: 900 }) }),
      anUnansweredRow(),
      aRow({ name: 'no-ads', usage: aUsage({ input: 300, output: 25, cache_read: 900, cache_write: 0 }) }),
    ]
    expect(rowsUsage(rows)).toEqual({ input: 1500, output: 65, cache_read: 900, cache_write: 900 })
  })

  it('is all zeros for no rows', () => {
    expect(rowsUsage([])).toEqual({ input: 0, output: 0, cache_read: 0, cache_write: 0 })
  })
})
