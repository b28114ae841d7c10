/**
 * One function per Forgejo REST endpoint the adapter calls (docs/forgejo.md §3),
 * each returning the answer checked against its schema. A 404 that means
 * "absent" rather than an error comes back as `null` where the endpoint says so;
 * every other failure throws the `AppError` the status maps to.
 */
import type { Static } from '@sinclair/typebox'
import { type AppError, appError } from '../../core/base/errors.ts'
import { diffOverReadCapMessage } from '../../core/run/budget.ts'
import type { RepoRef } from '../../core/wire/types.ts'
import {
  type Answer,
  AnswerTooLargeError,
  type Credentials,
  escapePath,
  escapeSegment,
  expectSuccess,
  type Http,
  PAGE_LIMIT,
  type Page,
  parseBody,
  type StatusCodes,
  statusError,
} from './http.ts'
import {
  AccessTokenListSchema,
  AccessTokenSchema,
  BranchSchema,
  CommentSchema,
  CommitListSchema,
  CommitStatusSchema,
  type ContentsBody,
  ContentsSchema,
  DirectorySchema,
  FileResponseSchema,
  PullRequestListSchema,
  PullRequestSchema,
  PullReviewSchema,
  RepoPermissionSchema,
  RepositorySchema,
  SearchResultsSchema,
  UserSchema,
  VersionSchema,
} from './schemas.ts'

export type Identity = { name: string; email: string }

/** `CreateFileOptions` / `UpdateFileOptions` as sent (docs/forgejo.md §3.6). */
export type FileChangeOptions = {
  branch: string
  new_branch: string
  content: string
  message: string
  author: Identity
  committer: Identity
}

/** `CreateStatusOption` as sent (docs/forgejo.md §3.17); `target_url` left out for no link. */
export type CreateStatusOptions = {
  state: string
  context: string
  description: string
  target_url?: string
}

export type CreateUserOptions = {
  username: string
  email: string
  full_name: string
  password: string
  must_change_password: boolean
  send_notify: boolean
}

/**
 * Only what changes: Forgejo's admin edit (`EditUserOption`, no field
 * required in v15) leaves out what isn't sent. `login_name` and `source_id`
 * are never sent: they name the account's auth source, which isn't ours to
 * change, and the forge refuses one without the other (422).
 */
export type EditUserOptions = {
  password?: string
  must_change_password?: boolean
  active?: boolean
  max_repo_creation?: number
  allow_create_organization?: boolean
}

/** A write the forge refused, with the status, so the caller can look at why before naming the error. */
/** `POST /repos/{o}/{r}/contents` (ChangeFilesOptions): several files in one commit. */
export type FilesChangeOptions = Omit<FileChangeOptions, 'content'> & {
  files: { operation: 'create' | 'update'; path: string; content: string; sha?: string }[]
}

export type FileWriteResult =
  | { kind: 'written'; commitSha: string }
  | { kind: 'refused'; status: number; error: AppError }

export type ContentsAnswer = { kind: 'file'; file: ContentsBody } | { kind: 'directory'; entries: number } | null

function repoPath(repo: RepoRef): string {
  return `/repos/${escapeSegment(repo.owner)}/${escapeSegment(repo.name)}`
}

/** The requests every call is made with: `call` throws on an unexpected status, `callOrAbsent` answers 404 with `null`. */
function callsOver(http: Http) {
  async function call(request: Parameters<Http['send']>[0], codes: StatusCodes = {}): Promise<Answer> {
    const answer = await http.send(request)
    expectSuccess(answer, codes)
    return answer
  }

  /** The answer, or `null` on 404 (absent, or hidden from this token, which Forgejo doesn't tell apart). */
  async function callOrAbsent(request: Parameters<Http['send']>[0]): Promise<Answer | null> {
    const answer = await http.send(request)
    if (answer.status === 404) return null
    expectSuccess(answer)
    return answer
  }

  return { http, call, callOrAbsent }
}

type Calls = ReturnType<typeof callsOver>

/** The forge's version, and repositories and pull requests as the token sees them. */
function repoAndPullCalls({ call }: Calls) {
  return {
    async getVersion(auth: Credentials) {
      return parseBody(VersionSchema, await call({ method: 'GET', path: '/version', auth })).version
    },

    async getRepository(auth: Credentials, repo: RepoRef) {
      return parseBody(RepositorySchema, await call({ method: 'GET', path: repoPath(repo), auth }))
    },

    /** Every repo the token can see (a site admin sees all), one page. */
    async searchRepositories(auth: Credentials, page: number): Promise<Page<Static<typeof RepositorySchema>>> {
      const answer = await call({
        method: 'GET',
        path: '/repos/search',
        query: { sort: 'id', order: 'asc', page, limit: PAGE_LIMIT },
        auth,
      })
      return { items: parseBody(SearchResultsSchema, answer).data, answer }
    },

    /** One page of PRs; `state` is always sent, since leaving it out lists every state (docs/forgejo.md §6.1). */
    async listPulls(
      auth: Credentials,
      repo: RepoRef,
      state: 'open' | 'closed' | 'all',
      page: number,
      limit = PAGE_LIMIT,
    ) {
      const answer = await call({ method: 'GET', path: `${repoPath(repo)}/pulls`, query: { state, page, limit }, auth })
      return { items: parseBody(PullRequestListSchema, answer), answer }
    },

    async getPull(auth: Credentials, repo: RepoRef, pr: number) {
      return parseBody(PullRequestSchema, await call({ method: 'GET', path: `${repoPath(repo)}/pulls/${pr}`, auth }))
    },

    /** One page of the PR's commits, newest first; no signature checks or file lists, which cost the forge time. */
    async listPullCommits(auth: Credentials, repo: RepoRef, pr: number, page: number) {
      const answer = await call({
        method: 'GET',
        path: `${repoPath(repo)}/pulls/${pr}/commits`,
        query: { page, limit: PAGE_LIMIT, verification: false, files: false },
        auth,
      })
      return { items: parseBody(CommitListSchema, answer), answer }
    },

    /**
     * The API route, not the web `diff_url`, which refuses tokens (docs/forgejo.md §2.1). Read up to
     * `maxBytes`, then the stream is cancelled: `unprocessable` naming the cap.
     */
    async getPullDiff(auth: Credentials, repo: RepoRef, pr: number, maxBytes: number): Promise<string> {
      try {
        return (await call({ method: 'GET', path: `${repoPath(repo)}/pulls/${pr}.diff`, auth, maxBytes })).text
      } catch (error) {
        if (error instanceof AnswerTooLargeError) throw appError('unprocessable', diffOverReadCapMessage(maxBytes))
        throw error
      }
    },
  }
}

/** A repository's files and branches, and what a review posts: the review and the commit status. */
function contentAndReviewCalls({ call, callOrAbsent, http }: Calls) {
  return {
    async getContents(auth: Credentials, repo: RepoRef, path: string, ref: string): Promise<ContentsAnswer> {
      const answer = await callOrAbsent({
        method: 'GET',
        path: `${repoPath(repo)}/contents/${escapePath(path)}`,
        query: { ref },
        auth,
      })
      if (answer === null) return null
      if (answer.text.trimStart().startsWith('[')) {
        const entries = parseBody(DirectorySchema, answer)
        // An empty repo answers `[]` for every path (docs/forgejo.md §6.4).
        return entries.length === 0 ? null : { kind: 'directory', entries: entries.length }
      }
      return { kind: 'file', file: parseBody(ContentsSchema, answer) }
    },

    /** `POST` creates the file (201); `PUT` with `sha` replaces that version of it (200). */
    async writeFile(
      auth: Credentials,
      repo: RepoRef,
      path: string,
      options: FileChangeOptions & { sha?: string },
    ): Promise<FileWriteResult> {
      const method = options.sha === undefined ? 'POST' : 'PUT'
      const answer = await http.send({
        method,
        path: `${repoPath(repo)}/contents/${escapePath(path)}`,
        body: options,
        auth,
      })
      if (answer.status < 200 || answer.status > 299)
        return { kind: 'refused', status: answer.status, error: statusError(answer) }
      return { kind: 'written', commitSha: parseBody(FileResponseSchema, answer).commit.sha }
    },

    async changeFiles(auth: Credentials, repo: RepoRef, options: FilesChangeOptions): Promise<FileWriteResult> {
      const answer = await http.send({ method: 'POST', path: `${repoPath(repo)}/contents`, body: options, auth })
      if (answer.status < 200 || answer.status > 299)
        return { kind: 'refused', status: answer.status, error: statusError(answer) }
      return { kind: 'written', commitSha: parseBody(FileResponseSchema, answer).commit.sha }
    },

    /** The branch, or `null` when the repo or the branch doesn't exist (an empty repo has none). */
    async getBranch(auth: Credentials, repo: RepoRef, branch: string) {
      const answer = await callOrAbsent({
        method: 'GET',
        path: `${repoPath(repo)}/branches/${escapePath(branch)}`,
        auth,
      })
      return answer === null ? null : parseBody(BranchSchema, answer)
    },

    async createReview(
      auth: Credentials,
      repo: RepoRef,
      pr: number,
      review: { event: string; body: string; commit_id: string },
    ) {
      const answer = await call({ method: 'POST', path: `${repoPath(repo)}/pulls/${pr}/reviews`, body: review, auth })
      return parseBody(PullReviewSchema, answer)
    },

    /** Needs write access to the code; 404 for an unknown commit (docs/forgejo.md §3.17). */
    async createStatus(auth: Credentials, repo: RepoRef, sha: string, status: CreateStatusOptions) {
      const answer = await call({
        method: 'POST',
        path: `${repoPath(repo)}/statuses/${escapeSegment(sha)}`,
        body: status,
        auth,
      })
      return parseBody(CommitStatusSchema, answer)
    },

    /** Needs `write:issue`; 200 when the account had given that reaction already, 201 when new (docs/forgejo.md §3.18). */
    async postCommentReaction(auth: Credentials, repo: RepoRef, commentId: number, content: string): Promise<void> {
      await call({
        method: 'POST',
        path: `${repoPath(repo)}/issues/comments/${commentId}/reactions`,
        body: { content },
        auth,
      })
    },

    /** Needs `write:issue`; a PR's number is its issue's (docs/forgejo.md §3.18). */
    async createIssueComment(auth: Credentials, repo: RepoRef, index: number, body: string) {
      const answer = await call({
        method: 'POST',
        path: `${repoPath(repo)}/issues/${index}/comments`,
        body: { body },
        auth,
      })
      return parseBody(CommentSchema, answer)
    },
  }
}

/** Users, their access to a repository, and their tokens: what provisioning the service account needs. */
function accountCalls({ call, callOrAbsent }: Calls) {
  return {
    async getUser(auth: Credentials, login: string) {
      const answer = await callOrAbsent({ method: 'GET', path: `/users/${escapeSegment(login)}`, auth })
      return answer === null ? null : parseBody(UserSchema, answer)
    },

    /** Effective access, teams and owners counted; 404 for an unknown repo or user (docs/forgejo.md §3.15). */
    async getRepoPermission(auth: Credentials, repo: RepoRef, login: string) {
      const answer = await call({
        method: 'GET',
        path: `${repoPath(repo)}/collaborators/${escapeSegment(login)}/permission`,
        auth,
      })
      return parseBody(RepoPermissionSchema, answer).permission
    },

    async createUser(auth: Credentials, user: CreateUserOptions) {
      return parseBody(UserSchema, await call({ method: 'POST', path: '/admin/users', body: user, auth }))
    },

    async editUser(auth: Credentials, login: string, changes: EditUserOptions) {
      return parseBody(
        UserSchema,
        await call({ method: 'PATCH', path: `/admin/users/${escapeSegment(login)}`, body: changes, auth }),
      )
    },

    async listTokens(auth: Credentials, login: string, page: number) {
      const answer = await call({
        method: 'GET',
        path: `/users/${escapeSegment(login)}/tokens`,
        query: { page, limit: PAGE_LIMIT },
        auth,
      })
      return { items: parseBody(AccessTokenListSchema, answer), answer }
    },

    /** Forgejo < 16: needs Basic auth with the account's password (docs/forgejo.md §3.14). */
    async createToken(auth: Credentials, login: string, token: { name: string; scopes: string[] }) {
      const answer = await call({ method: 'POST', path: `/users/${escapeSegment(login)}/tokens`, body: token, auth })
      return parseBody(AccessTokenSchema, answer)
    },

    /** Forgejo < 16: Basic auth, like `createToken`. A numeric segment is read as the id. */
    async deleteToken(auth: Credentials, login: string, id: number): Promise<void> {
      await call({ method: 'DELETE', path: `/users/${escapeSegment(login)}/tokens/${id}`, auth })
    },

    /** Forgejo ≥ 16: an admin token may mint for another user. */
    async adminCreateToken(auth: Credentials, login: string, token: { name: string; scopes: string[] }) {
      const answer = await call({
        method: 'POST',
        path: `/admin/users/${escapeSegment(login)}/tokens`,
        body: token,
        auth,
      })
      return parseBody(AccessTokenSchema, answer)
    },

    async adminDeleteToken(auth: Credentials, login: string, id: number): Promise<void> {
      await call({ method: 'DELETE', path: `/admin/users/${escapeSegment(login)}/tokens/${id}`, auth })
    },
  }
}

export function createForgejoClient(http: Http) {
  const calls = callsOver(http)
  return { ...repoAndPullCalls(calls), ...contentAndReviewCalls(calls), ...accountCalls(calls) }
}

export type ForgejoClient = ReturnType<typeof createForgejoClient>
