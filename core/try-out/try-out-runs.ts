/**
 * How a repeated or replayed try-out becomes runs, and what a repeat's
 * answers add up to (docs/behaviour.md, "Try-out"; docs/decisions.md, "Wire
 * formats"). Pure and dependency-free but for types; the bounds of
 * `repeat` and `replay` are in limits.ts, which the try-out page bundles too.
 *
 * The classifier refuses two classifications of one name in a run, so
 * asking a rule k times is k runs of the same request. The first run goes
 * alone, so the provider has the PR in its cache before the others ask; the
 * rest, and a replay's PRs, go a few runs at a time, so that the sessions
 * they start together stay within {@link SESSIONS_ASSUMED}, the classifier's
 * default `MAX_SESSIONS`. (A classifier with a lower cap queues the rest
 * itself; a run's deadline starts only when its session does.)
 */
import type { RecordedRow, Verdict } from '../wire/types.ts'

/** The classifier's default `MAX_SESSIONS`: what the runs started together are kept within. */
export const SESSIONS_ASSUMED = 8

/** How many runs of `classifications` classifications go at once. */
export function runsAtOnce(classifications: number): number {
  return Math.max(1, Math.floor(SESSIONS_ASSUMED / Math.max(1, classifications)))
}

/**
 * The id of a repeat's run `index` (1-based): the first is the try-out's own
 * id, the others add `-<index>`, still one subject token for the run's
 * progress (docs/decisions.md, "Run progress").
 */
export function repeatRunId(id: string, index: number): string {
  return index === 1 ? id : `${id}-${index}`
}

/** The id of a replay's run on PR `pr`: the try-out's id and `-pr<pr>`; also the id it's recorded under. */
export function replayRunId(id: string, pr: number): string {
  return `${id}-pr${pr}`
}

export type VerdictCounts = Record<Verdict | 'unanswered', number>

export type CertaintySpread = { min: number; median: number; max: number }

export type AnswerSummary = {
  /**
   * How many times the counted outcome (pass, fail, uncounted) changed from
   * one answer to the next: what would flip the review. Unanswered ones are
   * skipped: a run that failed isn't the rule changing its mind.
   */
  flips: number
  /** How many times the raw verdict changed from one answer to the next, counted or not; unanswered ones skipped. */
  verdict_flips: number
  verdicts: VerdictCounts
  /** Over the answered ones; null when none was answered. */
  certainty: CertaintySpread | null
}

/** A row's effect on the review, as its (re-checked) `counted` and `fails` say. */
function outcomeOf(row: RecordedRow): 'pass' | 'fail' | 'uncounted' {
  if (!row.counted) return 'uncounted'
  return row.fails ? 'fail' : 'pass'
}

/** What one classification's answers, in the order they were asked, add up to. */
export function summariseAnswers(answers: readonly RecordedRow[]): AnswerSummary {
  const verdicts: VerdictCounts = { match: 0, 'no-match': 0, 'not-applicable': 0, unanswered: 0 }
  const certainties: number[] = []
  let flips = 0
  let verdictFlips = 0
  let previous: RecordedRow | null = null
  for (const answer of answers) {
    if (answer.verdict === null) {
      verdicts.unanswered += 1
      continue
    }
    verdicts[answer.verdict] += 1
    if (answer.certainty !== null) certainties.push(answer.certainty)
    if (previous !== null && outcomeOf(previous) !== outcomeOf(answer)) flips += 1
    if (previous !== null && previous.verdict !== answer.verdict) verdictFlips += 1
    previous = answer
  }
  return { flips, verdict_flips: verdictFlips, verdicts, certainty: spread(certainties) }
}

function spread(values: readonly number[]): CertaintySpread | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  const median =
    sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
  return { min: sorted[0] ?? 0, median, max: sorted[sorted.length - 1] ?? 0 }
}
