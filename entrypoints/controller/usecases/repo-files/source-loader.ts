/**
 * One of the repo's two hand-written files (the rules file, the examples
 * file: core's `RULES_FILE`, `EXAMPLES_FILE`) read at one commit through the
 * forge, with the controller's own token and no cache. Both names are read
 * at that commit, so the answer belongs to one commit even when a push lands
 * in between; the rules and the examples then agree on what counts as "none",
 * "both files" and "doesn't load".
 */

import { isAppError } from '../../../../core/base/errors.ts'
import { type LoadedSource, parseSourceFile, type RepoSourceFile } from '../../../../core/repo-files/source-file.ts'
import { cappedProblem } from '../../../../core/repo-files/source-tree.ts'
import type { RepoRef } from '../../../../core/wire/types.ts'
import type { ForgeReader } from '../../../../ports/forge.ts'

/** What reading a file reads of the forge. */
export type FileReader = Pick<ForgeReader, 'getFileContent'>

/** One of the two names at a commit: its text, null when absent, or the forge's refusal of what is there. */
type FileRead = { kind: 'file'; text: string; sha: string } | { kind: 'unreadable'; message: string } | null

async function readRepoFile(forge: FileReader, repo: RepoRef, path: string, commit: string): Promise<FileRead> {
  try {
    const file = await forge.getFileContent(repo, path, commit)
    return file === null ? null : { kind: 'file', text: file.content, sha: file.sha }
  } catch (error) {
    // Something is at the path, but not a file the forge hands over: it counts as present and doesn't load.
    if (!isAppError(error, 'invalid')) throw error
    return { kind: 'unreadable', message: error.message }
  }
}

/** Which of a kind's two files is at a commit, before its text is checked. */
export type SourceRead =
  | { kind: 'file'; path: string; text: string; sha: string }
  /** Something at the path the forge won't hand over as a file; `message` is the forge's words, naming the path. */
  | { kind: 'unreadable'; path: string; message: string }
  | { kind: 'none' }
  | { kind: 'both' }

/** Reads both of the file's names at `commit`; the forge's failures other than "not a file" pass through. */
export async function readSourceAt<T, Key extends string>(
  forge: FileReader,
  repo: RepoRef,
  file: RepoSourceFile<T, Key>,
  commit: string,
): Promise<SourceRead> {
  const { yml: ymlPath, json: jsonPath } = file.paths
  const [yml, json] = await Promise.all([
    readRepoFile(forge, repo, ymlPath, commit),
    readRepoFile(forge, repo, jsonPath, commit),
  ])
  if (yml !== null && json !== null) return { kind: 'both' }
  const path = yml === null ? jsonPath : ymlPath
  const found = yml ?? json
  if (found === null) return { kind: 'none' }
  return { path, ...found }
}

/** The file at `commit`, checked (`branch` names it); throws only what the forge's reads throw. */
export async function loadSourceAt<T, Key extends string>(
  forge: FileReader,
  repo: RepoRef,
  file: RepoSourceFile<T, Key>,
  branch: string,
  commit: string,
): Promise<LoadedSource<T, Key>> {
  const read = await readSourceAt(forge, repo, file, commit)
  if (read.kind === 'none' || read.kind === 'both') return { kind: read.kind, branch, commit }
  const { path } = read
  if (read.kind === 'unreadable') {
    const detail = read.message.startsWith(`${path} `) ? read.message.slice(path.length + 1) : read.message
    return { kind: 'invalid', path, branch, commit, problems: [cappedProblem({ file: path, at: null, detail })] }
  }
  const parsed = parseSourceFile(file, path, read.text)
  if (!parsed.ok) return { kind: 'invalid', path, branch, commit, problems: parsed.error }
  return { kind: 'loaded', path, branch, commit, value: parsed.value, file: { path, text: read.text, sha: read.sha } }
}
