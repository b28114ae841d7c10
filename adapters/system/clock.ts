/** The machine's wall clock. */
import type { Clock } from '../../ports/clock.ts'

export function createSystemClock(): Clock {
  return {
    nowMs() {
      return Date.now()
    },
  } satisfies Clock
}
