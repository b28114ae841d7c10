/**
 * What a classification's cost counts toward a spend limit, by runtime. The
 * CLI reports a `total_cost_usd` on the subscription too, computed from list
 * prices, but a subscription is paid for by the month and bounded by its own
 * usage limits: nothing a run does there costs money, so it counts 0 (and is
 * not a classification "with no cost figure").
 */
import type { Runtime } from './types.ts'

/** The USD a classification counts: its runtime's reported figure, 0 on the subscription, null when none was reported. */
export function countedCostUsd(runtime: Runtime, reportedUsd: number | null): number | null {
  return runtime === 'subscription' ? 0 : reportedUsd
}
