/**
 * "Open a PR" with labels (docs/behaviour.md, "Labelled examples and
 * reliability"): the repo's examples file read at the same default-branch
 * commit as the rules, and the page's labels merged into it by PR number
 * (core/examples-merge.ts), checked before anything is pushed.
 */
import { appError, isAppError } from '../../../core/errors.ts'
import { EXAMPLES_JSON_PATH, EXAMPLES_YML_PATH } from '../../../core/examples-file.ts'
import {
  type ExamplesFileText,
  formatExamplesMergeProblem,
  mergeLabels,
  type PrLabels,
} from '../../../core/examples-merge.ts'
import type { RepoRef } from '../../../core/types.ts'
import type { BranchFileWrite, ForgeReader } from '../../../ports/forge.ts'

export function isExamplesPath(path: string): boolean {
  return path === EXAMPLES_YML_PATH || path === EXAMPLES_JSON_PATH
}

type ExamplesRead = { file: ExamplesFileText | null; sha: string | null }

async function readAt(
  forge: Pick<ForgeReader, 'getFileContent'>,
  repo: RepoRef,
  path: string,
  commit: string,
): Promise<{ text: string; sha: string } | null> {
  try {
    const file = await forge.getFileContent(repo, path, commit)
    return file === null ? null : { text: file.content, sha: file.sha }
  } catch (error) {
    // Something is at the path that isn't a file the forge hands over: it doesn't load.
    if (isAppError(error, 'invalid')) throw appError('unprocessable', `${error.message}; fix the examples file first`)
    throw error
  }
}

/** The examples file at `commit`: one of the two names, none, or a 422 for both. */
export async function readExamplesFile(
  forge: Pick<ForgeReader, 'getFileContent'>,
  repo: RepoRef,
  branch: string,
  commit: string,
): Promise<ExamplesRead> {
  const [yml, json] = await Promise.all([
    readAt(forge, repo, EXAMPLES_YML_PATH, commit),
    readAt(forge, repo, EXAMPLES_JSON_PATH, commit),
  ])
  if (yml !== null && json !== null) {
    throw appError(
      'unprocessable',
      `${branch} has both ${EXAMPLES_YML_PATH} and ${EXAMPLES_JSON_PATH}, so neither loads; keep one first`,
    )
  }
  const found =
    yml === null ? (json === null ? null : { path: EXAMPLES_JSON_PATH, ...json }) : { path: EXAMPLES_YML_PATH, ...yml }
  return found === null ? { file: null, sha: null } : { file: { path: found.path, text: found.text }, sha: found.sha }
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
