/**
 * The memory forge's state: what a test seeds, and the Maps it becomes.
 * Names are looked up case-insensitively, as Forgejo does; shas are
 * deterministic (a blob's is git's own hash of its content), so a test can
 * predict them and two runs of a test see the same values.
 */
import { createHash } from 'node:crypto'
import type { ReviewEvent } from '../../core/wire/types.ts'
import type { ForgeFile, GitIdentity, RepoPermission } from '../../ports/forge.ts'

export type { RepoPermission } from '../../ports/forge.ts'

export type SeedUser = {
  login: string
  fullName?: string
  /** Default `<login>@example.org`. */
  email?: string
  /** A site admin sees every repo as `owner`. */
  admin?: boolean
  /** What differs from {@link defaultAccountFlags}. */
  flags?: Partial<AccountFlags>
}

/** What Forgejo keeps on an account beside its profile, which only the admin edit sets and no read shows in full. */
export type AccountFlags = {
  /** `false`: the forge refuses the account's every call. */
  active: boolean
  /** `true`: the forge refuses the account's every call, tokens included. */
  prohibitLogin: boolean
  /** `true`: the forge refuses the account's every call until it changes its password. */
  mustChangePassword: boolean
  /** `-1`: the site's default; `0`: none. */
  maxRepoCreation: number
  allowCreateOrganization: boolean
}

/** An account nobody restricted, as Forgejo's defaults leave it. */
export function defaultAccountFlags(): AccountFlags {
  return {
    active: true,
    prohibitLogin: false,
    mustChangePassword: false,
    maxRepoCreation: -1,
    allowCreateOrganization: true,
  }
}

/**
 * What `ensureServiceAccountLimits` (and so `createUser`) leaves on an
 * account: its limits, with `active` and `prohibitLogin` as they were.
 */
export function serviceAccountFlags(current: AccountFlags = defaultAccountFlags()): AccountFlags {
  return { ...current, mustChangePassword: false, maxRepoCreation: 0, allowCreateOrganization: false }
}

export type SeedToken = {
  login: string
  name: string
  token: string
  /** Default the service account's: `['write:repository', 'write:issue']`. */
  scopes?: string[]
}

export type SeedPull = {
  number: number
  title?: string
  state?: 'open' | 'closed'
  merged?: boolean
  /** The poster's login, who may not approve it; default `alice`. */
  author?: string
  headRef?: string
  baseRef?: string
  headSha?: string
  /** Messages, oldest first. */
  commits?: string[]
  diff?: string
  /**
   * Instead of `diff`: a generated diff of exactly this many bytes (generated-diff.ts), which the
   * fakes never hold whole: the memory forge refuses it past the read cap, the fake forge streams it.
   */
  diffBytes?: number | null
}

export type SeedRepo = {
  owner: string
  name: string
  /** Default `main`. */
  defaultBranch?: string
  private?: boolean
  /** No commit at all: no branch, no file; `files` and `branches` are ignored. */
  empty?: boolean
  /** Files on the default branch, path → text. */
  files?: Record<string, string>
  /** More branches, name → files. */
  branches?: Record<string, Record<string, string>>
  /** Commits on no branch, sha → files (a PR's head, which the forge keeps as `refs/pull/N/head`). */
  commits?: Record<string, Record<string, string>>
  pulls?: SeedPull[]
  collaborators?: Record<string, 'read' | 'write' | 'admin'>
}

export type ForgeSeed = {
  /** The forge's web root, default `https://forge.example`. */
  baseUrl?: string
  users?: SeedUser[]
  tokens?: SeedToken[]
  repos?: SeedRepo[]
}

/** A review as the forge stored it. */
export type StoredReview = {
  id: number
  pr: number
  /** The login of the account whose token posted it. */
  user: string
  event: ReviewEvent
  body: string
  commitId: string
  htmlUrl: string
}

/** A comment on an issue or PR as the forge stored it, with its reactions. */
export type StoredComment = {
  id: number
  pr: number
  user: string
  body: string
  /** Each reaction once per user, in the order given. */
  reactions: { user: string; content: string }[]
}

/** A commit status as the forge stored it. */
export type StoredStatus = {
  /** Counts the statuses of one commit from 1, as Forgejo numbers them. */
  id: number
  sha: string
  state: string
  context: string
  description: string
  /** `''` when none was given. */
  targetUrl: string
  /** The login of the account whose token set it. */
  creator: string
}

/** A commit pushed through the contents API. */
export type StoredCommit = {
  sha: string
  branch: string
  from: string
  path: string
  content: string
  message: string
  author: GitIdentity
  committer: GitIdentity
  /** The login of the account whose token pushed it. */
  pusher: string
  /** The commit's other files, when it wrote more than `path`. */
  moreFiles?: { path: string; content: string }[]
}

/** The token scopes Forgejo accepts (docs/forgejo.md §2.2); the memory forge and the fake forge refuse any other. */
export const KNOWN_TOKEN_SCOPES: ReadonlySet<string> = new Set([
  'all',
  'public-only',
  ...['activitypub', 'admin', 'misc', 'notification', 'organization', 'package', 'issue', 'repository', 'user'].flatMap(
    (n) => [`read:${n}`, `write:${n}`],
  ),
])

export type BranchState = { head: string }
export type PullState = Required<SeedPull>
export type TokenState = { id: number; name: string; token: string; scopes: string[] }
export type UserState = { login: string; fullName: string; email: string; admin: boolean; tokens: TokenState[] }

export type RepoState = {
  owner: string
  name: string
  defaultBranch: string
  private: boolean
  branches: Map<string, BranchState>
  /** Every commit's files, by commit sha, so a file reads at a branch or at a sha. */
  snapshots: Map<string, Map<string, ForgeFile>>
  pulls: Map<number, PullState>
  collaborators: Map<string, 'read' | 'write' | 'admin'>
  reviews: StoredReview[]
  /** Comments on its issues and PRs, oldest first; ids count across the forge, as Forgejo's do. */
  comments: StoredComment[]
  pushed: StoredCommit[]
  /** Commit statuses, oldest first. */
  statuses: StoredStatus[]
}

export type ForgeState = {
  baseUrl: string
  users: Map<string, UserState>
  repos: Map<string, RepoState>
  counters: { commit: number; review: number; token: number; comment: number }
}

export function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex')
}

/** Git's blob id for the text, as the contents API reports it. */
export function blobSha(content: string): string {
  const bytes = Buffer.from(content, 'utf8')
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
}

export function repoKey(owner: string, name: string): string {
  return `${owner}/${name}`.toLowerCase()
}

/** Records a new commit holding `files` and answers its sha. */
export function addSnapshot(state: ForgeState, repo: RepoState, files: Map<string, ForgeFile>): string {
  state.counters.commit += 1
  const sha = sha1(`commit ${state.counters.commit}`)
  repo.snapshots.set(sha, files)
  return sha
}

export function fileMap(files: Record<string, string>): Map<string, ForgeFile> {
  return new Map(Object.entries(files).map(([path, content]) => [path, { content, sha: blobSha(content) }]))
}

/** A PR's full state from a seed, filling what the seed leaves out from `previous` or defaults. */
export function pullState(
  repo: { owner: string; name: string },
  pull: SeedPull,
  defaultBranch: string,
  previous?: PullState,
): PullState {
  return {
    number: pull.number,
    title: pull.title ?? previous?.title ?? `PR #${pull.number}`,
    state: pull.state ?? previous?.state ?? 'open',
    merged: pull.merged ?? previous?.merged ?? false,
    author: pull.author ?? previous?.author ?? 'alice',
    headRef: pull.headRef ?? previous?.headRef ?? `topic-${pull.number}`,
    baseRef: pull.baseRef ?? previous?.baseRef ?? defaultBranch,
    headSha: pull.headSha ?? previous?.headSha ?? sha1(`head ${repo.owner}/${repo.name}#${pull.number}`),
    commits: [...(pull.commits ?? previous?.commits ?? [])],
    diff: pull.diff ?? previous?.diff ?? '',
    // A diff given now replaces a generated one.
    diffBytes: pull.diffBytes ?? (pull.diff === undefined ? (previous?.diffBytes ?? null) : null),
  }
}

export function buildState(seed: ForgeSeed): ForgeState {
  const state: ForgeState = {
    baseUrl: (seed.baseUrl ?? 'https://forge.example').replace(/\/+$/, ''),
    users: new Map(),
    repos: new Map(),
    counters: { commit: 0, review: 0, token: 0, comment: 0 },
  }
  for (const user of seed.users ?? []) {
    state.users.set(user.login.toLowerCase(), {
      login: user.login,
      fullName: user.fullName ?? '',
      email: user.email ?? `${user.login.toLowerCase()}@example.org`,
      admin: user.admin ?? false,
      tokens: [],
    })
  }
  for (const token of seed.tokens ?? []) {
    const user = state.users.get(token.login.toLowerCase())
    if (user === undefined) throw new Error(`seed token ${token.name} names unknown user ${token.login}`)
    state.counters.token += 1
    user.tokens.push({
      id: state.counters.token,
      name: token.name,
      token: token.token,
      scopes: token.scopes ?? ['write:repository', 'write:issue'],
    })
  }
  for (const seedRepo of seed.repos ?? []) {
    const defaultBranch = seedRepo.defaultBranch ?? 'main'
    const repo: RepoState = {
      owner: seedRepo.owner,
      name: seedRepo.name,
      defaultBranch,
      private: seedRepo.private ?? false,
      branches: new Map(),
      snapshots: new Map(),
      pulls: new Map((seedRepo.pulls ?? []).map((p) => [p.number, pullState(seedRepo, p, defaultBranch)])),
      collaborators: new Map(
        Object.entries(seedRepo.collaborators ?? {}).map(([login, p]) => [login.toLowerCase(), p]),
      ),
      reviews: [],
      comments: [],
      pushed: [],
      statuses: [],
    }
    if (seedRepo.empty !== true) {
      const branches = { ...seedRepo.branches, [defaultBranch]: seedRepo.files ?? {} }
      for (const [branch, files] of Object.entries(branches)) {
        repo.branches.set(branch, { head: addSnapshot(state, repo, fileMap(files)) })
      }
    }
    for (const [sha, files] of Object.entries(seedRepo.commits ?? {})) repo.snapshots.set(sha, fileMap(files))
    state.repos.set(repoKey(repo.owner, repo.name), repo)
  }
  return state
}

/** Whether the repo has the commit: one of its branches' commits, or a PR's head (the forge keeps `refs/pull/N/head`). */
export function hasCommit(repo: RepoState, sha: string): boolean {
  return repo.snapshots.has(sha) || [...repo.pulls.values()].some((pull) => pull.headSha === sha)
}

/** Records a commit status the way Forgejo does: text trimmed, numbered per commit. */
export function addStatus(repo: RepoState, status: Omit<StoredStatus, 'id'>): StoredStatus {
  const stored: StoredStatus = {
    ...status,
    id: repo.statuses.filter((s) => s.sha === status.sha).length + 1,
    context: status.context.trim(),
    description: status.description.trim(),
    targetUrl: status.targetUrl.trim(),
  }
  repo.statuses.push(stored)
  return stored
}

/** A user's effective access, as the collaborator permission route computes it. */
export function permissionOf(repo: RepoState, user: UserState): RepoPermission {
  if (user.admin || user.login.toLowerCase() === repo.owner.toLowerCase()) return 'owner'
  return repo.collaborators.get(user.login.toLowerCase()) ?? (repo.private ? 'none' : 'read')
}

/** Adds a comment by `user` on PR (or issue) `pr`; its id counts across the forge. */
export function addComment(state: ForgeState, repo: RepoState, pr: number, user: string, body: string): StoredComment {
  state.counters.comment += 1
  const comment: StoredComment = { id: state.counters.comment, pr, user, body, reactions: [] }
  repo.comments.push(comment)
  return comment
}

/** The comment with `id` in `repo`, or `undefined`. */
export function findComment(repo: RepoState, id: number): StoredComment | undefined {
  return repo.comments.find((comment) => comment.id === id)
}
