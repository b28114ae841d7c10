/**
 * An in-memory forge that throws what the Forgejo adapter throws: 404 →
 * `not_found`, a refused token → `unauthorized`, no write access →
 * `forbidden`, a file changed since it was read → `conflict`. Reads run as
 * the controller's site-admin account; `forAccount(token)` writes as the
 * token's owner.
 */

import { type AppError, appError } from '../../core/base/errors.ts'
import { DIFF_READ_MAX_BYTES, diffOverReadCapMessage, utf8Length } from '../../core/run/budget.ts'
import type { RepoRef } from '../../core/wire/types.ts'
import type { Forge } from '../../ports/forge.ts'
import { createMemoryAccounts } from './forge-accounts.ts'
import { createForgeContext } from './forge-context.ts'
import {
  type AccountFlags,
  addComment,
  buildState,
  defaultAccountFlags,
  type ForgeSeed,
  permissionOf,
  pullState,
  type SeedPull,
  type StoredComment,
  type StoredCommit,
  type StoredReview,
  type StoredStatus,
} from './forge-state.ts'
import { createMemoryWriter } from './forge-writer.ts'
import { generatedDiffText } from './generated-diff.ts'

export type {
  AccountFlags,
  ForgeSeed,
  SeedPull,
  SeedRepo,
  StoredComment,
  StoredCommit,
  StoredReview,
  StoredStatus,
} from './forge-state.ts'

/** The port plus what a test needs to look behind it or change the forge underneath. */
export type MemoryForge = Forge & {
  /** Reviews posted on a PR, oldest first. */
  reviews(repo: RepoRef, pr: number): StoredReview[]
  /** Commits pushed through `commitFile`, oldest first. */
  pushedCommits(repo: RepoRef): StoredCommit[]
  /** Commit statuses set on `sha`, oldest first. */
  statuses(repo: RepoRef, sha: string): StoredStatus[]
  /** Writes (or with `null` deletes) a file on a branch as a new commit, behind the adapter's back. */
  changeFile(repo: RepoRef, branch: string, path: string, content: string | null): void
  /** Adds a PR, or changes one (a push moves `headSha`). */
  upsertPull(repo: RepoRef, pull: SeedPull): void
  /** Adds a comment by `login` on PR `pr`, as if written on the forge's page; its id. */
  addComment(repo: RepoRef, pr: number, login: string, body: string): number
  /** The comments on PR `pr`, oldest first, with their reactions. */
  comments(repo: RepoRef, pr: number): StoredComment[]
  /** The account's flags as the admin edit left them; `null` for an unknown user. */
  accountFlags(login: string): AccountFlags | null
  /** Changes the account's flags behind the adapter's back, as a site admin would by hand. */
  changeAccount(login: string, flags: Partial<AccountFlags>): void
  /** While set, every call rejects with this error (the forge down, or no forge token yet). */
  simulateFailure(error: AppError | null): void
}

export function createMemoryForge(seed: ForgeSeed = {}): MemoryForge {
  const state = buildState(seed)
  const flags = new Map(
    (seed.users ?? []).map((u) => [u.login.toLowerCase(), { ...defaultAccountFlags(), ...u.flags }]),
  )
  let failure: AppError | null = null
  const forge = createForgeContext(state, flags, () => failure)
  const { call, findRepo, requireRepo, requirePull, htmlUrl, toPull, toUser, filesAt, writeFile } = forge

  return {
    async getRepository(repo) {
      await call()
      const found = requireRepo(repo)
      return {
        owner: found.owner,
        name: found.name,
        fullName: `${found.owner}/${found.name}`,
        defaultBranch: found.defaultBranch,
        empty: found.branches.size === 0,
        private: found.private,
        htmlUrl: htmlUrl(found),
      }
    },
    async getPullRequest(repo, pr) {
      await call()
      const { repo: found, pull } = requirePull(repo, pr)
      return toPull(found, pull)
    },
    async listPullCommits(repo, pr) {
      await call()
      return requirePull(repo, pr).pull.commits.map((message) => ({ message }))
    },
    async getPullDiff(repo, pr, maxBytes = DIFF_READ_MAX_BYTES) {
      await call()
      const { pull } = requirePull(repo, pr)
      const bytes = pull.diffBytes ?? utf8Length(pull.diff)
      if (bytes > maxBytes) throw appError('unprocessable', diffOverReadCapMessage(maxBytes))
      return pull.diffBytes === null ? pull.diff : generatedDiffText(pull.diffBytes)
    },
    async getFileContent(repo, path, ref) {
      await call()
      const found = findRepo(repo)
      const files = found === null ? null : filesAt(found, ref)
      if (files === null) return null
      if ([...files.keys()].some((p) => p.startsWith(`${path}/`))) throw appError('invalid', `${path} is a directory`)
      const file = files.get(path)
      return file === undefined ? null : { ...file }
    },
    async getBranchHead(repo, branch) {
      await call()
      return findRepo(repo)?.branches.get(branch)?.head ?? null
    },
    async listReposWithOpenPulls() {
      await call()
      return [...state.repos.values()]
        .filter((r) => [...r.pulls.values()].some((p) => p.state === 'open'))
        .map((r) => ({ owner: r.owner, name: r.name }))
    },
    async listOpenPulls(repo) {
      await call()
      return [...requireRepo(repo).pulls.values()]
        .filter((p) => p.state === 'open')
        .sort((a, b) => b.number - a.number)
        .map((p) => ({ number: p.number, title: p.title, headSha: p.headSha }))
    },
    async listRecentPulls(repo, count) {
      await call()
      const found = requireRepo(repo)
      // Numbers stand for creation order here: the newest PR has the highest.
      return [...found.pulls.values()]
        .filter((p) => p.state === 'open' || p.merged)
        .sort((a, b) => b.number - a.number)
        .slice(0, count)
        .map((p) => toPull(found, p))
    },
    async getUser(login) {
      await call()
      const user = state.users.get(login.toLowerCase())
      return user === undefined ? null : toUser(user)
    },
    async getRepoPermission(repo, login) {
      await call()
      return permissionOf(requireRepo(repo), forge.requireUser(login))
    },

    ...createMemoryAccounts(forge),
    forAccount(token) {
      return createMemoryWriter(forge, token)
    },

    reviews(repo, pr) {
      return (findRepo(repo)?.reviews ?? []).filter((r) => r.pr === pr).map((r) => ({ ...r }))
    },
    pushedCommits(repo) {
      return (findRepo(repo)?.pushed ?? []).map((c) => ({ ...c }))
    },
    statuses(repo, sha) {
      return (findRepo(repo)?.statuses ?? []).filter((s) => s.sha === sha).map((s) => ({ ...s }))
    },
    changeFile(repo, branch, path, content) {
      writeFile(requireRepo(repo), branch, path, content)
    },
    upsertPull(repo, pull) {
      const found = requireRepo(repo)
      found.pulls.set(pull.number, pullState(found, pull, found.defaultBranch, found.pulls.get(pull.number)))
    },
    addComment(repo, pr, login, body) {
      return addComment(state, requireRepo(repo), pr, login, body).id
    },
    comments(repo, pr) {
      return (findRepo(repo)?.comments ?? [])
        .filter((c) => c.pr === pr)
        .map((c) => ({ ...c, reactions: c.reactions.map((r) => ({ ...r })) }))
    },
    accountFlags(login) {
      const found = flags.get(login.toLowerCase())
      return found === undefined ? null : { ...found }
    },
    changeAccount(login, changes) {
      const key = forge.requireUser(login).login.toLowerCase()
      flags.set(key, { ...(flags.get(key) ?? defaultAccountFlags()), ...changes })
    },
    simulateFailure(error) {
      failure = error
    },
  } satisfies MemoryForge
}
