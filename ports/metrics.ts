import type { TokenType } from '../core/types.ts'

/**
 * The classifier's counters, exported over OTLP when an endpoint is set.
 * On the claude runtime `claude` exports its own; these are for the ACP
 * runtime, which computes cost itself from the settings' prices.
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
}
