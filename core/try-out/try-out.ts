/**
 * The try-out POST's body (docs/behaviour.md, "Try-out"; docs/decisions.md,
 * "Wire formats"): read by hand rather than by the route's schema so that a
 * 400 says every problem at once, in the rules file's words. One PR (`pr`,
 * optionally asked `repeat` times), the repo's last `replay` PRs, or with
 * `examples: true` every labelled PR of the repo's examples file.
 */

import { err, ok, type Result } from '../base/result.ts'
import { capText } from '../base/text.ts'
import { formatRulesProblems, validateClassifications } from '../repo-files/rules-file.ts'
import { isRecord, parseJsonText } from '../wire/decode.ts'
import { REPEAT_MAX, REPLAY_MAX } from '../wire/limits.ts'
import { parseRepoValue } from '../wire/repo.ts'
import type { Classification, RepoRef } from '../wire/types.ts'

/** One PR; `repeat` only when the body asked for it. */
export type OnePrTryOutBody = { repo: RepoRef; pr: number; repeat?: number; classifications: Classification[] }
/** The repo's last `replay` PRs, instead of one. */
export type ReplayTryOutBody = { repo: RepoRef; replay: number; classifications: Classification[] }
/** Every labelled PR of the repo's examples file, each asked `repeat` times (1 when absent). */
export type ExamplesTryOutBody = { repo: RepoRef; examples: true; repeat: number; classifications: Classification[] }
export type TryOutBody = OnePrTryOutBody | ReplayTryOutBody | ExamplesTryOutBody

/** The fields the body must hold (`pr`, or `replay` instead); others are ignored (docs/decisions.md, "Wire formats"). */
const BODY_KEYS = ['repo', 'pr', 'classifications'] as const
const SHOWN_CHARS = 100

/** A value in a message, without echoing anything long or nested. */
export function describeBodyValue(value: unknown): string {
  if (typeof value === 'string') return `${JSON.stringify(capText(value, SHOWN_CHARS + 1))} (a string)`
  if (typeof value === 'number') return String(value)
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  return typeof value === 'object' ? 'an object' : typeof value
}

function prProblem(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return null
  return `pr must be a positive whole number, got ${describeBodyValue(value)}`
}

/** An optional count's problem: a whole number from 1 to `max`, or absent. */
function countProblem(key: 'repeat' | 'replay', value: unknown, max: number, what: string): string | null {
  if (value === undefined) return null
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= max) return null
  return `${key} must be a whole number from 1 to ${max} (${what}), got ${describeBodyValue(value)}`
}

/**
 * The POST body, every problem at once: the repo, the PR number (or
 * `replay`, 1–{@link REPLAY_MAX}, instead), `repeat` (1–{@link REPEAT_MAX},
 * one PR only) and the classifications (1–10, the rules file's checks and
 * words, entries named by index and name).
 */
export function parseTryOutBody(text: string): Result<TryOutBody, string> {
  const parsed = parseJsonText(text, 'the body')
  if (!parsed.ok) return err("the body isn't JSON: send { repo, pr, classifications } as a JSON object")
  const body = parsed.value
  if (!isRecord(body)) {
    return err(`the body must be a JSON object { repo, pr, classifications }, got ${describeBodyValue(body)}`)
  }
  const replaying = 'replay' in body
  const examples = 'examples' in body
  const missing = BODY_KEYS.filter((key) => !(key in body) && !(key === 'pr' && (replaying || examples)))
  if (missing.length > 0) {
    const named = missing.map((key) => (key === 'pr' ? '"pr" (or "replay", or "examples": true)' : `"${key}"`))
    return err(`missing field${missing.length > 1 ? 's' : ''} ${named.join(', ')}`)
  }
  const repo = parseRepoValue(body.repo)
  const repeat = countProblem('repeat', body.repeat, REPEAT_MAX, 'how many times to ask each classification')
  const replay = countProblem('replay', body.replay, REPLAY_MAX, 'how many of the repo’s last PRs to run against')
  const target = examples
    ? [
        body.examples === true ? null : `examples must be true, got ${describeBodyValue(body.examples)}`,
        'pr' in body || replaying
          ? 'send one of pr (one PR), replay (the last N PRs) or examples (the labelled PRs)'
          : null,
        repeat,
      ]
    : replaying
      ? [
          'pr' in body ? 'send pr (one PR) or replay (the last N PRs), not both' : null,
          'repeat' in body ? 'repeat asks one PR several times: send it with pr, not with replay' : null,
          replay,
        ]
      : [prProblem(body.pr), repeat]
  const classifications = validateClassifications(body.classifications, 'the body')
  const problems = [
    repo.ok ? null : repo.error,
    ...target,
    classifications.ok ? null : formatRulesProblems(classifications.error),
  ].filter((problem) => problem !== null)
  if (!repo.ok || !classifications.ok || problems.length > 0) return err(problems.join('\n'))
  const common = { repo: repo.value, classifications: classifications.value }
  if (examples) return ok({ ...common, examples: true, repeat: body.repeat === undefined ? 1 : Number(body.repeat) })
  if (replaying) return ok({ ...common, replay: Number(body.replay) })
  return ok({ ...common, pr: Number(body.pr), ...(body.repeat === undefined ? {} : { repeat: Number(body.repeat) }) })
}
