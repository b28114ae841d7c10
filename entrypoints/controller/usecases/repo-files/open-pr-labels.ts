/**
 * "Open a PR" with labels (docs/behaviour.md, "Labelled examples and
 * reliability"): the repo's examples file read at the same default-branch
 * commit as the rules, and the page's labels merged into it by PR number
 * (core/repo-files/examples-merge.ts), checked before anything is pushed.
 */
import { appError } from '../../../../core/base/errors.ts'
import { EXAMPLES_FILE, EXAMPLES_JSON_PATH, EXAMPLES_YML_PATH } from '../../../../core/repo-files/examples-file.ts'
import {
  type ExamplesFileText,
  formatExamplesMergeProblem,
  mergeLabels,
  type PrLabels,
} from '../../../../core/repo-files/examples-merge.ts'
import type { RepoRef } from '../../../../core/wire/types.ts'
import type { BranchFileWrite } from '../../../../ports/forge.ts'
import { type FileReader, readSourceAt } from './source-loader.ts'

export function isExamplesPath(path: string): boolean {
  return path === EXAMPLES_YML_PATH || path === EXAMPLES_JSON_PATH
}

type ExamplesRead = { file: ExamplesFileText | null; sha: string | null }

/**
 * The examples file at `commit`, as the loader of both files reads it
 * (source-loader.ts) but unchecked: the merge checks it. None is fine;
 * both, or one the forge won't hand over, is a 422.
 */
export async function readExamplesFile(
  forge: FileReader,
  repo: RepoRef,
  branch: string,
  commit: string,
): Promise<ExamplesRead> {
  const read = await readSourceAt(forge, repo, EXAMPLES_FILE, commit)
  switch (read.kind) {
    case 'none':
      return { file: null, sha: null }
    case 'both':
      throw appError(
        'unprocessable',
        `${branch} has both ${EXAMPLES_YML_PATH} and ${EXAMPLES_JSON_PATH}, so neither loads; keep one first`,
      )
    case 'unreadable':
      throw appError('unprocessable', `${read.message}; fix the examples file first`)
    case 'file':
      return { file: { path: read.path, text: read.text }, sha: read.sha }
  }
}

/**
 * The examples file with the labels merged in, as one more file of the
 * commit; null when it would come out unchanged. Bad labels are a 400, a
 * file that doesn't load or a result the file's checks refuse a 422.
 */
export function mergedExamplesWrite(read: ExamplesRead, labels: readonly PrLabels[]): BranchFileWrite | null {
  const merged = mergeLabels(read.file, labels)
  if (!merged.ok) {
    const problem = merged.error
    throw appError(problem.kind === 'labels-invalid' ? 'invalid' : 'unprocessable', formatExamplesMergeProblem(problem))
  }
  if (read.file !== null && merged.value.text === read.file.text) return null
  return { path: merged.value.path, content: merged.value.text, sha: read.sha }
}
