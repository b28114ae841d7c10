/**
 * An in-memory forge that throws what the Forgejo adapter throws: 404 →
 * `not_found`, a refused token → `unauthorized`, no write access →
 * `forbidden`, a file changed since it was read → `conflict`. Reads run as
 * the controller's site-admin account; `forAccount(token)` writes as the
 * token's owner.
 */

import { DIFF_READ_MAX_BYTES, diffOverReadCapMessage, utf8Length } from '../../core/budget.ts'
import { type AppError, appError } from '../../core/errors.ts'
import { repoName } from '../../core/repo.ts'
import type { RepoRef } from '../../core/types.ts'
import type { Forge, ForgeFile, ForgePullRequest, ForgeUser, ForgeWriter } from '../../ports/forge.ts'
import type { RepoPermission } from './forge-state.ts'
import {
  type AccountFlags,
  addSnapshot,
  addStatus,
  blobSha,
  buildState,
  defaultAccountFlags,
  type ForgeSeed,
  hasCommit,
  type PullState,
  permissionOf,
  pullState,
  type RepoState,
  repoKey,
  type SeedPull,
  type StoredCommit,
  type StoredReview,
  type StoredStatus,
  serviceAccountFlags,
  sha1,
  type UserState,
} from './forge-state.ts'
import { generatedDiffText } from './generated-diff.ts'

export type {
  AccountFlags,
  ForgeSeed,
  SeedPull,
  SeedRepo,
  SeedToken,
  SeedUser,
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
  /** The account's flags as the admin edit left them; `null` for an unknown user. */
  accountFlags(login: string): AccountFlags | null
  /** Changes the account's flags behind the adapter's back, as a site admin would by hand. */
  changeAccount(login: string, flags: Partial<AccountFlags>): void
  /** While set, every call rejects with this error (the forge down, or no forge token yet). */
  simulateFailure(error: AppError | null): void
}

const SCOPE_NAMES = [
  'activitypub',
  'admin',
  'misc',
  'notification',
  'organization',
  'package',
  'issue',
  'repository',
  'user',
]
const KNOWN_SCOPES = new Set(['all', 'public-only', ...SCOPE_NAMES.flatMap((n) => [`read:${n}`, `write:${n}`])])
const RANK: Record<RepoPermission, number> = { none: 0, read: 1, write: 2, admin: 3, owner: 4 }

export function createMemoryForge(seed: ForgeSeed = {}): MemoryForge {
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

  function writerFor(token: string): ForgeWriter {
    async function actor(scope: string): Promise<UserState> {
      await call()
      for (const user of state.users.values()) {
        const owned = user.tokens.find((t) => t.token === token)
        if (owned === undefined) continue
        const account = flags.get(user.login.toLowerCase()) ?? defaultAccountFlags()
        // The forge refuses every call of such an account, whatever the token (docs/forgejo.md §2.1).
        if (!account.active) throw appError('forbidden', `account ${user.login} is not active`)
        if (account.prohibitLogin) throw appError('forbidden', `account ${user.login} is prohibited from signing in`)
        if (account.mustChangePassword) throw appError('forbidden', `account ${user.login} must change its password`)
        if (!owned.scopes.includes(scope) && !owned.scopes.includes('all')) {
          throw appError('forbidden', `token does not have the required scope ${scope}`)
        }
        return user
      }
      throw appError('unauthorized', 'the forge refuses the token')
    }

    function visibleRepo(repo: RepoRef, user: UserState): RepoState {
      const found = requireRepo(repo)
      // A private repo the account can't read is hidden behind the same 404 as a missing one.
      if (permissionOf(found, user) === 'none') throw appError('not_found', `repository ${repoName(repo)} not found`)
      return found
    }

    return {
      async createReview(repo, pr, review) {
        const user = await actor('write:repository')
        const found = visibleRepo(repo, user)
        const { pull } = requirePull(repo, pr)
        if (review.event !== 'APPROVED' && review.body.trim() === '') {
          throw appError('invalid', `a ${review.event} review needs a body`)
        }
        if (review.event !== 'COMMENT' && pull.author.toLowerCase() === user.login.toLowerCase()) {
          throw appError('invalid', 'an account cannot approve or reject its own pull request')
        }
        state.counters.review += 1
        const id = state.counters.review
        const stored: StoredReview = {
          id,
          pr,
          user: user.login,
          event: review.event,
          body: review.body,
          commitId: review.commitId,
          htmlUrl: `${toPull(found, pull).htmlUrl}#issuecomment-${id}`,
        }
        found.reviews.push(stored)
        return { id, htmlUrl: stored.htmlUrl }
      },

      async commitFile(repo, commit) {
        const user = await actor('write:repository')
        const found = visibleRepo(repo, user)
        if (RANK[permissionOf(found, user)] < RANK.write) {
          throw appError('forbidden', `${user.login} has no write access to ${repoName(repo)}`)
        }
        if (!/^[A-Za-z0-9._/-]{1,100}$/.test(commit.branch) || commit.branch.includes('..')) {
          throw appError('invalid', `invalid branch name ${commit.branch}`)
        }
        const base = filesAt(found, commit.from)
        if (!found.branches.has(commit.from) || base === null) {
          throw appError('not_found', `branch ${commit.from} not found in ${repoName(repo)}`)
        }
        if (found.branches.has(commit.branch)) throw appError('conflict', `branch ${commit.branch} already exists`)
        const current = base.get(commit.path)
        if ((current?.sha ?? null) !== commit.sha) {
          throw appError('conflict', `${commit.path} on ${commit.from} changed since it was read`)
        }
        found.branches.set(commit.branch, { head: found.branches.get(commit.from)?.head ?? '' })
        const sha = writeFile(found, commit.branch, commit.path, commit.content)
        const { branch, from, path, content, message, author, committer } = commit
        found.pushed.push({ sha, branch, from, path, content, message, author, committer, pusher: user.login })
        return { branch, commitSha: sha }
      },

      async setCommitStatus(repo, sha, status) {
        const user = await actor('write:repository')
        const found = visibleRepo(repo, user)
        if (RANK[permissionOf(found, user)] < RANK.write) {
          throw appError('forbidden', `${user.login} has no write access to ${repoName(repo)}`)
        }
        if (!hasCommit(found, sha)) throw appError('not_found', `commit ${sha} not found in ${repoName(repo)}`)
        const { state, context, description, targetUrl } = status
        addStatus(found, { sha, state, context, description, targetUrl: targetUrl ?? '', creator: user.login })
      },
    } satisfies ForgeWriter
  }

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

    async createUser(user) {
      await call()
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/.test(user.login))
        throw appError('invalid', `invalid user name ${user.login}`)
      if (!/^[^@\s]+@[^@\s]+$/.test(user.email)) throw appError('invalid', `invalid email ${user.email}`)
      const taken = [...state.users.values()].some(
        (u) => u.login.toLowerCase() === user.login.toLowerCase() || u.email.toLowerCase() === user.email.toLowerCase(),
      )
      if (taken) throw appError('conflict', `user ${user.login} or email ${user.email} already exists`)
      const created: UserState = {
        login: user.login,
        fullName: user.fullName,
        email: user.email,
        admin: false,
        tokens: [],
      }
      state.users.set(user.login.toLowerCase(), created)
      flags.set(user.login.toLowerCase(), serviceAccountFlags())
      return toUser(created)
    },
    async ensureServiceAccountLimits(login) {
      await call()
      const key = requireUser(login).login.toLowerCase()
      flags.set(key, serviceAccountFlags(flags.get(key)))
    },
    async listTokens(login) {
      await call()
      return requireUser(login).tokens.map((t) => ({ id: t.id, name: t.name, lastEight: t.token.slice(-8) }))
    },
    async mintToken(login, token) {
      await call()
      const user = requireUser(login)
      if (user.tokens.some((t) => t.name === token.name))
        throw appError('conflict', `access token name ${token.name} has been used already`)
      const unknown = token.scopes.filter((s) => !KNOWN_SCOPES.has(s))
      if (token.scopes.length === 0 || unknown.length > 0)
        throw appError('invalid', `invalid token scopes: ${unknown.join(', ') || 'none'}`)
      state.counters.token += 1
      const minted = {
        id: state.counters.token,
        name: token.name,
        token: sha1(`token ${state.counters.token}`),
        scopes: [...token.scopes],
      }
      user.tokens.push(minted)
      return { id: minted.id, name: minted.name, lastEight: minted.token.slice(-8), token: minted.token }
    },
    async deleteToken(login, id) {
      await call()
      const user = requireUser(login)
      const index = user.tokens.findIndex((t) => t.id === id)
      if (index < 0) throw appError('not_found', `user ${login} has no token ${id}`)
      user.tokens.splice(index, 1)
    },
    forAccount(token) {
      return writerFor(token)
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
    accountFlags(login) {
      const found = flags.get(login.toLowerCase())
      return found === undefined ? null : { ...found }
    },
    changeAccount(login, changes) {
      const key = requireUser(login).login.toLowerCase()
      flags.set(key, { ...(flags.get(key) ?? defaultAccountFlags()), ...changes })
    },
    simulateFailure(error) {
      failure = error
    },
  } satisfies MemoryForge
}
