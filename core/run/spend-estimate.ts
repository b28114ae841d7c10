/**
 * What a run is estimated to cost before it starts, the amount it reserves
 * against the daily budget (docs/decisions.md, "Daily budget"), and what a
 * session that ended without a cost figure is counted at.
 *
 * The reservation is only as good as its estimate: the budget's promise (at
 * most one run over, whatever runs at once) holds while no run costs more
 * than it reserved. So the estimate errs high on purpose, and on every
 * count: a token per 2 bytes of prompt (English and code run 3 to 4), every
 * input token at the price of a cache write (1.25 times input on Anthropic:
 * the dearest way to read it, where a warm run reads most of it at a tenth),
 * and each question's answer at the run's `max_output_tokens`, the cap every
 * model request it makes is held to, thinking included. An honest run costs
 * a fraction of what it reserves; the excess is given back the moment its
 * reply settles the reservation.
 */

import type { AcpProvider, RunRequest, Runtime } from '../wire/types.ts'
import { DEFAULT_CONTEXT_BUDGET_BYTES, utf8Length } from './budget.ts'
import { SYSTEM_PROMPT } from './prompt.ts'

/** Prompt bytes per token, as the estimate counts them: fewer than any real text needs, so it errs high. */
export const ESTIMATE_BYTES_PER_TOKEN = 2
/** What the runtime adds to every session's prompt of its own (claude's identity line and environment, opencode's prompt). */
export const ESTIMATE_RUNTIME_OVERHEAD_TOKENS = 2_000
/** Per question: its name, description and the fixed question text around them. */
const QUESTION_OVERHEAD_BYTES = 600

/** USD per million tokens. */
export type TokenPrices = { input: number; output: number; cacheWrite: number }

/**
 * Anthropic's list prices for the Claude families, USD per million tokens
 * (anthropic.com/pricing): Haiku 4.5 $1 / $5 (the dearest Haiku; the CLI's
 * own table, docs/runtimes.md, has the same), Sonnet 4.x $3 / $15, Opus 4
 * and 4.1 $15 / $75 (the dearest Opus). A cache write is 1.25 times input.
 * A model the table doesn't name is counted at the dearest, Opus's.
 */
const CLAUDE_PRICES: ReadonlyArray<{ family: string; input: number; output: number }> = [
  { family: 'haiku', input: 1, output: 5 },
  { family: 'sonnet', input: 3, output: 15 },
  { family: 'opus', input: 15, output: 75 },
]
const DEAREST_CLAUDE = { input: 15, output: 75 }
const CACHE_WRITE_FACTOR = 1.25

/** The prices a run on `runtime` pays; `null` on the subscription, whose cost is notional and counts 0. */
export function runtimePrices(runtime: Runtime, model: string, acp: AcpProvider | null): TokenPrices | null {
  if (runtime === 'subscription') return null
  if (runtime === 'acp') {
    if (acp === null) return null
    const { input, output, cache_write: cacheWrite } = acp.prices
    return { input, output, cacheWrite: cacheWrite ?? input }
  }
  const name = model.toLowerCase()
  const listed = CLAUDE_PRICES.find((entry) => name.includes(entry.family)) ?? DEAREST_CLAUDE
  return { input: listed.input, output: listed.output, cacheWrite: listed.input * CACHE_WRITE_FACTOR }
}

function tokensOf(bytes: number): number {
  return Math.ceil(bytes / ESTIMATE_BYTES_PER_TOKEN)
}

/**
 * What a run reserves: each classification's prompt (the system prompt,
 * the PR as sent, capped at the context budget past which the classifier
 * calls no model, and its question) at the cache-write price, plus its
 * answer at the request's `max_output_tokens` (its output and thinking
 * can't pass that cap). 0 on the subscription.
 */
export function estimateRunUsd(request: RunRequest, contextBudgetBytes = DEFAULT_CONTEXT_BUDGET_BYTES): number {
  const prices = runtimePrices(request.runtime, request.model, request.acp)
  if (prices === null) return 0
  const prBytes =
    utf8Length(request.title) +
    request.commits.reduce((sum, commit) => sum + utf8Length(commit.message), 0) +
    utf8Length(request.diff)
  const sharedTokens =
    tokensOf(utf8Length(SYSTEM_PROMPT) + Math.min(prBytes, contextBudgetBytes)) + ESTIMATE_RUNTIME_OVERHEAD_TOKENS
  let usd = 0
  for (const classification of request.classifications) {
    const questionBytes = utf8Length(classification.name) + utf8Length(classification.description)
    const input = sharedTokens + tokensOf(questionBytes + QUESTION_OVERHEAD_BYTES)
    usd += (input * prices.cacheWrite + request.max_output_tokens * prices.output) / 1_000_000
  }
  return usd
}

/**
 * What a session that ended without a cost figure (stopped at its deadline,
 * a failed process, an agent that reported no tokens) is counted at: its
 * prompt's input tokens at the input price, the part the provider bills
 * first. 0 on the subscription.
 */
export function estimateSessionUsd(
  runtime: Runtime,
  model: string,
  acp: AcpProvider | null,
  promptBytes: number,
): number {
  const prices = runtimePrices(runtime, model, acp)
  if (prices === null) return 0
  return ((tokensOf(promptBytes) + ESTIMATE_RUNTIME_OVERHEAD_TOKENS) * prices.input) / 1_000_000
}
