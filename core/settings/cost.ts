/**
 * What one classification on the ACP runtime cost, from the settings'
 * prices: the provider's own bill is out of reach, and opencode computes no
 * cost for a provider without prices in its config. And the tokens a whole
 * reply spent, summed over its rows.
 */
import type { AcpPrices, Row, TokenType, Usage } from '../wire/types.ts'

const PER_MILLION = 1_000_000

/**
 * USD for the usage at the prices (USD per million tokens). Cache reads and
 * writes without a price of their own are priced as input: a provider that
 * bills no discount charges them as the input they are.
 */
export function costUsd(usage: Usage, prices: AcpPrices): number {
  const cacheRead = prices.cache_read ?? prices.input
  const cacheWrite = prices.cache_write ?? prices.input
  const micro =
    usage.input * prices.input +
    usage.output * prices.output +
    usage.cache_read * cacheRead +
    usage.cache_write * cacheWrite
  return micro / PER_MILLION
}

/** The usage as the token counter's types, the names `claude_code.token.usage` uses. */
export function tokenCounts(usage: Usage): Record<TokenType, number> {
  return {
    input: usage.input,
    output: usage.output,
    cacheRead: usage.cache_read,
    cacheCreation: usage.cache_write,
  }
}

/** The tokens the rows spent together; a row without usage (no answer, or a runtime that counts none) adds nothing. */
export function rowsUsage(rows: readonly Row[]): Usage {
  const total: Usage = { input: 0, output: 0, cache_read: 0, cache_write: 0 }
  for (const { usage } of rows) {
    if (usage === undefined) continue
    total.input += usage.input
    total.output += usage.output
    total.cache_read += usage.cache_read
    total.cache_write += usage.cache_write
  }
  return total
}
