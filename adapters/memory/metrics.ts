/** Metrics that only remember what was added, for assertions. */
import type { TokenType } from '../../core/wire/types.ts'
import type { MetricLabels, Metrics, RuleOutcomeLabels } from '../../ports/metrics.ts'

export type RecordedCost = { usd: number; labels: MetricLabels }
export type RecordedTokens = { count: number; labels: MetricLabels & { type: TokenType } }

export type RecordingMetrics = Metrics & {
  readonly costs: RecordedCost[]
  readonly tokens: RecordedTokens[]
  /** The day spend gauge's last value per day. */
  readonly daySpend: Map<string, number>
  /** What was added to the rule outcome counter, in order. */
  readonly ruleOutcomes: Array<{ count: number; labels: RuleOutcomeLabels }>
  /** The sum added to the token counter for one type. */
  tokenTotal(type: TokenType): number
  /** The sum added to the cost counter. */
  costTotal(): number
}

export function createRecordingMetrics(): RecordingMetrics {
  const costs: RecordedCost[] = []
  const tokens: RecordedTokens[] = []
  const daySpend = new Map<string, number>()
  const ruleOutcomes: Array<{ count: number; labels: RuleOutcomeLabels }> = []
  return {
    costs,
    tokens,
    daySpend,
    ruleOutcomes,
    addRuleOutcome(count, labels) {
      ruleOutcomes.push({ count, labels: { ...labels } })
    },
    setDaySpend(usd, day) {
      daySpend.set(day, usd)
    },
    addCost(usd, labels) {
      costs.push({ usd, labels: { ...labels } })
    },
    addTokens(count, labels) {
      tokens.push({ count, labels: { ...labels } })
    },
    tokenTotal(type) {
      return tokens.filter((t) => t.labels.type === type).reduce((sum, t) => sum + t.count, 0)
    },
    costTotal() {
      return costs.reduce((sum, c) => sum + c.usd, 0)
    },
  } satisfies RecordingMetrics
}
