/**
 * The one JSON line each run logs when it answers (README, "A run"): what
 * it was asked of, its verdict and each row's, its duration, the tokens
 * it spent and what it cost toward the budget, never the diff, the commit text or the key.
 */
import type { Row, RunReply, RunRequest, Usage } from '../../core/types.ts'
import type { Logger } from '../../ports/logger.ts'

function usageTotals(rows: readonly Row[]): Usage {
  const total: Usage = { input: 0, output: 0, cache_read: 0, cache_write: 0 }
  for (const row of rows) {
    if (row.usage === undefined) continue
    total.input += row.usage.input
    total.output += row.usage.output
    total.cache_read += row.usage.cache_read
    total.cache_write += row.usage.cache_write
  }
  return total
}

/** `info` for a run answered, `warn` for one that failed as a whole; `request` is null for one that didn't decode. */
export function logReply(logger: Logger, request: RunRequest | null, reply: RunReply, durationMs: number): void {
  const fields = {
    id: reply.id,
    trigger: request?.trigger,
    repo: request?.repo,
    pr: request?.pr,
    runtime: request?.runtime,
    model: request === null ? undefined : request.runtime === 'acp' ? request.acp?.model : request.model,
    ok: reply.ok,
    error: reply.error,
    overall: reply.overall,
    duration_ms: durationMs,
    // How many secrets the prompt had redacted: a count, never a value.
    redacted: reply.redaction?.redacted,
    usage: usageTotals(reply.rows),
    cost_usd: reply.cost_usd,
    rows: reply.rows.map((row) => ({
      name: row.name,
      verdict: row.verdict,
      certainty: row.certainty,
      counted: row.counted,
      fails: row.fails,
      error: row.error,
      reason: row.reason,
    })),
  }
  if (reply.ok) logger.info('review classifier run answered', fields)
  else logger.warn('review classifier run failed', fields)
}
