/**
 * A review request that starts no run (docs/behaviour.md, "Trigger and
 * lifecycle", "Daily budget"): every review place taken, the controller
 * stopping, or the daily budget spent or unreadable. Each posts a
 * `**No verdict:**` comment with its reason on the head the delivery named
 * and sets its error status there; this is the one table of those texts.
 */
import type { ReviewOutcome } from '../run/run-record.ts'
import { WAITING_PLACES } from '../wire/limits.ts'
import { type StatusText, verdictStatus } from './commit-status.ts'

/** Why a request starts no run; the budget's causes carry their reason (the ledger's own sentence, or why it couldn't be read). */
export type NoRunCause =
  | { kind: 'queue-full' }
  | { kind: 'stopping' }
  | { kind: 'budget-spent'; reason: string }
  | { kind: 'budget-unreadable'; reason: string }

/** What a request that starts no run posts, sets and records. */
export type NoRun = { reason: string; status: StatusText; outcome: ReviewOutcome }

/**
 * Each cause's reason (null: the cause carries it), commit status and
 * recorded outcome. A status description holds only these words, never the
 * cause's reason, so nothing from outside reaches it.
 */
export const NO_RUN = {
  'queue-full': {
    reason: `every review place is taken (all running places and all ${WAITING_PLACES} waiting places), so this request starts no run`,
    // It never had a place, so it never had a pending status.
    status: { state: 'error', description: 'No verdict: every review place was taken, so no run started' },
    outcome: 'queue-full',
  },
  stopping: {
    reason: 'the controller was stopping (restarted or shut down) when this request came, so it starts no run',
    // Its comment says to ask again.
    status: { state: 'error', description: 'No verdict: the controller was stopping, so no run started' },
    outcome: 'no-verdict',
  },
  'budget-spent': {
    // The ledger's sentence says what was spent and when to ask again.
    reason: null,
    status: { state: 'error', description: "No verdict: today's budget (UTC) is spent, so no run started" },
    outcome: 'no-verdict',
  },
  'budget-unreadable': {
    reason: null,
    status: verdictStatus('no-verdict', null),
    outcome: 'no-verdict',
  },
} as const satisfies Record<NoRunCause['kind'], { reason: string | null; status: StatusText; outcome: ReviewOutcome }>

/** The reason, status and outcome of a request that starts no run for `cause`. */
export function noRunText(cause: NoRunCause): NoRun {
  const entry = NO_RUN[cause.kind]
  return {
    reason: entry.reason ?? ('reason' in cause ? cause.reason : ''),
    status: entry.status,
    outcome: entry.outcome,
  }
}
