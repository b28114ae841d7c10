/**
 * The memory forge's writes as an account (`forAccount(token)`): the
 * token's owner posts a review, pushes a file on a new branch or sets a
 * commit status, refused as Forgejo refuses them: an unknown token is
 * `unauthorized`; an account that is inactive, prohibited from signing in
 * or must change its password, a token without the scope and an account
 * without write access are `forbidden`; a private repo it can't read is a
 * 404 like a missing one.
 */
import { appError } from '../../core/base/errors.ts'
import { repoName } from '../../core/wire/repo.ts'
import type { RepoRef } from '../../core/wire/types.ts'
import type { ForgeWriter } from '../../ports/forge.ts'
import type { MemoryForgeContext } from './forge-context.ts'
import {
  addComment,
  addSnapshot,
  addStatus,
  blobSha,
  defaultAccountFlags,
  findComment,
  hasCommit,
  permissionOf,
  type RepoPermission,
  type RepoState,
  type StoredReview,
  type UserState,
} from './forge-state.ts'

const RANK: Record<RepoPermission, number> = { none: 0, read: 1, write: 2, admin: 3, owner: 4 }

export function createMemoryWriter(forge: MemoryForgeContext, token: string): ForgeWriter {
  const { state, flags } = forge

  async function actor(scope: string): Promise<UserState> {
    await forge.call()
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
    const found = forge.requireRepo(repo)
    // A private repo the account can't read is hidden behind the same 404 as a missing one.
    if (permissionOf(found, user) === 'none') throw appError('not_found', `repository ${repoName(repo)} not found`)
    return found
  }

  function requireWrite(found: RepoState, repo: RepoRef, user: UserState): void {
    if (RANK[permissionOf(found, user)] < RANK.write) {
      throw appError('forbidden', `${user.login} has no write access to ${repoName(repo)}`)
    }
  }

  return {
    async createReview(repo, pr, review) {
      const user = await actor('write:repository')
      const found = visibleRepo(repo, user)
      const { pull } = forge.requirePull(repo, pr)
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
        htmlUrl: `${forge.toPull(found, pull).htmlUrl}#issuecomment-${id}`,
      }
      found.reviews.push(stored)
      return { id, htmlUrl: stored.htmlUrl }
    },

    async commitFile(repo, commit) {
      const user = await actor('write:repository')
      const found = visibleRepo(repo, user)
      requireWrite(found, repo, user)
      if (!/^[A-Za-z0-9._/-]{1,100}$/.test(commit.branch) || commit.branch.includes('..')) {
        throw appError('invalid', `invalid branch name ${commit.branch}`)
      }
      const base = forge.filesAt(found, commit.from)
      if (!found.branches.has(commit.from) || base === null) {
        throw appError('not_found', `branch ${commit.from} not found in ${repoName(repo)}`)
      }
      if (found.branches.has(commit.branch)) throw appError('conflict', `branch ${commit.branch} already exists`)
      const more = commit.moreFiles ?? []
      for (const file of [commit, ...more]) {
        if ((base.get(file.path)?.sha ?? null) !== file.sha) {
          throw appError('conflict', `${file.path} on ${commit.from} changed since it was read`)
        }
      }
      found.branches.set(commit.branch, { head: found.branches.get(commit.from)?.head ?? '' })
      // One commit: one snapshot with every file written.
      const files = new Map(base)
      for (const file of [commit, ...more]) files.set(file.path, { content: file.content, sha: blobSha(file.content) })
      const sha = addSnapshot(state, found, files)
      found.branches.set(commit.branch, { head: sha })
      const { branch, from, path, content, message, author, committer } = commit
      found.pushed.push({
        sha,
        branch,
        from,
        path,
        content,
        message,
        author,
        committer,
        pusher: user.login,
        ...(more.length === 0 ? {} : { moreFiles: more.map((file) => ({ path: file.path, content: file.content })) }),
      })
      return { branch, commitSha: sha }
    },

    async setCommitStatus(repo, sha, status) {
      const user = await actor('write:repository')
      const found = visibleRepo(repo, user)
      requireWrite(found, repo, user)
      if (!hasCommit(found, sha)) throw appError('not_found', `commit ${sha} not found in ${repoName(repo)}`)
      const { state: statusState, context, description, targetUrl } = status
      addStatus(found, {
        sha,
        state: statusState,
        context,
        description,
        targetUrl: targetUrl ?? '',
        creator: user.login,
      })
    },

    async reactToComment(repo, commentId, reaction) {
      const user = await actor('write:issue')
      const comment = findComment(visibleRepo(repo, user), commentId)
      if (comment === undefined) throw appError('not_found', `comment ${commentId} not found in ${repoName(repo)}`)
      if (!comment.reactions.some((r) => r.user === user.login && r.content === reaction))
        comment.reactions.push({ user: user.login, content: reaction })
    },

    async createComment(repo, index, body) {
      const user = await actor('write:issue')
      const found = visibleRepo(repo, user)
      forge.requirePull(repo, index)
      const comment = addComment(state, found, index, user.login, body)
      return {
        id: comment.id,
        htmlUrl: `${state.baseUrl}/${found.owner}/${found.name}/pulls/${index}#issuecomment-${comment.id}`,
      }
    },
  } satisfies ForgeWriter
}
