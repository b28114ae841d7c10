/** A repo's name as the spec, the wire formats, the routes and the messages write it: `owner/name`. */
import { err, ok, type Result } from '../base/result.ts'
import { capText } from '../base/text.ts'
import type { RepoRef } from './types.ts'

/** `owner/name`. */
export function repoName(repo: RepoRef): string {
  return `${repo.owner}/${repo.name}`
}

/**
 * Forgejo's owner and repo names: ASCII letters, digits, `-`, `_` and `.`,
 * never `.` or `..` alone. Anything else can't name a repo, and refusing it
 * keeps odd paths away from the forge.
 */
const NAME = /^[A-Za-z0-9_.-]+$/
const SHOWN_CHARS = 100

export function isRepoNamePart(part: string): boolean {
  return NAME.test(part) && part !== '.' && part !== '..'
}

/** A `repo` value from a query or a body as `owner/name`, or why it isn't one: every route takes the same repos. */
export function parseRepoValue(value: unknown): Result<RepoRef, string> {
  if (typeof value === 'string') {
    const parts = value.split('/')
    const [owner, name] = parts
    if (
      parts.length === 2 &&
      owner !== undefined &&
      name !== undefined &&
      isRepoNamePart(owner) &&
      isRepoNamePart(name)
    ) {
      return ok({ owner, name })
    }
  }
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))
  const shown = capText(text, SHOWN_CHARS + 1)
  return err(
    `repo must be owner/name (letters, digits, '-', '_' and '.'), got ${typeof value === 'string' ? JSON.stringify(shown) : shown}`,
  )
}

/**
 * Case-insensitive, then by code point so the order is total: a picker reads
 * alphabetically, and `Acme/x` and `acme/x` still come in one fixed order.
 * Not locale-aware, so the order doesn't depend on the host's ICU data.
 */
export function compareRepoNames(a: string, b: string): number {
  const [la, lb] = [a.toLowerCase(), b.toLowerCase()]
  if (la !== lb) return la < lb ? -1 : 1
  return a < b ? -1 : a > b ? 1 : 0
}
