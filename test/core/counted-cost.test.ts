import { describe, expect, it } from 'bun:test'
import { countedCostUsd } from '../../core/counted-cost.ts'

describe('countedCostUsd', () => {
  it("counts the runtime's own figure on the API key and ACP runtimes, and none reported as none", () => {
    expect(countedCostUsd('api-key', 0.5)).toBe(0.5)
    expect(countedCostUsd('acp', 1.25)).toBe(1.25)
    expect(countedCostUsd('api-key', null)).toBeNull()
  })

  it("counts nothing on the subscription, whatever the CLI's notional list-price figure", () => {
    expect(countedCostUsd('subscription', 0.5)).toBe(0)
    expect(countedCostUsd('subscription', null)).toBe(0)
  })
})
