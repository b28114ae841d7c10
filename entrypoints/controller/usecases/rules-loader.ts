/**
 * A repo's rules as its default branch holds them (docs/behaviour.md, "Repo
 * configuration"), read with the controller's own token and no cache. The
 * `rules` route, "open a PR" and the review all load them through here, so
 * they agree on what counts as "no rules", "both files" and "doesn't load".
 *
 * The head is read first and both files are read at that commit, so the
 * answer belongs to one commit even when a push lands in between.
 */

import { appError, isAppError } from '../../../core/errors.ts'
import { repoName } from '../../../core/repo.ts'
import type { DefaultBranchRules } from '../../../core/repo-rules.ts'
import { cappedProblem } from '../../../core/rules-check.ts'
import { parseRulesFile, RULES_JSON_PATH, RULES_YML_PATH, selectRulesFile } from '../../../core/rules-file.ts'
import type { RepoRef } from '../../../core/types.ts'
import type { ForgeReader } from '../../../ports/forge.ts'

/** What loading the rules reads of the forge; a whole `ForgeReader` will do. */
export type RulesReader = Pick<ForgeReader, 'getRepository' | 'getBranchHead' | 'getFileContent'>

type FileRead = { kind: 'file'; text: string; sha: string } | { kind: 'unreadable'; detail: string } | null

/** One of the repo's own files at a commit: its text, null when absent, or why it isn't a file the forge hands over. */
export async function readRepoFile(forge: RulesReader, repo: RepoRef, path: string, commit: string): Promise<FileRead> {
  try {
    const file = await forge.getFileContent(repo, path, commit)
    return file === null ? null : { kind: 'file', text: file.content, sha: file.sha }
  } catch (error) {
    // Something is at the path, but not a file the forge hands over: it counts as present and doesn't load.
    if (!isAppError(error, 'invalid')) throw error
    const detail = error.message.startsWith(`${path} `) ? error.message.slice(path.length + 1) : error.message
    return { kind: 'unreadable', detail }
  }
}

/**
 * The repo's default branch and its head commit. Throws `not_found` for a
 * repo the forge doesn't know (or hides), an empty repo, and a default
 * branch that doesn't exist; the forge's own failures pass through.
 */
export async function readDefaultBranch(
  forge: RulesReader,
  repo: RepoRef,
): Promise<{ branch: string; commit: string; htmlUrl: string }> {
  let found: Awaited<ReturnType<RulesReader['getRepository']>>
  try {
    found = await forge.getRepository(repo)
  } catch (error) {
    if (isAppError(error, 'not_found'))
      throw appError('not_found', `the forge has no repo ${repoName(repo)} that this host can read`, error)
    throw error
  }
  const branch = found.defaultBranch
  if (found.empty) throw appError('not_found', `${repoName(repo)} is empty: its default branch ${branch} has no commit`)
  const commit = await forge.getBranchHead(repo, branch)
  if (commit === null) throw appError('not_found', `the default branch ${branch} of ${repoName(repo)} doesn't exist`)
  return { branch, commit, htmlUrl: found.htmlUrl }
}

/**
 * The rules on the repo's default branch. Throws `not_found` for a repo the
 * forge doesn't know (or hides), an empty repo, and a default branch that
 * doesn't exist; the forge's `unavailable` / `timeout` (and any other
 * failure of its calls) pass through.
 */
export async function loadDefaultBranchRules(forge: RulesReader, repo: RepoRef): Promise<DefaultBranchRules> {
  const { branch, commit } = await readDefaultBranch(forge, repo)
  return loadRulesAt(forge, repo, branch, commit)
}

/** The rules at `commit` (the default branch's head, or a PR's head for the rules-change report); `branch` names it. */
export async function loadRulesAt(
  forge: RulesReader,
  repo: RepoRef,
  branch: string,
  commit: string,
): Promise<DefaultBranchRules> {
  const [yml, json] = await Promise.all([
    readRepoFile(forge, repo, RULES_YML_PATH, commit),
    readRepoFile(forge, repo, RULES_JSON_PATH, commit),
  ])
  const selected = selectRulesFile({ yml: yml !== null, json: json !== null })
  if (!selected.ok) return { kind: 'both', branch, commit }
  const path = selected.value
  const file = path === RULES_YML_PATH ? yml : json
  if (path === null || file === null) return { kind: 'none', branch, commit }
  if (file.kind === 'unreadable')
    return {
      kind: 'invalid',
      path,
      branch,
      commit,
      problems: [cappedProblem({ file: path, at: null, detail: file.detail })],
    }
  const parsed = parseRulesFile(path, file.text)
  if (!parsed.ok) return { kind: 'invalid', path, branch, commit, problems: parsed.error }
  return {
    kind: 'rules',
    path,
    branch,
    commit,
    classifications: parsed.value,
    file: { path, text: file.text, sha: file.sha },
  }
}
