/**
 * The memory forge as a token's owner writes to it (`forAccount(token)`): a
 * review, a branch with one commit, a commit status. Each checks what the
 * forge would: the token's owner and scopes, the account's flags, the
 * repo's visibility and the write access the call needs.
 */
import { appError } from '../../core/errors.ts'
import { repoName } from '../../core/repo.ts'
import type { RepoRef } from '../../core/types.ts'
import type { ForgeWriter } from '../../ports/forge.ts'
import type { ForgeLookups } from './forge-lookups.ts'
import {
  addStatus,
  defaultAccountFlags,
  hasCommit,
  permissionOf,
  type RepoPermission,
  type RepoState,
  type StoredReview,
  type UserState,
} from './forge-state.ts'

const RANK: Record<RepoPermission, number> = { none: 0, read: 1, write: 2, admin: 3, owner: 4 }

export function createMemoryWriter(forge: ForgeLookups, token: string): ForgeWriter {
  const { state, flags, call, requireRepo, requirePull, toPull, filesAt, writeFile } = forge

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
