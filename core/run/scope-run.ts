/**
 * A run's questions split by scope (docs/behaviour.md, "Scoping a rule to
 * its files"): the classifier asks the classifications some changed file is
 * in scope of, each with the files it is about, and answers the others with
 * their out-of-scope row, no model process started for them.
 */
import type { RunRequest } from '../wire/types.ts'
import { type RuleScope, runScopes } from './scope.ts'

export type ScopedRun = {
  /** The request with only the classifications to ask, in the request's order. */
  asked: RunRequest
  /** Every classification's scope, by name. */
  scopes: ReadonlyMap<string, RuleScope>
  /** The names not asked. */
  outOfScope: ReadonlySet<string>
}

export function scopeRun(request: RunRequest): ScopedRun {
  const scopes = runScopes(request.classifications, request.diff)
  const outOfScope = new Set([...scopes].filter(([, scope]) => !scope.inScope).map(([name]) => name))
  const asked = request.classifications.filter((classification) => !outOfScope.has(classification.name))
  return { asked: { ...request, classifications: asked }, scopes, outOfScope }
}
