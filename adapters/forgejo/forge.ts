/**
 * The forge port on Forgejo's REST API (docs/forgejo.md; docs/decisions.md, "Forge").
 *
 * Reads and admin calls run on the controller's site-admin token, asked of
 * `config.token` on every call so a rotated token is picked up without a
 * restart; `forAccount(token)` writes as the service account. Every request
 * has a deadline (`timeoutMs`, two minutes by default).
 */

import { randomBytes } from 'node:crypto'
import { appError, isAppError } from '../../core/base/errors.ts'
import { DIFF_READ_MAX_BYTES } from '../../core/run/budget.ts'
import type { RepoRef } from '../../core/wire/types.ts'
import { FORGE_CALL_DEADLINE_MS, type Forge, type ForgeWriter, type NewBranchCommit } from '../../ports/forge.ts'
import type { Logger } from '../../ports/logger.ts'
import { createForgejoClient, type EditUserOptions, type FileWriteResult, type ForgejoClient } from './client.ts'
import {
  type Credentials,
  collectPages,
  collectPagesConcurrently,
  createHttp,
  type FetchFn,
  mapWithConcurrency,
} from './http.ts'
import {
  encodeContent,
  hasAdminTokenRoutes,
  isValidBranchName,
  parseVersion,
  toCommitMessages,
  toForgeFile,
  toMintedToken,
  toPostedReview,
  toPullRequest,
  toPullSummary,
  toRepoPermission,
  toRepoRef,
  toRepository,
  toTokenInfo,
  toUser,
} from './mappers.ts'
import type { PullRequestBody } from './schemas.ts'

export type ForgejoForgeConfig = {
  /** The forge's root URL, e.g. `https://forge.example`; the API is under `/api/v1`. */
  baseUrl: string
  /** Per request, headers and body; default two minutes. */
  timeoutMs?: number
  /** The controller's own site-admin token, read from the secret store on each call; `null` when none is stored yet. */
  token: () => Promise<string | null>
  /** Requests at once when listing every repo; default 8. */
  concurrency?: number
  /** Where a request still unanswered after `slowMs` (default 10 s), or past its deadline, is logged (http.ts). */
  logger?: Logger
  slowMs?: number
}

export type { FetchFn } from './http.ts'

const DEFAULT_CONCURRENCY = 8
/**
 * What the service account is held to (docs/forgejo.md §2.1, §3.13): no
 * password change due, or the forge refuses its every call; `0` repos and no
 * organizations, which `CreateUserOption` can't say. `active` and
 * `prohibit_login` are left alone (a new account is created active), so a
 * site admin can stop the account by hand and it stays stopped.
 */
const SERVICE_ACCOUNT_LIMITS = {
  must_change_password: false,
  max_repo_creation: 0,
  allow_create_organization: false,
} as const satisfies EditUserOptions
/**
 * Statuses the contents API answers when the branch or file moved under us (docs/forgejo.md §3.6; 500 is the
 * PUT-on-missing-file quirk).
 */
const REREAD_STATUSES = new Set([409, 422, 500])

export function createForgejoForge(config: ForgejoForgeConfig, fetchFn: FetchFn = fetch): Forge {
  const http = createHttp(
    {
      baseUrl: config.baseUrl,
      timeoutMs: config.timeoutMs ?? FORGE_CALL_DEADLINE_MS,
      ...(config.logger === undefined ? {} : { logger: config.logger }),
      ...(config.slowMs === undefined ? {} : { slowMs: config.slowMs }),
    },
    fetchFn,
  )
  const client = createForgejoClient(http)
  const concurrency = Math.max(1, config.concurrency ?? DEFAULT_CONCURRENCY)

  async function admin(): Promise<Credentials> {
    let token: string | null
    try {
      token = await config.token()
    } catch (error) {
      if (isAppError(error)) throw error
      throw appError('unavailable', 'the forge token could not be read')
    }
    if (token === null || token === '')
      throw appError('unavailable', 'no forge token yet: the controller has no site-admin token for the forge')
    return { kind: 'token', token }
  }

  /** Whether the forge takes an admin token for another user's tokens, read on each call: the forge may be upgraded while we run. */
  async function adminTokenRoutes(auth: Credentials): Promise<boolean> {
    return hasAdminTokenRoutes(parseVersion(await client.getVersion(auth)))
  }

  /**
   * Forgejo < 16 mints and deletes tokens only for a password login, so the
   * account gets a fresh random password, used for this one call and then
   * forgotten (docs/decisions.md, "Forge"). `not_found` here is the unknown user.
   */
  async function asAccount(auth: Credentials, login: string): Promise<Credentials> {
    const password = randomPassword()
    await client.editUser(auth, login, { password, must_change_password: false })
    return { kind: 'basic', login, password }
  }

  return {
    async getRepository(repo) {
      return toRepository(await client.getRepository(await admin(), repo))
    },
    async getPullRequest(repo, pr) {
      return toPullRequest(await client.getPull(await admin(), repo, pr))
    },
    async listPullCommits(repo, pr) {
      const auth = await admin()
      return toCommitMessages(await collectPages((page) => client.listPullCommits(auth, repo, pr, page)))
    },
    async getPullDiff(repo, pr, maxBytes = DIFF_READ_MAX_BYTES) {
      return client.getPullDiff(await admin(), repo, pr, maxBytes)
    },
    async getFileContent(repo, path, ref) {
      const answer = await client.getContents(await admin(), repo, path, ref)
      if (answer === null) return null
      if (answer.kind === 'directory')
        throw appError('invalid', `${path} is a directory in ${repo.owner}/${repo.name} at ${ref}`)
      return toForgeFile(answer.file)
    },
    async getBranchHead(repo, branch) {
      return (await client.getBranch(await admin(), repo, branch))?.commit.id ?? null
    },
    async listReposWithOpenPulls() {
      const auth = await admin()
      const repos = await collectPagesConcurrently((page) => client.searchRepositories(auth, page), concurrency)
      const counted = repos.filter((r) => r.open_pr_counter !== undefined)
      // A forge that doesn't count open PRs per repo gets one small call per repo, a few at a time.
      const uncounted = repos.filter((r) => r.open_pr_counter === undefined && !r.empty)
      const checked = await mapWithConcurrency(uncounted, concurrency, async (r) => {
        try {
          return (await client.listPulls(auth, toRepoRef(r), 'open', 1, 1)).items.length > 0
        } catch (error) {
          // Deleted since it was listed, or its pull requests turned off.
          if (isAppError(error, 'not_found')) return false
          throw error
        }
      })
      return [
        ...counted.filter((r) => (r.open_pr_counter ?? 0) > 0),
        ...uncounted.filter((_, i) => checked[i] === true),
      ].map(toRepoRef)
    },
    async listOpenPulls(repo) {
      const auth = await admin()
      const pulls = await collectPages((page) => client.listPulls(auth, repo, 'open', page))
      return pulls.map(toPullSummary).sort((a, b) => b.number - a.number)
    },
    async listRecentPulls(repo, count) {
      const auth = await admin()
      // `state=all` without `sort` lists every PR newest created first (docs/forgejo.md §3.10, §6.1).
      const wanted = (p: PullRequestBody) => p.state === 'open' || p.merged
      const pulls = await collectPages(
        (page) => client.listPulls(auth, repo, 'all', page),
        (all) => all.filter(wanted).length >= count,
      )
      return pulls.filter(wanted).slice(0, count).map(toPullRequest)
    },
    async getUser(login) {
      const user = await client.getUser(await admin(), login)
      return user === null ? null : toUser(user)
    },
    async getRepoPermission(repo, login) {
      return toRepoPermission(await client.getRepoPermission(await admin(), repo, login))
    },

    async createUser(user) {
      const auth = await admin()
      let created: Awaited<ReturnType<typeof client.createUser>>
      try {
        created = await client.createUser(auth, {
          username: user.login,
          email: user.email,
          full_name: user.fullName,
          // Forgejo's local accounts need one (docs/forgejo.md §3.13); nobody logs in with it.
          password: randomPassword(),
          // Defaults to true, which makes the forge refuse every API call of the account (docs/forgejo.md §2.1).
          must_change_password: false,
          send_notify: false,
        })
      } catch (error) {
        // Forgejo answers 422 for a taken name or email and for a bad one alike.
        if (
          isAppError(error, 'invalid') &&
          (/already (exists|in use|used)/i.test(error.message) || (await client.getUser(auth, user.login)) !== null)
        ) {
          throw appError('conflict', `the forge already has user ${user.login} or email ${user.email}`, error)
        }
        throw error
      }
      // `CreateUserOption` can't say "no repos"; the admin edit can. If it fails, the next provisioning pass applies it.
      await client.editUser(auth, user.login, { ...SERVICE_ACCOUNT_LIMITS })
      return toUser(created)
    },
    async ensureServiceAccountLimits(login) {
      // The user JSON doesn't show the repo limit, so there is nothing to compare: one edit that sets what is already set is the check.
      await client.editUser(await admin(), login, { ...SERVICE_ACCOUNT_LIMITS })
    },
    async listTokens(login) {
      const auth = await admin()
      return (await collectPages((page) => client.listTokens(auth, login, page))).map(toTokenInfo)
    },
    async mintToken(login, token) {
      const auth = await admin()
      try {
        if (await adminTokenRoutes(auth)) return toMintedToken(await client.adminCreateToken(auth, login, token))
        return toMintedToken(await client.createToken(await asAccount(auth, login), login, token))
      } catch (error) {
        // 400 is both "name used already" and "unknown scope"; the list tells them apart.
        if (isAppError(error, 'invalid') && (await tokenNamed(auth, login, token.name))) {
          throw appError('conflict', `user ${login} already has a token named ${token.name}`, error)
        }
        throw error
      }
    },
    async deleteToken(login, id) {
      const auth = await admin()
      if (await adminTokenRoutes(auth)) return client.adminDeleteToken(auth, login, id)
      await client.deleteToken(await asAccount(auth, login), login, id)
    },
    forAccount(token) {
      return createWriter(client, { kind: 'token', token })
    },
  } satisfies Forge

  async function tokenNamed(auth: Credentials, login: string, name: string): Promise<boolean> {
    try {
      return (await collectPages((page) => client.listTokens(auth, login, page))).some((t) => t.name === name)
    } catch {
      return false
    }
  }
}

function createWriter(client: ForgejoClient, auth: Credentials): ForgeWriter {
  /**
   * Why the forge refused a write, read back from the forge: the statuses
   * alone don't say (422 is both "branch exists" and "file exists", and a
   * PUT on a file deleted since answers 500). `null` when nothing moved.
   */
  async function conflictReason(repo: RepoRef, commit: NewBranchCommit): Promise<string | null> {
    try {
      if ((await client.getBranch(auth, repo, commit.branch)) !== null) return `branch ${commit.branch} already exists`
      for (const file of [commit, ...(commit.moreFiles ?? [])]) {
        const current = await client.getContents(auth, repo, file.path, commit.from)
        const sha = current?.kind === 'file' ? current.file.sha : null
        if (current?.kind === 'directory') return `${file.path} on ${commit.from} is now a directory`
        if (sha !== file.sha) return `${file.path} on ${commit.from} changed since it was read`
      }
      return null
    } catch {
      return null
    }
  }

  return {
    async createReview(repo, pr, review) {
      const posted = await client.createReview(auth, repo, pr, {
        event: review.event,
        body: review.body,
        commit_id: review.commitId,
      })
      // An event the forge doesn't know silently becomes a draft nobody sees (docs/forgejo.md §3.7).
      if (posted.state === 'PENDING')
        throw appError(
          'invalid',
          `the forge kept the ${review.event} review on ${repo.owner}/${repo.name}#${pr} as a pending draft`,
        )
      return toPostedReview(posted)
    },

    async commitFile(repo, commit) {
      if (!isValidBranchName(commit.branch))
        throw appError('invalid', `${JSON.stringify(commit.branch)} is not a branch name git accepts`)
      const options = {
        branch: commit.from,
        new_branch: commit.branch,
        content: encodeContent(commit.content),
        message: commit.message,
        author: commit.author,
        committer: commit.committer,
      }
      const more = commit.moreFiles ?? []
      const result: FileWriteResult =
        more.length === 0
          ? await client.writeFile(
              auth,
              repo,
              commit.path,
              commit.sha === null ? options : { ...options, sha: commit.sha },
            )
          : await client.changeFiles(auth, repo, {
              branch: options.branch,
              new_branch: options.new_branch,
              message: options.message,
              author: options.author,
              committer: options.committer,
              files: [commit, ...more].map((file) => ({
                operation: file.sha === null ? 'create' : 'update',
                path: file.path,
                content: encodeContent(file.content),
                ...(file.sha === null ? {} : { sha: file.sha }),
              })),
            })
      if (result.kind === 'written') return { branch: commit.branch, commitSha: result.commitSha }
      if (REREAD_STATUSES.has(result.status)) {
        const reason = await conflictReason(repo, commit)
        if (reason !== null)
          throw appError('conflict', `can't push to ${repo.owner}/${repo.name}: ${reason}`, result.error)
      }
      throw result.error
    },

    async setCommitStatus(repo, sha, status) {
      const { state, context, description, targetUrl } = status
      const options = { state, context, description }
      await client.createStatus(auth, repo, sha, targetUrl === null ? options : { ...options, target_url: targetUrl })
    },

    async reactToComment(repo, commentId, reaction) {
      await client.postCommentReaction(auth, repo, commentId, reaction)
    },

    async createComment(repo, index, body) {
      const posted = await client.createIssueComment(auth, repo, index, body)
      return { id: posted.id, htmlUrl: posted.html_url === '' ? null : posted.html_url }
    },
  } satisfies ForgeWriter
}

/**
 * 32 random bytes as base64url plus one character of each class, so any
 * `PASSWORD_COMPLEXITY` setting takes it. It never leaves this process except
 * to the forge.
 */
function randomPassword(): string {
  return `${randomBytes(32).toString('base64url')}aA1!`
}
