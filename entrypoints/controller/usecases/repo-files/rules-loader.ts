/**
 * A repo's rules as its default branch holds them (docs/behaviour.md, "Repo
 * configuration"), read with the controller's own token and no cache. The
 * `rules` route, "open a PR" and the review all load them through here, so
 * they agree on what counts as "no rules", "both files" and "doesn't load".
 *
 * The head is read first and both files are read at that commit
 * (source-loader.ts, as for the examples), so the answer belongs to one
 * commit even when a push lands in between.
 */

import { appError, isAppError } from '../../../../core/base/errors.ts'
import type { DefaultBranchRules } from '../../../../core/repo-files/repo-rules.ts'
import { RULES_FILE } from '../../../../core/repo-files/rules-file.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { RepoRef } from '../../../../core/wire/types.ts'
import type { ForgeReader } from '../../../../ports/forge.ts'
import { loadSourceAt } from './source-loader.ts'

/** What loading the rules reads of the forge; a whole `ForgeReader` will do. */
export type RulesReader = Pick<ForgeReader, 'getRepository' | 'getBranchHead' | 'getFileContent'>

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
  const loaded = await loadSourceAt(forge, repo, RULES_FILE, branch, commit)
  if (loaded.kind !== 'loaded') return loaded
  const { path, value, file } = loaded
  return { kind: 'rules', path, branch, commit, classifications: value, file }
}
