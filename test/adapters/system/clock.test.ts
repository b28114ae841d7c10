import { describe, expect, it } from 'bun:test'
import { createSystemClock } from '../../../adapters/system/clock.ts'

describe('createSystemClock', () => {
  it('reads the wall clock: nowMs() falls between two readings of Date.now()', () => {
    const clock = createSystemClock()
    const before = Date.now()
    const ms = clock.nowMs()
    const after = Date.now()
    expect(ms).toBeGreaterThanOrEqual(before)
    expect(ms).toBeLessThanOrEqual(after)
  })

  it('never runs backwards across successive readings', () => {
    const clock = createSystemClock()
    let last = clock.nowMs()
    for (let i = 0; i < 1_000; i += 1) {
      const next = clock.nowMs()
      expect(next).toBeGreaterThanOrEqual(last)
      last = next
    }
  })
})
