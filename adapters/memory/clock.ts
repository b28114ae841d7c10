/** A clock that stands still until a test moves it. */
import type { Clock } from '../../ports/clock.ts'

export type FixedClock = Clock & {
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void
  /** Sets the clock to `at`. */
  set(at: Date | number): void
}

/** Starts at `start`, 2026-01-01T00:00:00Z by default. */
export function createFixedClock(start: Date | number = Date.UTC(2026, 0, 1)): FixedClock {
  let nowMs = typeof start === 'number' ? start : start.getTime()
  return {
    nowMs() {
      return nowMs
    },
    advance(ms) {
      nowMs += ms
    },
    set(at) {
      nowMs = typeof at === 'number' ? at : at.getTime()
    },
  } satisfies FixedClock
}
