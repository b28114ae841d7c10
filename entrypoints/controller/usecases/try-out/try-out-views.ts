/**
 * What `GET /api/review-classifier/try-out/{id}` answers while a try-out
 * runs and once it ended (docs/behaviour.md, "Try-out"): the one PR's run
 * (its rows, or a repeat's answers per classification), or a replay's line
 * per PR.
 */

import { summariseAnswers } from '../../../../core/try-out/try-out-runs.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { ReplayLine, TryOutView } from '../../../../core/wire/types.ts'
import type { TryOutInput } from './try-out-repeat.ts'
import type { ReplayInput, ReplayLineSlot } from './try-out-replay.ts'
import { isOver, newSlot, rowOf, type Slot, shownRows } from './try-out-slots.ts'

/** One PR's try-out: the first run's rows, and for a repeat every run's answer per classification. */
export function onePrView(
  id: string,
  input: Pick<TryOutInput, 'repo' | 'pr' | 'classifications' | 'repeat'>,
  slots: readonly Slot[],
): TryOutView {
  const sent = input.classifications
  const first = slots[0] ?? newSlot(null)
  const count = slots.length
  const running = slots.some((slot) => !isOver(slot))
  const failedAt = slots.findIndex((slot) => slot.status === 'failed')
  const failure = slots[failedAt]?.ended?.detail ?? null
  const view: TryOutView = {
    id,
    status: running ? 'running' : failedAt >= 0 ? 'failed' : 'done',
    repo: repoName(input.repo),
    pr: input.pr,
    head_sha: first.headSha,
    rows: shownRows(first, sent),
    overall: first.ended?.overall ?? null,
    detail: running || failure === null ? null : count > 1 ? `run ${failedAt + 1} of ${count}: ${failure}` : failure,
    // Every run of a repeat redacts the same PR the same way: the first run's says it.
    ...redactionOf(first),
  }
  if (input.repeat === undefined) return view
  const classifications = sent.map(({ name }) => {
    const answers = slots.flatMap((slot) => rowOf(slot, name) ?? [])
    return { name, answers, ...summariseAnswers(answers) }
  })
  return { ...view, repeat: { count, classifications } }
}

function lineView(line: ReplayLineSlot, sent: TryOutInput['classifications']): ReplayLine {
  const { pull, slot } = line
  return {
    pr: pull.number,
    title: pull.title,
    url: pull.htmlUrl,
    status: slot.status,
    head_sha: slot.headSha,
    rows: shownRows(slot, sent),
    overall: slot.ended?.overall ?? null,
    detail: slot.ended?.detail ?? null,
    ...redactionOf(slot),
  }
}

function redactionOf(slot: Slot): Pick<TryOutView, 'redaction'> {
  const redaction = slot.ended?.redaction ?? null
  return redaction === null ? {} : { redaction }
}

/** A replay: running until every line ended, failed only when none of its PRs could be run. */
export function replayView(
  id: string,
  input: Pick<ReplayInput, 'repo' | 'count' | 'classifications'>,
  lines: readonly ReplayLineSlot[],
): TryOutView {
  const running = lines.some(({ slot }) => !isOver(slot))
  const none = !running && lines.length > 0 && lines.every(({ slot }) => slot.status === 'failed')
  return {
    id,
    status: running ? 'running' : none ? 'failed' : 'done',
    repo: repoName(input.repo),
    pr: null,
    head_sha: null,
    rows: null,
    overall: null,
    detail: none ? `none of the ${lines.length} PRs could be run; each line says why` : null,
    replay: { count: input.count, pulls: lines.map((line) => lineView(line, input.classifications)) },
  }
}
