import type { RuleOutcome } from '../core/review/rule-health.ts'
import type { TokenType } from '../core/wire/types.ts'

/**
 * The service's metrics, exported over OTLP when an endpoint is set. The
 * classifier's counters: on the claude runtime `claude` exports its own;
 * these are for the ACP runtime, which computes cost itself from the
 * settings' prices. The controller's gauge: the day's spend as the budget's
 * ledger holds it; and its counter of each rule's outcomes (rule health).
 */

export type MetricLabels = {
  /** `owner/name` */
  repo: string
  pr: number
  /** The provider's model name. */
  model: string
}

export type Metrics = {
  /** Adds to `hyperhive.review_classifier.cost.usage`, labelled with `currency` `USD`. */
  addCost(usd: number, labels: MetricLabels): void
  /** Adds to `hyperhive.review_classifier.token.usage`, labelled with the token `type`. */
  addTokens(count: number, labels: MetricLabels & { type: TokenType }): void
  /** Sets `hyperhive.review_classifier.spend.daily`: the UTC `day`'s (`YYYY-MM-DD`) total so far, labelled with it and `currency` `USD`. */
  setDaySpend(usd: number, day: string): void
  /** Adds to `hyperhive.review_classifier.rule.outcome`, labelled with `repo`, `rule` and `outcome`. */
  addRuleOutcome(count: number, labels: RuleOutcomeLabels): void
}

export type RuleOutcomeLabels = {
  /** `owner/name` */
  repo: string
  rule: string
  outcome: RuleOutcome
}
