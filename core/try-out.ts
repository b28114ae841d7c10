/**
 * The try-out POST's body (docs/behaviour.md, "Try-out"; docs/decisions.md,
 * "Wire formats"): read by hand rather than by the route's schema so that a
 * 400 says every problem at once, in the rules file's words.
 */
import { isRecord, parseJsonText } from './decode.ts'
import { parseRepoValue } from './repo.ts'
import { err, ok, type Result } from './result.ts'
import { formatRulesProblems, validateClassifications } from './rules-file.ts'
import { capText } from './text.ts'
import type { Classification, RepoRef } from './types.ts'

export type TryOutBody = { repo: RepoRef; pr: number; classifications: Classification[] }

/** The fields the body must hold; others are ignored (docs/decisions.md, "Wire formats"). */
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

/**
 * The POST body, every problem at once: the repo, the PR number and the
 * classifications (1–10, the rules file's checks and words, entries named
 * by index and name).
 */
export function parseTryOutBody(text: string): Result<TryOutBody, string> {
  const parsed = parseJsonText(text, 'the body')
  if (!parsed.ok) return err("the body isn't JSON: send { repo, pr, classifications } as a JSON object")
  const body = parsed.value
  if (!isRecord(body)) {
    return err(`the body must be a JSON object { repo, pr, classifications }, got ${describeBodyValue(body)}`)
  }
  const missing = BODY_KEYS.filter((key) => !(key in body))
  if (missing.length > 0) {
    return err(`missing field${missing.length > 1 ? 's' : ''} ${missing.map((key) => `"${key}"`).join(', ')}`)
  }
  const repo = parseRepoValue(body.repo)
  const pr = prProblem(body.pr)
  const classifications = validateClassifications(body.classifications, 'the body')
  if (repo.ok && pr === null && classifications.ok) {
    return ok({ repo: repo.value, pr: Number(body.pr), classifications: classifications.value })
  }
  const problems = [
    repo.ok ? null : repo.error,
    pr,
    classifications.ok ? null : formatRulesProblems(classifications.error),
  ]
  return err(problems.filter((problem) => problem !== null).join('\n'))
}
