/** Pure mappers from Forgejo's answers (as `schemas.ts` reads them) to the forge port's types. */
import { appError } from '../../core/base/errors.ts'
import { capText, QUOTED_MAX_CHARS } from '../../core/base/text.ts'
import type { CommitMessage, RepoRef } from '../../core/wire/types.ts'
import type {
  AccessTokenInfo,
  ForgeFile,
  ForgePullRequest,
  ForgePullSummary,
  ForgeRepository,
  ForgeUser,
  MintedToken,
  PostedReview,
  RepoPermission,
} from '../../ports/forge.ts'
import type { AccessTokenBody, ContentsBody, PullRequestBody, RepositoryBody, UserBody } from './schemas.ts'

export function toRepository(body: RepositoryBody): ForgeRepository {
  return {
    owner: body.owner.login,
    name: body.name,
    fullName: body.full_name,
    defaultBranch: body.default_branch,
    empty: body.empty,
    private: body.private,
    htmlUrl: body.html_url,
  }
}

export function toRepoRef(body: RepositoryBody): RepoRef {
  return { owner: body.owner.login, name: body.name }
}

export function toPullRequest(body: PullRequestBody): ForgePullRequest {
  return {
    number: body.number,
    title: body.title,
    state: body.state,
    merged: body.merged,
    headSha: body.head.sha,
    headRef: body.head.ref,
    baseRef: body.base.ref,
    htmlUrl: body.html_url,
  }
}

export function toPullSummary(body: PullRequestBody): ForgePullSummary {
  return { number: body.number, title: body.title, headSha: body.head.sha }
}

/** Forgejo lists a PR's commits newest first, as `git log` does; the port wants oldest first. */
export function toCommitMessages(newestFirst: ReadonlyArray<{ commit: { message: string } }>): CommitMessage[] {
  return newestFirst.map((c) => ({ message: c.commit.message })).reverse()
}

/** A file entry's text; `invalid` for anything but a readable file (a symlink, a submodule, a blob too large to inline). */
export function toForgeFile(body: ContentsBody): ForgeFile {
  // The forge's own words, each cut: a rules file's problem quotes them.
  const path = capText(body.path, QUOTED_MAX_CHARS)
  if (body.type !== 'file')
    throw appError('invalid', `${path} is a ${capText(body.type, QUOTED_MAX_CHARS)}, not a file`)
  if (body.content === null || body.content === undefined || (body.content === '' && body.size > 0)) {
    throw appError('invalid', `${path} is too large (${body.size} bytes) for the forge to send its content`)
  }
  if (body.encoding !== 'base64' && body.encoding !== null && body.encoding !== undefined) {
    const encoding = capText(body.encoding, QUOTED_MAX_CHARS)
    throw appError('unavailable', `the forge sent ${path} in an unknown encoding ${encoding}`)
  }
  return { content: Buffer.from(body.content, 'base64').toString('utf8'), sha: body.sha }
}

export function toUser(body: UserBody): ForgeUser {
  return {
    login: body.login,
    fullName: body.full_name,
    email: body.email,
    active: body.active,
    prohibitLogin: body.prohibit_login,
  }
}

const PERMISSIONS = ['none', 'read', 'write', 'admin', 'owner'] as const satisfies readonly RepoPermission[]

/** The forge's permission word; one it adds later grants nothing here until it is known. */
export function toRepoPermission(permission: string): RepoPermission {
  return PERMISSIONS.find((known) => known === permission) ?? 'none'
}

export function toTokenInfo(body: AccessTokenBody): AccessTokenInfo {
  return { id: body.id, name: body.name, lastEight: body.token_last_eight, scopes: body.scopes ?? [] }
}

export function toMintedToken(body: AccessTokenBody): MintedToken {
  if (body.sha1 === undefined || body.sha1 === '')
    throw appError('unavailable', `the forge minted token ${body.name} but did not show it`)
  return { ...toTokenInfo(body), token: body.sha1 }
}

/** `html_url` is `""` for pending reviews and review requests (docs/forgejo.md §3.7). */
export function toPostedReview(body: { id: number; html_url: string }): PostedReview {
  return { id: body.id, htmlUrl: body.html_url === '' ? null : body.html_url }
}

export type ForgeVersion = { forgejo: boolean; major: number }

/**
 * `15.0.3+gitea-1.22.0` → Forgejo 15. Gitea reports `1.22.0` with no
 * `+gitea-` suffix (docs/forgejo.md §3.16); a version that doesn't parse reads as 0.
 */
export function parseVersion(version: string): ForgeVersion {
  const forgejo = version.includes('+gitea-')
  const major = Number(/^v?(\d+)\./.exec(version)?.[1] ?? '0')
  return { forgejo, major: Number.isFinite(major) ? major : 0 }
}

/** Forgejo 16 added `/admin/users/{name}/tokens`, which takes an admin token (SOURCE.md). */
export function hasAdminTokenRoutes(version: ForgeVersion): boolean {
  return version.forgejo && version.major >= 16
}

export function encodeContent(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64')
}

/**
 * Whether git would take `name` as a branch (the `check-ref-format` rules
 * Forgejo applies, plus its 100-character cap), so a bad name is `invalid`
 * before any call rather than one of several 422s.
 */
export function isValidBranchName(name: string): boolean {
  if (name === '' || name.length > 100 || name === '@') return false
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.startsWith('-')) return false
  if (name.includes('..') || name.includes('//') || name.includes('@{')) return false
  // Control characters, space and git's reserved punctuation.
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return false
  return name.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'))
}
