/**
 * A try-out's run as the run store records it (docs/behaviour.md, "Run store
 * and retention"): one PR's under the try-out's id, a replay's PRs each
 * under its own, and a try-out against the examples once, under its id,
 * with the labelled PRs it ran instead of one PR.
 */

import type { RunRecord, TryOutOutcome } from '../../../../core/run/run-record.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { RepoRef, TryOutView } from '../../../../core/wire/types.ts'
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

/** A try-out against the examples, once: `done` unless none of its PRs could be run. */
export function examplesRecord(
  run: { id: string; repo: RepoRef; requester: string; prs: number[] },
  times: { startedMs: number; finishedMs: number },
  view: Pick<TryOutView, 'status' | 'detail'>,
): RunRecord {
  const failedWhole = view.status !== 'done'
  return {
    id: run.id,
    trigger: 'try-out',
    repo: repoName(run.repo),
    labelled_prs: [...run.prs],
    requester: run.requester,
    started_unix: Math.floor(times.startedMs / 1000),
    finished_unix: Math.floor(times.finishedMs / 1000),
    outcome: failedWhole ? 'failed' : 'done',
    ...(failedWhole ? { detail: view.detail ?? 'the try-out failed' } : {}),
  }
}
