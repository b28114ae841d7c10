import { describe, expect, it } from 'bun:test'
import { createSystemClock } from '../../../adapters/system/clock.ts'

describe('createSystemClock', () => {
  it('reads the wall clock: now() and nowMs() fall between two readings of Date.now()', () => {
    const clock = createSystemClock()
    const before = Date.now()
    const at = clock.now()
    const ms = clock.nowMs()
    const after = Date.now()
    expect(at).toBeInstanceOf(Date)
    expect(at.getTime()).toBeGreaterThanOrEqual(before)
    expect(at.getTime()).toBeLessThanOrEqual(after)
    expect(ms).toBeGreaterThanOrEqual(at.getTime())
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

  it('returns a fresh Date each time, so a caller mutating one cannot move the clock', () => {
    const clock = createSystemClock()
    const first = clock.now()
    first.setTime(0)
    expect(clock.now().getTime()).toBeGreaterThan(0)
  })
})
