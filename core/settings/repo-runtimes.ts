/**
 * The per-repo runtime policy, the settings' `repo_runtimes`
 * (docs/behaviour.md, "Which repos may use which runtime"): an object from a
 * repo pattern (`owner/name`, `owner/*`, or `*` for both
 * owner and name) to a runtime or `none`. The
 * most specific pattern that matches wins; a repo no pattern matches runs on
 * the settings' `runtime`. `none` sends the repo's PRs to no model at all.
 *
 * Here: reading the field (a PUT's, strictly; a stored document's,
 * leniently), the rules the merged document must keep, and resolving a
 * repo's runtime. settings.ts calls in; nothing here reads the clock or the
 * world.
 */

import { quoteInput } from '../base/text.ts'
import { isRecord } from '../wire/decode.ts'
import { isRepoNamePart } from '../wire/repo.ts'
import { RUNTIMES } from '../wire/schemas.ts'
import type { RepoRuntime, Runtime, Settings } from '../wire/types.ts'

export const REPO_RUNTIME_CHOICES: readonly RepoRuntime[] = [...RUNTIMES, 'none']

/** How many patterns the policy may hold: a swarm has dozens of owners, not thousands. */
export const REPO_RUNTIMES_MAX = 500

/** A pattern's length in characters: two forge names and a slash. */
export const REPO_PATTERN_MAX_CHARS = 201

/** The runtime the policy gives a repo: a runtime to run on, or `none`. */
export type ResolvedRuntime = { runtime: RepoRuntime; pattern: string | null }

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'string') return `the string ${quoteInput(value)}`
  if (typeof value === 'object') return 'an object'
  return String(value)
}

/** Why `pattern` can't be a key, or null when it is `owner/name`, `owner/*` or the catch-all (`*` for both). */
function patternProblem(pattern: string): string | null {
  const shown = quoteInput(pattern)
  if (pattern.length > REPO_PATTERN_MAX_CHARS) {
    return `repo_runtimes key ${shown} is longer than ${REPO_PATTERN_MAX_CHARS} characters`
  }
  const parts = pattern.split('/')
  const [owner, name] = parts
  const form = 'owner/name, owner/* or */*'
  if (parts.length !== 2 || owner === undefined || name === undefined) {
    return `repo_runtimes key ${shown} must be ${form}`
  }
  if (owner === '*') {
    return name === '*' ? null : `repo_runtimes key ${shown} must be ${form}: */name is not a pattern`
  }
  if (!isRepoNamePart(owner)) {
    return `repo_runtimes key ${shown} must be ${form}, with letters, digits, '-', '_' and '.' in the owner`
  }
  if (name !== '*' && !isRepoNamePart(name)) {
    return `repo_runtimes key ${shown} must be ${form}, with letters, digits, '-', '_' and '.' in the name`
  }
  return null
}

/**
 * Reads `repo_runtimes` from a body or a stored document. Strictly (a PUT),
 * a value this build doesn't know is a problem naming the key; leniently (a
 * document a newer build wrote), it reads as `none`: a repo the policy kept
 * off some runtime is then sent to no model, never to the default one.
 */
export function readRepoRuntimes(
  value: unknown,
  mode: 'refuse' | 'ignore',
  problems: string[],
): Record<string, RepoRuntime> | undefined {
  if (!isRecord(value)) {
    problems.push(
      `repo_runtimes must be an object from owner/name, owner/* or */* to a runtime, not ${describe(value)}; {} maps no repo`,
    )
    return undefined
  }
  const before = problems.length
  const entries = Object.entries(value)
  if (entries.length > REPO_RUNTIMES_MAX) {
    problems.push(`repo_runtimes has ${entries.length} patterns; at most ${REPO_RUNTIMES_MAX} are allowed`)
    return undefined
  }
  const policy: Record<string, RepoRuntime> = {}
  const seen = new Map<string, string>()
  for (const [pattern, runtime] of entries) {
    const problem = patternProblem(pattern)
    if (problem !== null) {
      problems.push(problem)
      continue
    }
    // Forge names are unique without regard to case, so two keys that differ only in case would be one pattern.
    const folded = pattern.toLowerCase()
    const twin = seen.get(folded)
    if (twin !== undefined) {
      problems.push(`repo_runtimes keys ${quoteInput(twin)} and ${quoteInput(pattern)} name the same repos`)
      continue
    }
    seen.set(folded, pattern)
    const known = REPO_RUNTIME_CHOICES.find((choice) => choice === runtime)
    if (known !== undefined) policy[pattern] = known
    else if (mode === 'ignore') policy[pattern] = 'none'
    else {
      const choices = REPO_RUNTIME_CHOICES.map((choice) => `"${choice}"`).join(', ')
      problems.push(`repo_runtimes[${quoteInput(pattern)}] must be one of ${choices}, not ${describe(runtime)}`)
    }
  }
  return problems.length > before ? undefined : policy
}

/** The rules the whole document keeps: a pattern sent to `acp` needs the provider, as `runtime: "acp"` does. */
export function repoRuntimesRuleProblems(settings: Settings): string[] {
  if (settings.acp !== null) return []
  const onAcp = Object.entries(settings.repo_runtimes)
    .filter(([, runtime]) => runtime === 'acp')
    .map(([pattern]) => quoteInput(pattern))
  if (onAcp.length === 0) return []
  return [
    `repo_runtimes sends ${onAcp.join(', ')} to "acp", which needs a provider: set acp with base_url, model and prices`,
  ]
}

/**
 * The runtime a repo's run goes to: the exact `owner/name` pattern, else
 * `owner/*`, else the catch-all, else the settings' `runtime`. Names compare without
 * regard to case, as the forge's do.
 */
export function resolveRepoRuntime(
  settings: Pick<Settings, 'runtime' | 'repo_runtimes'>,
  repo: string,
): ResolvedRuntime {
  const [owner = '', name = ''] = repo.toLowerCase().split('/')
  const byPattern = new Map(
    Object.entries(settings.repo_runtimes).map(([pattern, runtime]) => [pattern.toLowerCase(), { pattern, runtime }]),
  )
  for (const candidate of [`${owner}/${name}`, `${owner}/*`, '*/*']) {
    const found = byPattern.get(candidate)
    if (found !== undefined) return found
  }
  return { runtime: settings.runtime, pattern: null }
}

/** Whether any run may go to `runtime`: the settings' own, or a pattern's. */
export function mayRunOn(settings: Pick<Settings, 'runtime' | 'repo_runtimes'>, runtime: Runtime): boolean {
  return settings.runtime === runtime || Object.values(settings.repo_runtimes).includes(runtime)
}

/**
 * What a review's `**No verdict:**` and a try-out's 403 say when the policy
 * sends a repo to no runtime: why, and how an admin changes it.
 */
export function noRuntimeReason(repo: string, pattern: string | null): string {
  const which = pattern === null ? '' : ` (pattern ${quoteInput(pattern)})`
  return (
    `the settings' repo_runtimes policy sends ${repo}'s diffs to no runtime${which}, so no model was asked; ` +
    'an admin can change it by PUTting repo_runtimes to /api/review-classifier/settings with another runtime for this repo'
  )
}
