/** How the pages write values: verdicts as the review table does, times, shas, links to the forge. */

import { VERDICT_LABEL } from '../core/review/review-body.ts'
import { ERROR_KIND_LABEL } from '../core/run/aggregate.ts'
import type { Overall, RecordedRow, Verdict } from '../core/wire/types.ts'

// One plural for the pages and the server's texts alike.
export { plural } from '../core/base/text.ts'

export function verdictLabel(verdict: Verdict | null): string {
  return verdict === null ? 'no answer' : VERDICT_LABEL[verdict]
}

/** The review table's "counted" cell, in words (the review's ✅ and ❌ need an emoji font), and why a row isn't counted. */
export function countedLabel(
  row: Pick<RecordedRow, 'counted' | 'fails' | 'verdict' | 'certainty' | 'threshold'> &
    Partial<Pick<RecordedRow, 'blocks' | 'in_scope' | 'waived_by'>>,
): string {
  if (row.counted && row.fails && row.waived_by !== undefined) return `yes, fails: waived by @${row.waived_by}`
  if (row.counted)
    return row.fails ? (row.blocks === false ? "yes, fails (advisory: doesn't block)" : 'yes, fails') : 'yes, passes'
  if (row.verdict === null) return 'no: no answer'
  if (row.verdict === 'not-applicable')
    return row.in_scope === false ? 'no: out of scope, not asked' : 'no: not applicable'
  if (row.certainty !== null && row.certainty < row.threshold) return `no: ${row.certainty} is under ${row.threshold}`
  return 'no'
}

/** Why a row has no answer, in words. */
export function rowErrorText(row: RecordedRow): string {
  if (row.error === null) return ''
  return `No answer (${ERROR_KIND_LABEL[row.error.kind]}): ${row.error.detail}`
}

export function shortSha(sha: string | null | undefined): string {
  return sha === null || sha === undefined || sha === '' ? '—' : sha.slice(0, 7)
}

const TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

export function dateTime(unixSeconds: number): string {
  return TIME.format(new Date(unixSeconds * 1000))
}

/** `45 s`, `3 min`, `2 h`: how long a run took. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.max(0, Math.round(seconds))} s`
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`
  return `${Math.round(seconds / 3600)} h`
}

function encodePath(...parts: string[]): string {
  return parts.map((part) => encodeURIComponent(part)).join('/')
}

/** The forge's page of a PR, when the forge's address is known. */
export function pullUrl(forgeUrl: string | null, repo: string, pr: number): string | null {
  if (forgeUrl === null) return null
  const [owner, name] = repo.split('/')
  if (owner === undefined || name === undefined) return null
  return `${forgeUrl.replace(/\/+$/, '')}/${encodePath(owner, name)}/pulls/${pr}`
}

/** The forge's page of a commit. */
export function commitUrl(forgeUrl: string | null, repo: string, sha: string): string | null {
  if (forgeUrl === null) return null
  const [owner, name] = repo.split('/')
  if (owner === undefined || name === undefined) return null
  return `${forgeUrl.replace(/\/+$/, '')}/${encodePath(owner, name)}/commit/${encodeURIComponent(sha)}`
}

/** The overall verdict in the same words on both pages: what the review would do. */
export const OVERALL_WORDS = {
  approve: 'would approve',
  'request-changes': 'would request changes',
  'no-verdict': 'no verdict',
} as const satisfies Record<Overall, string>

export function overallWords(overall: Overall | null): string {
  return overall === null ? 'no verdict' : OVERALL_WORDS[overall]
}
