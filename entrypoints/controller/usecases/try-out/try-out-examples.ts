/**
 * A try-out against the labelled examples (docs/behaviour.md, "Labelled
 * examples and reliability"): the posted classifications run on every PR of
 * the repo's examples file that has a label for one of them, each PR read
 * once and asked `repeat` times, and the answers scored against the labels
 * by core (reliability.ts) once every PR has ended.
 *
 * The PRs go a few at a time (core/try-out/try-out-runs.ts says how many) and each
 * PR's runs one after the other, the first warming the provider's cache for
 * the rest, so the runs in flight stay within what a replay starts.
 */
import type { AppliedLabels } from '../../../../core/repo-files/examples-file.ts'
import { scoreExamples } from '../../../../core/try-out/reliability.ts'
import { repeatRunId, replayRunId, runsAtOnce } from '../../../../core/try-out/try-out-runs.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { ExamplesLine, RecordedRow, TryOutView, Verdict } from '../../../../core/wire/types.ts'
import type { Logger } from '../../../../ports/logger.ts'
import { readPullAtOneHead } from '../run/pull-read.ts'
import {
  eachAtMost,
  endNotAsked,
  endSlot,
  failed,
  guarded,
  isOver,
  type RunAsker,
  type Slot,
  type TryOutCommon,
  tryOutRunRequest,
} from './try-out-slots.ts'

/** The labelled PRs as the POST found them in the examples file. */
export type ExamplesInput = TryOutCommon & {
  /** How many times each PR is asked (`repeat`, 1 when the POST left it out). */
  repeat: number
  applied: AppliedLabels
  /** The repo's web page, for each PR's link. */
  repoUrl: string
}

/** One labelled PR and its runs. */
export type ExamplesLineSlots = {
  pr: number
  title: string
  expect: Record<string, Verdict>
  slots: Slot[]
}

/** Each PR's labels for the classifications posted, from the labels that apply. */
function labelsByPr(applied: AppliedLabels): Map<number, Record<string, Verdict>> {
  const byPr = new Map<number, [string, Verdict][]>(applied.prs.map((pr) => [pr, []]))
  for (const { name, labelled } of applied.classifications) {
    for (const { pr, expected } of labelled) byPr.get(pr)?.push([name, expected])
  }
  return new Map([...byPr].map(([pr, labels]) => [pr, Object.fromEntries(labels)]))
}

export function examplesLines(
  input: Pick<ExamplesInput, 'applied' | 'repeat'>,
  newSlot: () => Slot,
): ExamplesLineSlots[] {
  const labels = labelsByPr(input.applied)
  return input.applied.prs.map((pr) => ({
    pr,
    title: '',
    expect: labels.get(pr) ?? {},
    slots: Array.from({ length: input.repeat }, newSlot),
  }))
}

/** The id of run `index` (1-based) on labelled PR `pr`: the replay's id for the PR, then `-<index>`. */
export function examplesRunId(id: string, pr: number, index: number): string {
  return repeatRunId(replayRunId(id, pr), index)
}

/** Runs every labelled PR: read once, then its runs one after the other; a failed read or first run ends the PR. */
export async function runExamples(
  deps: { ask: RunAsker; logger: Logger },
  id: string,
  input: ExamplesInput,
  lines: ExamplesLineSlots[],
): Promise<void> {
  await eachAtMost(lines, runsAtOnce(input.classifications.length), async (line) => {
    await guarded(deps.logger, replayRunId(id, line.pr), line.slots, async () => {
      const [first] = line.slots
      if (first === undefined) return
      // Once the budget or the drain stopped the try-out, a PR isn't read for runs that won't be sent.
      const stopped = deps.ask.stopped()
      if (stopped !== null) {
        for (const slot of line.slots) endSlot(slot, stopped)
        return
      }
      first.status = 'running'
      let headSha: string | null = null
      const read = await readPullAtOneHead(input.forge, input.repo, line.pr, (sha) => {
        headSha = sha
      })
      for (const slot of line.slots) slot.headSha = headSha
      if (!read.ok) {
        for (const slot of line.slots) endSlot(slot, failed(read.error))
        return
      }
      line.title = read.value.pull.title
      for (const [index, slot] of line.slots.entries()) {
        const ending = await deps.ask(
          slot,
          tryOutRunRequest(examplesRunId(id, line.pr, index + 1), input, line.pr, read.value),
        )
        if (index === 0 && ending.outcome === 'failed') {
          endNotAsked(deps.ask, line.slots.slice(1), 'not asked: the first run failed')
          return
        }
      }
    })
  })
}

function lineStatus(slots: readonly Slot[]): ExamplesLine['status'] {
  if (slots.every((slot) => slot.status === 'waiting')) return 'waiting'
  if (slots.some((slot) => !isOver(slot))) return 'running'
  return slots.some((slot) => slot.status === 'failed') ? 'failed' : 'done'
}

/** The rows of a run that ended done; null while it goes or when it failed. */
function doneRows(slot: Slot): RecordedRow[] | null {
  return slot.status === 'done' ? (slot.ended?.rows ?? null) : null
}

function lineView(line: ExamplesLineSlots, repoUrl: string): ExamplesLine {
  const failedAt = line.slots.findIndex((slot) => slot.status === 'failed')
  const failure = line.slots[failedAt]?.ended?.detail ?? null
  const first = line.slots[0]
  return {
    pr: line.pr,
    title: line.title,
    url: `${repoUrl}/pulls/${line.pr}`,
    status: lineStatus(line.slots),
    head_sha: first?.headSha ?? null,
    expect: { ...line.expect },
    runs: line.slots.map(doneRows),
    detail:
      failure === null
        ? null
        : line.slots.length > 1
          ? `run ${failedAt + 1} of ${line.slots.length}: ${failure}`
          : failure,
  }
}

/** The try-out: running until every PR ended, failed only when none could be run, scored once done. */
export function examplesView(
  id: string,
  input: Pick<ExamplesInput, 'repo' | 'repeat' | 'classifications' | 'applied' | 'repoUrl'>,
  lines: readonly ExamplesLineSlots[],
): TryOutView {
  const pulls = lines.map((line) => lineView(line, input.repoUrl))
  const running = pulls.some((line) => line.status === 'waiting' || line.status === 'running')
  const none = !running && pulls.length > 0 && pulls.every((line) => line.status === 'failed')
  const score =
    running || none
      ? null
      : scoreExamples(
          input.classifications,
          input.applied,
          pulls.map(({ pr, runs }) => ({ pr, runs })),
          input.repeat,
        )
  return {
    id,
    status: running ? 'running' : none ? 'failed' : 'done',
    repo: repoName(input.repo),
    pr: null,
    head_sha: null,
    rows: null,
    overall: null,
    detail: none ? `none of the ${pulls.length} labelled PRs could be run; each line says why` : null,
    examples: { repeat: input.repeat, pulls },
    score,
  }
}
