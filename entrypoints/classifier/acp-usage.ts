/**
 * What an ACP run spent, as metrics: its cost in USD from the run's own
 * prices, and its tokens under the types `claude_code.token.usage` uses, so
 * the cache hit rate reads the same on every runtime. The API key runtime's
 * claude exports its own.
 */
import { costUsd, tokenCounts } from '../../core/settings/cost.ts'
import type { RunRequest, TokenType, Usage } from '../../core/wire/types.ts'
import type { MetricLabels, Metrics } from '../../ports/metrics.ts'

const TOKEN_TYPES: readonly TokenType[] = ['input', 'output', 'cacheRead', 'cacheCreation']

/** Adds one answer's usage; nothing for a run without an ACP provider. */
export function recordAcpUsage(metrics: Metrics, request: RunRequest, usage: Usage): void {
  if (request.acp === null) return
  const labels: MetricLabels = { repo: request.repo, pr: request.pr, model: request.acp.model }
  metrics.addCost(costUsd(usage, request.acp.prices), labels)
  const counts = tokenCounts(usage)
  for (const type of TOKEN_TYPES) metrics.addTokens(counts[type], { ...labels, type })
}
