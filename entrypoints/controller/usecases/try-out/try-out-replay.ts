/**
 * A replay (docs/behaviour.md, "Try-out"): the classifications run on each
 * of the repo's last PRs, a few PRs at a time (core/try-out/try-out-runs.ts says how
 * many), each one a run of its own, recorded under its own id as soon as it
 * ends.
 */
import { errorKind } from '../../../../core/base/errors.ts'
import { replayRunId, runsAtOnce } from '../../../../core/try-out/try-out-runs.ts'
import type { Clock } from '../../../../ports/clock.ts'
import type { ForgePullRequest } from '../../../../ports/forge.ts'
import type { Logger } from '../../../../ports/logger.ts'
import { readPullAtOneHead } from '../run/pull-read.ts'
import type { RunStore } from '../run/run-store.ts'
import { tryOutRecord } from './try-out-record.ts'
import {
  eachAtMost,
  endSlot,
  failed,
  guarded,
  type RunAsker,
  type Slot,
  type TryOutCommon,
  tryOutRunRequest,
} from './try-out-slots.ts'

/** The repo's last PRs, as the POST listed them (newest first). */
export type ReplayInput = TryOutCommon & {
  /** How many PRs the POST asked for (`replay`). */
  count: number
  pulls: ForgePullRequest[]
}

/** One listed PR and its run. */
export type ReplayLineSlot = { pull: ForgePullRequest; slot: Slot }

export type ReplayDeps = { ask: RunAsker; runs: Pick<RunStore, 'record'>; clock: Clock; logger: Logger }

/** Runs every line, a few at a time, and records each as soon as its run ends. */
export async function runReplay(
  deps: ReplayDeps,
  id: string,
  input: ReplayInput,
  lines: ReplayLineSlot[],
): Promise<void> {
  await eachAtMost(lines, runsAtOnce(input.classifications.length), async ({ pull, slot }) => {
    const runId = replayRunId(id, pull.number)
    const startedMs = deps.clock.nowMs()
    await guarded(deps.logger, runId, [slot], async () => {
      // Once the budget or the drain stopped the replay, a PR isn't read for a run that won't be sent.
      const stopped = deps.ask.stopped()
      if (stopped !== null) return endSlot(slot, stopped)
      slot.status = 'running'
      let headSha = slot.headSha
      const read = await readPullAtOneHead(input.forge, input.repo, pull.number, (sha) => {
        headSha = sha
      })
      slot.headSha = headSha
      if (!read.ok) endSlot(slot, failed(read.error))
      else await deps.ask(slot, tryOutRunRequest(runId, input, pull.number, read.value))
    })
    const record = tryOutRecord(
      { id: runId, repo: input.repo, pr: pull.number, requester: input.requester },
      slot,
      { startedMs, finishedMs: deps.clock.nowMs() },
      slot.ended?.detail ?? null,
    )
    await deps.runs.record(record).catch((error: unknown) => {
      // `RunStore.record` never throws by contract; one that does must not stop the other PRs.
      deps.logger.error('review classifier try-out could not be recorded', { id: runId, kind: errorKind(error) })
    })
  })
}
