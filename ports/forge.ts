/**
 * The forge (Forgejo), split by whose token a call runs on.
 *
 * - {@link ForgeReader} and {@link ForgeAdmin} run on the controller's own
 *   site-admin token, which the adapter gets from a token provider on every
 *   call (no token yet → `unavailable`).
 * - {@link ForgeWriter} runs on the service account's token, which the caller
 *   reads from the secret store for each push or post and hands to
 *   {@link Forge.forAccount}. Making it a parameter keeps the two identities
 *   apart in the types: nothing can post a review or push a branch as the
 *   site admin by accident, and "the service account's token isn't minted
 *   yet" stays the caller's decision (a 503 or a no-verdict), not a hidden
 *   fallback.
 *
 * Every call has a deadline (two minutes); a forge that fails (5xx) or does
 * not answer in time throws `unavailable` / `timeout`, which the controller
 * maps to 503. Those two codes are implied on every method below.
 */
import type { CommitMessage, CommitStatusState, RepoRef, ReviewEvent } from '../core/wire/types.ts'

/**
 * Every forge call's deadline: two minutes, the bound the behaviour asks of a
 * forge call. What waits on the forge (a post waiting for the service
 * account's token to be minted) is held to the same bound.
 */
export const FORGE_CALL_DEADLINE_MS = 120_000

export type ForgeRepository = {
  owner: string
  name: string
  /** `owner/name` as the forge spells it. */
  fullName: string
  defaultBranch: string
  /** No commit at all: no branch, no file. */
  empty: boolean
  private: boolean
  /** The repo's web page, e.g. `https://forge.example/acme/widgets`; compare URLs hang off it. */
  htmlUrl: string
}

export type ForgePullRequest = {
  number: number
  title: string
  state: 'open' | 'closed'
  merged: boolean
  /** The head commit the run reads and the review is posted on; `''` when the forge can't resolve it. */
  headSha: string
  headRef: string
  baseRef: string
  htmlUrl: string
}

/** One line of the try-out page's PR picker. */
export type ForgePullSummary = {
  number: number
  title: string
  headSha: string
}

export type ForgeFile = {
  /** Decoded UTF-8 text. */
  content: string
  /** The blob sha, which an update must name to replace this exact version. */
  sha: string
}

export type NewReview = {
  event: ReviewEvent
  /** Markdown; must not be blank for `REQUEST_CHANGES` and `COMMENT`. */
  body: string
  /** The commit the run read, so the verdict belongs to it. */
  commitId: string
}

export type PostedReview = {
  id: number
  /** `null` when the forge names no URL for it. */
  htmlUrl: string | null
}

/** A commit status; the forge keeps every one and counts the latest per context. */
export type NewCommitStatus = {
  state: CommitStatusState
  context: string
  /** One line of plain text. */
  description: string
  /** Where the status links to (the posted review); `null` for no link. */
  targetUrl: string | null
}

export type GitIdentity = { name: string; email: string }

export type NewBranchCommit = {
  /** The branch to create; must not exist yet. */
  branch: string
  /** The branch it starts from (the default branch). */
  from: string
  path: string
  /** UTF-8 text; the adapter encodes it. */
  content: string
  /** The file's blob sha on `from` as read, or `null` when it had no such file. */
  sha: string | null
  message: string
  author: GitIdentity
  committer: GitIdentity
  /**
   * More files the same commit writes (the examples file beside the rules),
   * each checked against its sha as read like `path`; left out, the commit
   * writes `path` alone.
   */
  moreFiles?: readonly BranchFileWrite[]
}

/** One more file of a commit: its text, and its blob sha on `from` as read, or `null` when there was none. */
export type BranchFileWrite = { path: string; content: string; sha: string | null }

export type PushedCommit = {
  branch: string
  commitSha: string
}

/** A user's effective access to a repo, as the forge ranks it (docs/forgejo.md §3.15). */
export type RepoPermission = 'none' | 'read' | 'write' | 'admin' | 'owner'

export type ForgeUser = {
  login: string
  /** `''` when the account has none. */
  fullName: string
  /** The real address: the controller reads as site admin. */
  email: string
  /** `false` once an admin deactivated the account: the forge refuses its every call (docs/forgejo.md §2.1). */
  active: boolean
  /** `true` once an admin prohibited its sign-in: the forge refuses its every call, tokens included. */
  prohibitLogin: boolean
}

export type NewUser = {
  login: string
  email: string
  fullName: string
}

export type AccessTokenInfo = {
  id: number
  name: string
  /** The token's last eight characters, to check a stored token still exists. */
  lastEight: string
  /** The scopes it was minted with (`write:repository`, …); `[]` when the forge names none. */
  scopes: string[]
}

export type MintedToken = AccessTokenInfo & {
  /** The token itself; the forge shows it only once. */
  token: string
}

/** What the controller reads with its own token. */
export type ForgeReader = {
  /** The repo; `not_found` when unknown or hidden. */
  getRepository(repo: RepoRef): Promise<ForgeRepository>
  /** A PR by number, whatever its state; `not_found` for an unknown repo or PR (or an issue number). */
  getPullRequest(repo: RepoRef, pr: number): Promise<ForgePullRequest>
  /** Every commit of the PR, all pages, oldest first, full messages; `not_found` as above. */
  listPullCommits(repo: RepoRef, pr: number): Promise<CommitMessage[]>
  /**
   * The PR's unified diff from the API route (not the web `diff_url`); `not_found` as above.
   * `unprocessable` (core's `diffOverReadCapMessage`) when it is longer than `maxBytes` UTF-8
   * bytes (default core's `DIFF_READ_MAX_BYTES`), read no further than that.
   */
  getPullDiff(repo: RepoRef, pr: number, maxBytes?: number): Promise<string>
  /**
   * A file at a ref (branch or sha), or `null` when the repo, the ref or the
   * path doesn't exist (the forge answers one 404 for all three; call
   * `getRepository` first to tell them apart). `invalid` when the path is a
   * directory.
   */
  getFileContent(repo: RepoRef, path: string, ref: string): Promise<ForgeFile | null>
  /** The branch's head commit sha, or `null` when the repo or the branch doesn't exist (empty repo included). */
  getBranchHead(repo: RepoRef, branch: string): Promise<string | null>
  /** Every repo the token sees with at least one open PR, all pages, in no particular order. */
  listReposWithOpenPulls(): Promise<RepoRef[]>
  /** The repo's open PRs, all pages, highest number first; `not_found` for an unknown repo. */
  listOpenPulls(repo: RepoRef): Promise<ForgePullSummary[]>
  /**
   * The repo's newest `count` PRs that are open or merged, newest created
   * first (a PR closed without merging is skipped, and counts for nothing),
   * reading as many pages as that takes; fewer when the repo has fewer.
   * `not_found` for an unknown repo.
   */
  listRecentPulls(repo: RepoRef, count: number): Promise<ForgePullRequest[]>
  /** An account by login, or `null` when the forge has none. */
  getUser(login: string): Promise<ForgeUser | null>
  /**
   * `login`'s effective access to the repo (collaborator rows, teams, owner
   * and site admin all counted): `none` to `owner`. `not_found` for an
   * unknown repo or user. A value the forge adds later reads as `none`.
   */
  getRepoPermission(repo: RepoRef, login: string): Promise<RepoPermission>
}

/** What the controller does as site admin to provision the service account. */
export type ForgeAdmin = {
  /**
   * Creates an active account that needs no password change and may create no
   * repo, the last two set by a second call as {@link ForgeAdmin.ensureServiceAccountLimits}
   * sets them: when that call fails the account exists without them and the
   * error is thrown. `conflict` when the login or the email is taken;
   * `invalid` for any other refusal (a bad name or email); `forbidden`
   * without admin rights.
   */
  createUser(user: NewUser): Promise<ForgeUser>
  /**
   * Puts the account's limits back: no password change due and no repo or
   * organization creation, whatever it had (idempotent). Leaves `active` and
   * `prohibitLogin` as an admin set them. `not_found` for an unknown user,
   * `forbidden` without admin rights.
   */
  ensureServiceAccountLimits(login: string): Promise<void>
  /** The account's access tokens (never the secret part); `not_found` for an unknown user. */
  listTokens(login: string): Promise<AccessTokenInfo[]>
  /**
   * Mints a token for the account (on Forgejo < 16 through Basic auth with a
   * password the adapter sets and keeps in memory). `not_found` for an unknown
   * user; `conflict` when the account already has a token by that name;
   * `invalid` for an unknown scope.
   */
  mintToken(login: string, token: { name: string; scopes: string[] }): Promise<MintedToken>
  /** Deletes one of the account's tokens by id; `not_found` when it has none by that id. */
  deleteToken(login: string, id: number): Promise<void>
}

/**
 * What the service account does with its own token. Every method throws
 * `unauthorized` when the forge refuses the token (unknown or revoked) and
 * `forbidden` when its scope or the account's access falls short.
 */
export type ForgeWriter = {
  /**
   * Posts a submitted review on the PR. `not_found` for an unknown repo or PR
   * (or one the account can't read); `invalid` when the forge refuses it
   * (a blank body where one is needed, the account's own PR).
   */
  createReview(repo: RepoRef, pr: number, review: NewReview): Promise<PostedReview>
  /**
   * Creates `branch` from `from` with one commit that writes `path` (and
   * `moreFiles`, through the multi-file contents route), through the contents API. `not_found` for an unknown repo or a missing `from`;
   * `forbidden` without write access; `conflict` when the file on `from` no
   * longer matches `sha` (changed, added or removed since it was read) or
   * `branch` already exists; `invalid` for a branch name git refuses.
   */
  commitFile(repo: RepoRef, commit: NewBranchCommit): Promise<PushedCommit>
  /**
   * Sets a commit status on `sha` (a full sha the repo has, a PR's head included); `not_found` for an unknown
   * repo (or one the account can't read) or commit; `forbidden` without write access.
   */
  setCommitStatus(repo: RepoRef, sha: string, status: NewCommitStatus): Promise<void>
  /**
   * Adds the account's reaction (`+1`) to a comment of an issue or PR (needs
   * `write:issue`); adding one it already gave changes nothing. `not_found`
   * for an unknown repo or comment.
   */
  reactToComment(repo: RepoRef, commentId: number, reaction: CommentReaction): Promise<void>
  /**
   * Posts a comment on an issue or PR (needs `write:issue`); `not_found` for
   * an unknown repo or number.
   */
  createComment(repo: RepoRef, index: number, body: string): Promise<PostedComment>
}

/** The one reaction the service account gives: an accepted command. */
export type CommentReaction = '+1'

export type PostedComment = { id: number; htmlUrl: string | null }

/** The whole forge port: the controller's reads and admin calls, and a writer per account token. */
export type Forge = ForgeReader &
  ForgeAdmin & {
    /** A writer acting as the account that owns `token`; making it performs no call. */
    forAccount(token: string): ForgeWriter
  }
