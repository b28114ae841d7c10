/**
 * The memory forge's state and what its reads, its writer and its admin
 * calls share: the failure a test set (every call rejects with it), the
 * lookups that throw the adapter's 404s, the port's shapes of a PR and a
 * user, and the files of a branch.
 */
import type { AppError } from '../../core/errors.ts'
import { appError } from '../../core/errors.ts'
import { repoName } from '../../core/repo.ts'
import type { RepoRef } from '../../core/types.ts'
import type { ForgeFile, ForgePullRequest, ForgeUser } from '../../ports/forge.ts'
import {
  addSnapshot,
  blobSha,
  buildState,
  defaultAccountFlags,
  type ForgeSeed,
  type PullState,
  type RepoState,
  repoKey,
  type UserState,
} from './forge-state.ts'

export type ForgeLookups = ReturnType<typeof createForgeLookups>

export function createForgeLookups(seed: ForgeSeed) {
  const state = buildState(seed)
  /** By lowercase login, beside the state the fake Forgejo shares, which keeps its own. */
  const flags = new Map(
    (seed.users ?? []).map((u) => [u.login.toLowerCase(), { ...defaultAccountFlags(), ...u.flags }]),
  )
  let failure: AppError | null = null

  async function call(): Promise<void> {
    await Promise.resolve()
    if (failure !== null) throw failure
  }

  function findRepo(repo: RepoRef): RepoState | null {
    return state.repos.get(repoKey(repo.owner, repo.name)) ?? null
  }

  function requireRepo(repo: RepoRef): RepoState {
    const found = findRepo(repo)
    if (found === null) throw appError('not_found', `repository ${repoName(repo)} not found`)
    return found
  }

  function requirePull(repo: RepoRef, pr: number): { repo: RepoState; pull: PullState } {
    const found = requireRepo(repo)
    const pull = found.pulls.get(pr)
    if (pull === undefined) throw appError('not_found', `pull request ${repoName(repo)}#${pr} not found`)
    return { repo: found, pull }
  }

  function requireUser(login: string): UserState {
    const user = state.users.get(login.toLowerCase())
    if (user === undefined) throw appError('not_found', `user ${login} not found`)
    return user
  }

  function htmlUrl(repo: RepoState): string {
    return `${state.baseUrl}/${repo.owner}/${repo.name}`
  }

  function toPull(repo: RepoState, pull: PullState): ForgePullRequest {
    const { number, title, state: pullState, merged, headSha, headRef, baseRef } = pull
    return {
      number,
      title,
      state: pullState,
      merged,
      headSha,
      headRef,
      baseRef,
      htmlUrl: `${htmlUrl(repo)}/pulls/${number}`,
    }
  }

  function toUser(user: UserState): ForgeUser {
    const account = flags.get(user.login.toLowerCase()) ?? defaultAccountFlags()
    return {
      login: user.login,
      fullName: user.fullName,
      email: user.email,
      active: account.active,
      prohibitLogin: account.prohibitLogin,
    }
  }

  function filesAt(repo: RepoState, ref: string): Map<string, ForgeFile> | null {
    const head = repo.branches.get(ref)?.head ?? ref
    return repo.snapshots.get(head) ?? null
  }

  function writeFile(repo: RepoState, branch: string, path: string, content: string | null): string {
    const files = new Map(filesAt(repo, branch) ?? [])
    if (content === null) files.delete(path)
    else files.set(path, { content, sha: blobSha(content) })
    const head = addSnapshot(state, repo, files)
    repo.branches.set(branch, { head })
    return head
  }

  function setFailure(error: AppError | null): void {
    failure = error
  }

  return {
    state,
    flags,
    call,
    setFailure,
    findRepo,
    requireRepo,
    requirePull,
    requireUser,
    htmlUrl,
    toPull,
    toUser,
    filesAt,
    writeFile,
  }
}
