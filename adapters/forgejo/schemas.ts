/**
 * TypeBox schemas of the fields the adapter reads from Forgejo's answers
 * (docs/forgejo.md §3; names as in swagger.v1.json). Only what a mapper uses is
 * listed: Forgejo sends far more, and an extra field is never a reason to
 * refuse an answer. Fields the spec marks as pointers (`null` in Go) are
 * `Nullable` where a real forge sends `null`.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox'

function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()])
}

const UserLogin = Type.Object({ login: Type.String() })

/** `GET /repos/{o}/{r}` and the items of `/repos/search`. */
export const RepositorySchema = Type.Object({
  name: Type.String(),
  full_name: Type.String(),
  owner: UserLogin,
  default_branch: Type.String(),
  empty: Type.Boolean(),
  private: Type.Boolean(),
  html_url: Type.String(),
  /** Open PRs; Forgejo and Gitea ≥ 1.13 send it, so listing repos needs no call per repo. */
  open_pr_counter: Type.Optional(Type.Integer()),
})
export type RepositoryBody = Static<typeof RepositorySchema>

/** `GET /repos/search`: `{ ok, data }`. */
export const SearchResultsSchema = Type.Object({ ok: Type.Boolean(), data: Type.Array(RepositorySchema) })

const BranchInfo = Type.Object({ ref: Type.String(), sha: Type.String() })

/** `GET /repos/{o}/{r}/pulls/{n}` and the items of `GET …/pulls`. */
export const PullRequestSchema = Type.Object({
  number: Type.Integer(),
  title: Type.String(),
  state: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
  merged: Type.Boolean(),
  html_url: Type.String(),
  head: BranchInfo,
  base: BranchInfo,
})
export type PullRequestBody = Static<typeof PullRequestSchema>
export const PullRequestListSchema = Type.Array(PullRequestSchema)

/** `GET …/pulls/{n}/commits`: newest first. */
export const CommitListSchema = Type.Array(
  Type.Object({ sha: Type.String(), commit: Type.Object({ message: Type.String() }) }),
)

/** `GET …/contents/{path}` for a file; `content` is base64, `null` for other entry types. */
export const ContentsSchema = Type.Object({
  type: Type.String(),
  path: Type.String(),
  sha: Type.String(),
  size: Type.Integer(),
  encoding: Type.Optional(Nullable(Type.String())),
  content: Type.Optional(Nullable(Type.String())),
})
export type ContentsBody = Static<typeof ContentsSchema>
/** A directory (or, in an empty repo, any path) answers an array of entries. */
export const DirectorySchema = Type.Array(Type.Object({ path: Type.String() }))

/** `POST`/`PUT …/contents/{path}`. */
export const FileResponseSchema = Type.Object({ commit: Type.Object({ sha: Type.String() }) })

/** `GET /repos/{o}/{r}/branches/{branch}`: `commit.id` is the head sha. */
export const BranchSchema = Type.Object({ name: Type.String(), commit: Type.Object({ id: Type.String() }) })

/** `POST …/pulls/{n}/reviews`. */
export const PullReviewSchema = Type.Object({ id: Type.Integer(), state: Type.String(), html_url: Type.String() })

/** `POST …/statuses/{sha}`: the state comes back as `status` (docs/forgejo.md §3.17). */
/** `POST /repos/{o}/{r}/issues/{index}/comments` (docs/forgejo.md §3.18): only the id and the page are read. */
export const CommentSchema = Type.Object({ id: Type.Integer(), html_url: Type.String() })

export const CommitStatusSchema = Type.Object({ id: Type.Integer(), status: Type.String(), context: Type.String() })

/**
 * `GET /users/{name}`, `POST /admin/users`. `full_name` and `email` are `""`
 * when unset. `active` and `prohibit_login` are always sent, and filled in
 * only for the user themselves and site admins (docs/forgejo.md §3.12): the
 * controller reads as a site admin.
 */
export const UserSchema = Type.Object({
  login: Type.String(),
  full_name: Type.String(),
  email: Type.String(),
  active: Type.Boolean(),
  prohibit_login: Type.Boolean(),
})
export type UserBody = Static<typeof UserSchema>

/** `GET /users/{name}/tokens` items (`sha1` empty) and `POST …/tokens` (`sha1` is the token, shown once). */
export const AccessTokenSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  token_last_eight: Type.String(),
  sha1: Type.Optional(Type.String()),
  /** `null` or absent on a forge that names none. */
  scopes: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
})
export type AccessTokenBody = Static<typeof AccessTokenSchema>
export const AccessTokenListSchema = Type.Array(AccessTokenSchema)

/** `GET /repos/{o}/{r}/collaborators/{c}/permission` (docs/forgejo.md §3.15): only the permission is read. */
export const RepoPermissionSchema = Type.Object({ permission: Type.String() })

/** `GET /version`: e.g. `15.0.3+gitea-1.22.0`. */
export const VersionSchema = Type.Object({ version: Type.String() })
