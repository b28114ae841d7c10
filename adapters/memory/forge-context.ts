/**
 * What the memory forge's readers, writers and account calls share: its
 * state, the accounts' flags, the failure a test set, and the lookups that
 * answer a missing repo, PR or file the way Forgejo does.
 */
import { type AppError, appError } from '../../core/base/errors.ts'
import { repoName } from '../../core/wire/repo.ts'
import type { RepoRef } from '../../core/wire/types.ts'
import type { ForgeFile, ForgePullRequest, ForgeUser } from '../../ports/forge.ts'
import {
  type AccountFlags,
  addSnapshot,
  blobSha,
  defaultAccountFlags,
  type ForgeState,
  type PullState,
  type RepoState,
  repoKey,
  type UserState,
} from './forge-state.ts'

export type MemoryForgeContext = {
  state: ForgeState
  /** By lowercase login, beside the state the fake Forgejo shares, which keeps its own. */
  flags: Map<string, AccountFlags>
  /** Every call's first step: a turn of the event loop, then the failure a test set, if any. */
  call(): Promise<void>
  findRepo(repo: RepoRef): RepoState | null
  requireRepo(repo: RepoRef): RepoState
  requirePull(repo: RepoRef, pr: number): { repo: RepoState; pull: PullState }
  requireUser(login: string): UserState
  htmlUrl(repo: RepoState): string
  toPull(repo: RepoState, pull: PullState): ForgePullRequest
  toUser(user: UserState): ForgeUser
  /** The files at a branch or a commit; null for neither. */
  filesAt(repo: RepoState, ref: string): Map<string, ForgeFile> | null
  /** Writes (or with `null` deletes) a file as a new commit on `branch`; answers the commit's sha. */
  writeFile(repo: RepoState, branch: string, path: string, content: string | null): string
}

export function createForgeContext(
  state: ForgeState,
  flags: Map<string, AccountFlags>,
  failure: () => AppError | null,
): MemoryForgeContext {
  function findRepo(repo: RepoRef): RepoState | null {
    return state.repos.get(repoKey(repo.owner, repo.name)) ?? null
  }

  function requireRepo(repo: RepoRef): RepoState {
    const found = findRepo(repo)
    if (found === null) throw appError('not_found', `repository ${repoName(repo)} not found`)
    return found
  }

  function htmlUrl(repo: RepoState): string {
    return `${state.baseUrl}/${repo.owner}/${repo.name}`
  }

  function filesAt(repo: RepoState, ref: string): Map<string, ForgeFile> | null {
    const head = repo.branches.get(ref)?.head ?? ref
    return repo.snapshots.get(head) ?? null
  }

  return {
    state,
    flags,
    async call() {
      await Promise.resolve()
      const error = failure()
      if (error !== null) throw error
    },
    findRepo,
    requireRepo,
    requirePull(repo, pr) {
      const found = requireRepo(repo)
      const pull = found.pulls.get(pr)
      if (pull === undefined) throw appError('not_found', `pull request ${repoName(repo)}#${pr} not found`)
      return { repo: found, pull }
    },
    requireUser(login) {
      const user = state.users.get(login.toLowerCase())
      if (user === undefined) throw appError('not_found', `user ${login} not found`)
      return user
    },
    htmlUrl,
    toPull(repo, pull) {
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
    },
    toUser(user) {
      const account = flags.get(user.login.toLowerCase()) ?? defaultAccountFlags()
      return {
        login: user.login,
        fullName: user.fullName,
        email: user.email,
        active: account.active,
        prohibitLogin: account.prohibitLogin,
      }
    },
    filesAt,
    writeFile(repo, branch, path, content) {
      const files = new Map(filesAt(repo, branch) ?? [])
      if (content === null) files.delete(path)
      else files.set(path, { content, sha: blobSha(content) })
      const head = addSnapshot(state, repo, files)
      repo.branches.set(branch, { head })
      return head
    },
  }
}
