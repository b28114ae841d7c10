/**
 * What a classifier's reply says once decoded and re-checked against the
 * classifications that were sent: a review and a try-out read it the same
 * way. The reply's own `counted`, `fails` and `overall` are never trusted.
 */

import { capText } from '../base/text.ts'
import type { Classification, RedactionSummary, Row } from '../wire/types.ts'
import { type Aggregate, checkReplyRows } from './aggregate.ts'
import { outOfScopeNames } from './scope.ts'
import { decodeRunReply } from './wire-decode.ts'

/** The reply's own error is another process's text; keep it to a sentence or two. */
const REPLY_ERROR_MAX_CHARS = 500

export type RunReplyReading =
  /** Undecodable, or the reply to another run. */
  | { kind: 'unreadable'; reason: string }
  /** `ok: false`: the run failed as a whole; `rows` are re-checked when the reply had any. */
  | { kind: 'failed'; reason: string; rows: Row[] | null; redaction: RedactionSummary | null }
  /**
   * `ok: true`, its rows re-checked; `answeredNames` are the reply's rows'
   * names as sent back, for a caller that tells a mismatch from an unanswered row.
   */
  | { kind: 'answered'; checked: Aggregate; answeredNames: string[]; redaction: RedactionSummary | null }

/**
 * Decodes a reply and re-checks its rows against the classifications sent
 * and the run's `diff`: a rule the diff leaves out of scope gets its
 * out-of-scope row whatever the reply says of it.
 */
export function readRunReply(id: string, sent: readonly Classification[], text: string, diff: string): RunReplyReading {
  const decoded = decodeRunReply(text)
  if (!decoded.ok) return { kind: 'unreadable', reason: `the classifier's reply can't be read: ${decoded.error}` }
  const reply = decoded.value
  const outOfScope = outOfScopeNames(sent, diff)
  if (reply.id !== id) {
    return { kind: 'unreadable', reason: `the classifier answered another run (${capText(reply.id, 80)})` }
  }
  if (!reply.ok) {
    const rows = reply.rows.length > 0 ? checkReplyRows(sent, reply.rows, outOfScope).rows : null
    const why = capText(reply.error ?? 'the classifier gave no reason', REPLY_ERROR_MAX_CHARS)
    return { kind: 'failed', reason: `the run failed: ${why}`, rows, redaction: reply.redaction ?? null }
  }
  return {
    kind: 'answered',
    checked: checkReplyRows(sent, reply.rows, outOfScope),
    answeredNames: reply.rows.map((row) => row.name),
    // An older classifier says nothing of redaction: null, not "none redacted".
    redaction: reply.redaction ?? null,
  }
}
