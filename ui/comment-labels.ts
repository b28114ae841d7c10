/**
 * The labels given from PR comments (docs/behaviour.md, "Waivers and
 * labels"), for the try-out page: read once per repo from
 * `GET /api/review-classifier/labels`, and each one the examples file
 * doesn't hold yet put on its cell as the page's own label, so the cell
 * shows it beside the file's, marked as not yet in the file, and "open a
 * PR" writes it into the examples file with the page's other labels.
 */
import { PrLabelListSchema } from '../core/repo-files/pr-labels.ts'
import { fitsSchema } from '../core/wire/decode.ts'
import type { Verdict } from '../core/wire/types.ts'
import { getJson } from './api.ts'
import type { LabelCell } from './labels.ts'

/** What of the label book (label-book.ts, which calls this) the comment labels need: no import back to it. */
type CellLabels = {
  readFile(repo: string): Promise<unknown>
  get(cell: LabelCell): Verdict | null
  inFile(cell: LabelCell): Verdict | null
  set(cell: LabelCell, verdict: Verdict | null): void
}

/** Who gave a label from a comment, and which, by cell: `repo\0pr\0name`. */
export type CommentLabelOrigins = Map<string, { by: string; label: Verdict }>

export function cellKey(cell: LabelCell): string {
  return `${cell.repo}\u0000${cell.pr}\u0000${cell.name}`
}

/**
 * Reads the repo's comment labels and puts on the book each one that the
 * examples file doesn't hold and the page hasn't labelled otherwise; the
 * origins learn who gave each. Nothing is read for a repo whose comments
 * gave no label, so a repo without an examples file logs no 404.
 */
export async function applyCommentLabels(repo: string, book: CellLabels, origins: CommentLabelOrigins): Promise<void> {
  const answer = await getJson('api/review-classifier/labels', fitsSchema(PrLabelListSchema), { repo })
  if (!answer.ok || answer.value.labels.length === 0) return
  await book.readFile(repo)
  for (const label of answer.value.labels) {
    const cell = { repo, pr: label.pr, name: label.rule }
    if (book.get(cell) !== null || book.inFile(cell) === label.label) continue
    origins.set(cellKey(cell), { by: label.by, label: label.label })
    book.set(cell, label.label)
  }
}
