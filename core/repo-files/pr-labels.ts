/**
 * The labels given from PR comments (docs/behaviour.md, "Waivers and
 * labels"): what a rule should have answered on a PR, kept per repo in the
 * KV bucket `review-classifier-labels` until the try-out page's "open a PR"
 * writes them into the examples file. Newest per PR and rule wins; a repo
 * keeps at most {@link PR_LABELS_KEPT}, the oldest dropped first.
 *
 * Pure: the key, the stored list's reading and writing.
 */
// The functions as a namespace, as row-schemas.ts takes them: the try-out page bundles this module.
import * as Type from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { VerdictSchema } from '../wire/row-schemas.ts'

export const LABELS_BUCKET = 'review-classifier-labels'
/** A repo's labels are one value; a thousand is far more than a team gives before writing them into the file. */
export const PR_LABELS_KEPT = 1000

export const PrLabelSchema = Type.Object({
  pr: Type.Integer({ minimum: 1 }),
  rule: Type.String({ minLength: 1 }),
  label: VerdictSchema,
  by: Type.String({ description: 'The forge login whose comment gave it.' }),
  at_unix: Type.Number({ description: 'When the comment was read.' }),
})
export type PrLabel = {
  pr: number
  rule: string
  label: 'match' | 'no-match' | 'not-applicable'
  by: string
  at_unix: number
}

/** `GET /api/review-classifier/labels?repo=owner/name`. */
export const PrLabelListSchema = Type.Object({
  repo: Type.String(),
  labels: Type.Array(PrLabelSchema, { description: 'Newest first; one per PR and rule.' }),
})

/**
 * The KV key of a repo's labels: its `owner/name` lowercased (the forge's
 * names are case-insensitive) as hex of its UTF-8, which only has
 * characters a key may hold.
 */
export function labelsKey(repo: string): string {
  const bytes = new TextEncoder().encode(repo.toLowerCase())
  return `repo_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`
}

/** The stored list, newest first; an entry this build can't read is left out. */
export function readPrLabels(stored: string | null): PrLabel[] {
  if (stored === null) return []
  let parsed: unknown
  try {
    parsed = JSON.parse(stored)
  } catch {
    return []
  }
  return Array.isArray(parsed) ? parsed.filter((entry): entry is PrLabel => Value.Check(PrLabelSchema, entry)) : []
}

/** The list with `label` first, replacing the one for the same PR and rule, cut to {@link PR_LABELS_KEPT}. */
export function addPrLabel(stored: string | null, label: PrLabel): string {
  const rest = readPrLabels(stored).filter((entry) => !(entry.pr === label.pr && entry.rule === label.rule))
  return JSON.stringify([label, ...rest].slice(0, PR_LABELS_KEPT))
}
