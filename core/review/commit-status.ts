/**
 * The commit status a review run leaves on the head it read, for whoever
 * reviews next (docs/behaviour.md, "Reviewer handoff"): its context, the
 * state each outcome sets and a one-line description (a request that starts
 * no run sets one of no-run.ts's). A description holds only our own words
 * and counts, never a rule's name, a model's reason or a forge's error, so
 * nothing from outside can reach the places a forge or a client shows it.
 */
import { rowBlocks } from '../run/aggregate.ts'
import type { CommitStatusState, Overall, Row } from '../wire/types.ts'

/** The status's name on the forge; a branch protection rule requires it by this name. */
export const COMMIT_STATUS_CONTEXT = 'review-classifier'

/** What a status says: its state and its one-line description. */
export type StatusText = { state: CommitStatusState; description: string }

/** The fields of a row a description counts. */
export type CountedRow = Pick<Row, 'counted' | 'fails' | 'verdict' | 'error' | 'blocks'>

/** A status the forge refused, for the run's detail. */
export type StatusProblem = { state: CommitStatusState; error: string }

const VERDICT_STATE = {
  approve: 'success',
  'request-changes': 'failure',
  'no-verdict': 'error',
} as const satisfies Record<Overall, CommitStatusState>

function rules(count: number): string {
  return count === 1 ? '1 rule' : `${count} rules`
}

function countedOf(rows: readonly CountedRow[]): string {
  return `${rows.filter((row) => row.counted).length} of ${rules(rows.length)} counted`
}

/** An error wins over an answer, as in aggregation and the review table. */
function unanswered(row: CountedRow): boolean {
  return row.error !== null || row.verdict === null
}

/** Counted failures of advisory rules: shown, never blocking. */
function advisoryFailures(rows: readonly CountedRow[]): number {
  return rows.filter((row) => row.counted && row.fails && !rowBlocks(row)).length
}

/** `N of M counted`, short, for a description that has advisory failures to say too (80 characters at most). */
function shortCountedOf(rows: readonly CountedRow[]): string {
  return `${rows.filter((row) => row.counted).length} of ${rows.length} counted`
}

const VERDICT_DESCRIPTION: Record<Overall, (rows: readonly CountedRow[]) => string> = {
  approve: (rows) => {
    const advisory = advisoryFailures(rows)
    if (advisory === 0) return `Approve: no counted rule fails (${countedOf(rows)})`
    const fail = advisory === 1 ? '1 advisory rule fails' : `${advisory} advisory rules fail`
    return `Approve: ${fail}, advisory rules don't block (${shortCountedOf(rows)})`
  },
  'request-changes': (rows) => {
    const failing = rows.filter((row) => row.counted && rowBlocks(row)).length
    const fail = failing === 1 ? '1 counted rule fails' : `${failing} counted rules fail`
    const advisory = advisoryFailures(rows)
    if (advisory === 0) return `Request changes: ${fail} (${countedOf(rows)})`
    return `Request changes: ${fail}, ${advisory} advisory (${shortCountedOf(rows)})`
  },
  'no-verdict': (rows) => {
    const missing = rows.filter(unanswered).length
    return missing > 0
      ? `No verdict: ${missing} of ${rules(rows.length)} got no answer`
      : 'No verdict: the run ended without a clean verdict'
  },
}

/** Set once the run has its place and has read the PR, before it asks the classifier. */
export const PENDING_STATUS: StatusText = {
  state: 'pending',
  description: "Checking this commit against the repo's rules",
}

/**
 * The status a finished run sets: `success` for approve, `failure` for
 * request changes, `error` for no verdict. `rows` are the controller's own
 * check of the reply, `null` when the classifier never answered.
 */
export function verdictStatus(overall: Overall, rows: readonly CountedRow[] | null): StatusText {
  return { state: VERDICT_STATE[overall], description: VERDICT_DESCRIPTION[overall](rows ?? []) }
}

/**
 * The refused statuses as one part of the run's detail, the states that
 * failed for one reason named together, or `null` when none was refused.
 */
export function describeStatusProblems(problems: readonly StatusProblem[]): string | null {
  const byError = new Map<string, CommitStatusState[]>()
  for (const { state, error } of problems) byError.set(error, [...(byError.get(error) ?? []), state])
  const parts = [...byError].map(
    ([error, states]) => `the commit status couldn't be set (${states.join(', ')}): ${error}`,
  )
  return parts.length === 0 ? null : parts.join('; ')
}
