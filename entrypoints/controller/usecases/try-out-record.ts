/**
 * A try-out's run as the run store records it (docs/behaviour.md, "Run store
 * and retention"): one PR's under the try-out's id, a replay's PRs each
 * under its own.
 */
import { repoName } from '../../../core/repo.ts'
import type { RunRecord, TryOutOutcome } from '../../../core/run-record.ts'
import type { RepoRef } from '../../../core/types.ts'
import type { Slot } from './try-out-slots.ts'

/** `done` only for a slot that ended done with nothing to say; anything else is `failed` with `detail`. */
export function tryOutRecord(
  run: { id: string; repo: RepoRef; pr: number; requester: string },
  slot: Slot,
  times: { startedMs: number; finishedMs: number },
  detail: string | null,
): RunRecord {
  const outcome: TryOutOutcome = slot.status === 'done' && detail === null ? 'done' : 'failed'
  const rows = slot.ended?.rows ?? null
  const redaction = slot.ended?.redaction ?? null
  return {
    id: run.id,
    trigger: 'try-out',
    repo: repoName(run.repo),
    pr: run.pr,
    requester: run.requester,
    ...(slot.headSha === null ? {} : { head_sha: slot.headSha }),
    started_unix: Math.floor(times.startedMs / 1000),
    finished_unix: Math.floor(times.finishedMs / 1000),
    outcome,
    ...(detail === null ? {} : { detail }),
    ...(rows === null ? {} : { rows, overall: slot.ended?.overall ?? 'no-verdict' }),
    ...(redaction === null ? {} : { redacted: redaction.redacted }),
  }
}
