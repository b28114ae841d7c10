/**
 * A try-out of one PR (docs/behaviour.md, "Try-out"): the PR read once, then
 * asked once, or for a repeat k times of the same request on that one read.
 * The first run goes alone, so the provider has the PR in its cache before
 * the others ask; the rest go a few at a time (core/try-out/try-out-runs.ts says how
 * many). The classifier refuses two classifications of one name in a run,
 * so asking a rule k times is k runs.
 */
import { repeatRunId, runsAtOnce } from '../../../../core/try-out/try-out-runs.ts'
import { readPullAtOneHead } from '../run/pull-read.ts'
import {
  eachAtMost,
  endNotAsked,
  endSlot,
  failed,
  type RunAsker,
  type Slot,
  type TryOutCommon,
  tryOutRunRequest,
} from './try-out-slots.ts'

/** One PR, asked once, or `repeat` times. */
export type TryOutInput = TryOutCommon & {
  pr: number
  /** The head the POST read; the run reads the PR again and keeps the head it read. */
  headSha: string
  /** How many times to ask each classification (`repeat` in the POST); absent is once, shown without a repeat. */
  repeat?: number
}

/** Runs the one PR's slots (one per run): read once, the first run alone, the rest a few at a time. */
export async function runOnePr(ask: RunAsker, id: string, input: TryOutInput, slots: Slot[]): Promise<void> {
  const [first, ...rest] = slots
  if (first === undefined) return
  first.status = 'running'
  let headSha = first.headSha
  const read = await readPullAtOneHead(input.forge, input.repo, input.pr, (sha) => {
    headSha = sha
  })
  for (const slot of slots) slot.headSha = headSha
  if (!read.ok) {
    for (const slot of slots) endSlot(slot, failed(read.error))
    return
  }
  const firstEnding = await ask(first, tryOutRunRequest(id, input, input.pr, read.value))
  if (firstEnding.outcome === 'failed') {
    // The budget's stop, when it was the budget, else the first run's failure.
    endNotAsked(ask, rest, 'not asked: the first run failed')
    return
  }
  const later = rest.map((slot, i) => ({ slot, runId: repeatRunId(id, i + 2) }))
  await eachAtMost(later, runsAtOnce(input.classifications.length), async ({ slot, runId }) => {
    await ask(slot, tryOutRunRequest(runId, input, input.pr, read.value))
  })
}
