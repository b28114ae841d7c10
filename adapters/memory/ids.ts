/** Predictable ids: `run-1`, `run-2`, … and `00000001`, `00000002`, … */
import type { Ids } from '../../ports/ids.ts'

export function createSequenceIds(prefix = 'run-'): Ids {
  let runs = 0
  let hexes = 0
  return {
    runId() {
      runs += 1
      return `${prefix}${runs}`
    },
    hex8() {
      hexes += 1
      return (hexes % 0x1_0000_0000).toString(16).padStart(8, '0')
    },
  } satisfies Ids
}
