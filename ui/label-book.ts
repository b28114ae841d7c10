/**
 * The page's labels and the repo's examples file behind them: the labels an
 * author set on a replay's cells (ui/labels.ts), kept with the draft by the
 * caller, and each repo's examples file read once from the examples route,
 * so a cell the file already labels starts from the file's label.
 */
import { fitsSchema } from '../core/wire/decode.ts'
import { RepoExamplesSchema } from '../core/wire/score-schemas.ts'
import type { Example, Verdict } from '../core/wire/types.ts'
import { getJson } from './api.ts'
import { applyCommentLabels, type CommentLabelOrigins, cellKey } from './comment-labels.ts'
import { fileLabelAt, type LabelCell, labelAt, type PageLabel, withLabel } from './labels.ts'

/** What the page knows of a repo's examples file. */
export type ExamplesFile =
  | { kind: 'reading' }
  /** The repo has none (the route's 404): a new one is written. */
  | { kind: 'none' }
  | { kind: 'read'; path: string; branch: string; examples: Example[] }
  | { kind: 'unreadable'; status: number; detail: string }

export type LabelBook = {
  /** The label the page set on `cell`, or null. */
  get(cell: LabelCell): Verdict | null
  /** The examples file's label on `cell`, or null (none, or not read yet). */
  inFile(cell: LabelCell): Verdict | null
  /** Sets (or with null clears) the page's label on `cell`. */
  set(cell: LabelCell, verdict: Verdict | null): void
  /** Every label the page set, oldest first. */
  list(): readonly PageLabel[]
  /** Puts back labels kept from before a reload, telling nobody. */
  restore(labels: readonly PageLabel[]): void
  /** The repo's examples file as last read, reading it once when it never was; `fresh` reads it again. */
  readFile(repo: string, fresh?: boolean): Promise<ExamplesFile>
  /** The repo's examples file as last read, without reading. */
  file(repo: string): ExamplesFile
  /** What the labels and the files read add up to, to tell a changed rendering from the same one. */
  signature(): string
  /** Called when a label is set or a file has been read. */
  onChange(listener: () => void): void
  /** Reads the repo's labels from PR comments once, putting those not yet in the file on their cells (comment-labels.ts). */
  readComments(repo: string): Promise<void>
  /** Who gave the cell's label in a PR comment, while the page's label is still that one; null otherwise. */
  commentOrigin(cell: LabelCell): string | null
}

export function createLabelBook(): LabelBook {
  let labels: PageLabel[] = []
  const files = new Map<string, ExamplesFile>()
  const reads = new Map<string, Promise<ExamplesFile>>()
  const listeners: Array<() => void> = []
  const changed = () => {
    for (const listener of listeners) listener()
  }

  async function read(repo: string): Promise<ExamplesFile> {
    files.set(repo, { kind: 'reading' })
    const answer = await getJson('api/review-classifier/examples', fitsSchema(RepoExamplesSchema), { repo })
    const file: ExamplesFile = answer.ok
      ? { kind: 'read', path: answer.value.path, branch: answer.value.branch, examples: answer.value.examples }
      : answer.problem.status === 404
        ? { kind: 'none' }
        : { kind: 'unreadable', status: answer.problem.status, detail: answer.problem.detail }
    files.set(repo, file)
    changed()
    return file
  }

  const origins: CommentLabelOrigins = new Map()
  const commentReads = new Map<string, Promise<void>>()

  const examplesOf = (repo: string) => {
    const file = files.get(repo)
    return file?.kind === 'read' ? file.examples : []
  }

  const book: LabelBook = {
    get: (cell) => labelAt(labels, cell),
    inFile: (cell) => fileLabelAt(examplesOf(cell.repo), cell.pr, cell.name),
    set(cell, verdict) {
      labels = withLabel(labels, cell, verdict)
      changed()
    },
    list: () => labels,
    restore(kept) {
      labels = [...kept]
    },
    readFile(repo, fresh = false) {
      const known = reads.get(repo)
      if (known !== undefined && !fresh) return known
      const reading = read(repo)
      reads.set(repo, reading)
      return reading
    },
    file: (repo) => files.get(repo) ?? { kind: 'reading' },
    signature: () => JSON.stringify([labels, [...files]]),
    onChange(listener) {
      listeners.push(listener)
    },
    readComments(repo) {
      const known = commentReads.get(repo)
      if (known !== undefined) return known
      const reading = applyCommentLabels(repo, book, origins)
      commentReads.set(repo, reading)
      return reading
    },
    commentOrigin(cell) {
      // Once the author changes the label by hand, it is theirs, not the comment's.
      const origin = origins.get(cellKey(cell))
      return origin !== undefined && labelAt(labels, cell) === origin.label ? origin.by : null
    },
  }
  return book
}
