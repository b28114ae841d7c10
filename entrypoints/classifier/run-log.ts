/**
 * The one JSON line each run logs when it answers (README, "A run"): what
 * it was asked of, its verdict and each row's, its duration, the tokens
 * it spent and what it cost toward the budget, never the diff, the commit text or the key.
 */
import { rowsUsage } from '../../core/settings/cost.ts'
import type { RunReply, RunRequest } from '../../core/wire/types.ts'
import type { Logger } from '../../ports/logger.ts'

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
    usage: rowsUsage(reply.rows),
    cost_usd: reply.cost_usd,
    rows: reply.rows.map((row) => ({
      name: row.name,
      verdict: row.verdict,
      certainty: row.certainty,
      counted: row.counted,
      fails: row.fails,
      mode: row.mode ?? 'blocking',
      in_scope: row.in_scope ?? true,
      blocks: row.blocks ?? row.fails,
      error: row.error,
      reason: row.reason,
    })),
  }
  if (reply.ok) logger.info('review classifier run answered', fields)
  else logger.warn('review classifier run failed', fields)
}
