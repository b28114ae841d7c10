/**
 * A run with nothing to ask (docs/behaviour.md, "Scoping a rule to its
 * files"): every classification is out of scope of the PR's changed files,
 * so the verdict is an approval with every row not-applicable, and no run is
 * sent to the classifier at all: no model call, nothing reserved from the
 * budget. Its reply is written as a classifier would have written it, so a
 * review, a try-out and the rules-change report read it as any other.
 */
import type { RunReply, RunRequest } from '../wire/types.ts'
import { outOfScopeRow } from './aggregate.ts'
import { outOfScopeNames } from './scope.ts'

/** The reply to a run none of whose classifications is in scope; null when some is, and the run must be sent. */
export function unaskedReply(request: Pick<RunRequest, 'id' | 'classifications' | 'diff'>): RunReply | null {
  if (!request.classifications.some((classification) => classification.paths !== undefined)) return null
  const outOfScope = outOfScopeNames(request.classifications, request.diff)
  if (outOfScope.size < request.classifications.length) return null
  return {
    id: request.id,
    ok: true,
    rows: request.classifications.map(outOfScopeRow),
    overall: 'approve',
    // Nothing left the machine, so nothing had to be redacted.
    redaction: { redacted: 0, places: 0, findings: [] },
    cost_usd: 0,
    cost_recorded_usd: 0,
  }
}
