/**
 * What the fake forge's route handlers share: the state (the memory forge's,
 * so both fakes hold the same seed the same way), what Forgejo keeps beside
 * it (passwords, account flags, reviews with their real states), the caller,
 * and the answers Forgejo gives (error bodies, paging headers).
 */
import type { ForgeState, RepoPermission, RepoState, UserState } from '../../../adapters/memory/forge-state.ts'
import type { Site } from './render.ts'

export type FakeReviewState = 'APPROVED' | 'REQUEST_CHANGES' | 'COMMENT' | 'PENDING'

/** A review as the fake stored it. */
export type FakeReview = {
  id: number
  repo: string
  pr: number
  user: string
  state: FakeReviewState
  body: string
  commitId: string
  stale: boolean
  official: boolean
  htmlUrl: string
}

export type AccountFlags = {
  active: boolean
  mustChangePassword: boolean
  prohibitLogin: boolean
  maxRepoCreation: number
  allowCreateOrganization: boolean
}

/** An account's flags as seeded (`SeedUser.flags`), Forgejo's defaults for what the seed leaves out. */
export function seededFlags(flags: Partial<AccountFlags> = {}): AccountFlags {
  return {
    active: true,
    mustChangePassword: false,
    prohibitLogin: false,
    maxRepoCreation: -1,
    allowCreateOrganization: true,
    ...flags,
  }
}

export type Extra = {
  passwords: Map<string, string>
  flags: Map<string, AccountFlags>
  reviews: FakeReview[]
  ids: Map<string, number>
  counters: { comment: number }
  /** What the generated diffs streamed: bytes handed to the socket, and streams the client cancelled. */
  diffStreams: DiffStreams
}

export type DiffStreams = { bytesSent: number; cancelled: number }

/** Answers whose body is a stream the recorder must not read (it would pull the whole of it). */
export const STREAMED = new WeakSet<Response>()

export type Caller = {
  user: UserState
  via: 'token' | 'password'
  /** `null` for password logins, which have every scope. */
  scopes: string[] | null
}

export type RouteContext = {
  request: Request
  url: URL
  params: Record<string, string>
  /** `null` only on routes that need no sign-in. */
  caller: Caller | null
  body: unknown
  state: ForgeState
  extra: Extra
  site: Site
  options: FakeForgejoSettings
  /** Renders a user with the account flags the fake keeps beside the state. */
  render: { userJson(user: UserState): Record<string, unknown> }
}

export type FakeForgejoSettings = {
  /** What `GET /version` answers; ≥ 16 adds the admin token routes. */
  version: string
  /** Send `open_pr_counter` on repositories (real Forgejo does). */
  openPrCounter: boolean
  /** `[api] MAX_RESPONSE_ITEMS`. */
  maxResponseItems: number
  /** `both`: `Link` and `X-Total-Count`, as Forgejo; `count`: no `Link`; `none`: neither. */
  pagingHeaders: 'both' | 'count' | 'none'
}

export type Handler = (context: RouteContext) => Response | Promise<Response>

/**
 * `repository`, `issue`, `user`, `admin`: the token scope category (read for GET, write otherwise); `password`: Basic
 * auth with a password only; `none`: no sign-in.
 */
export type RouteAuth = 'repository' | 'issue' | 'user' | 'admin' | 'password' | 'none'

export type Route = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** The swagger path template. */
  template: string
  auth: RouteAuth
  handler: Handler
  /** Served from this Forgejo major version on (the v16 admin token routes, absent from the v15 swagger file). */
  since?: number
}

export function apiError(context: { site: Site }, status: number, message: string): Response {
  return Response.json({ message, url: `${context.site.root}api/swagger` }, { status })
}

export function notFound(context: { site: Site }, what: string): Response {
  return Response.json(
    { message: "The target couldn't be found.", url: `${context.site.root}api/swagger`, errors: [what] },
    { status: 404 },
  )
}

/** Forgejo's 500 in production: an empty message unless the caller is a site admin (docs/forgejo.md §2.4). */
export function serverError(context: RouteContext, message: string): Response {
  return apiError(context, 500, context.caller?.user.admin === true ? message : '')
}

export function permissionFor(repo: RepoState, user: UserState | null): RepoPermission {
  if (user === null) return repo.private ? 'none' : 'read'
  if (user.admin || user.login.toLowerCase() === repo.owner.toLowerCase()) return 'owner'
  return repo.collaborators.get(user.login.toLowerCase()) ?? (repo.private ? 'none' : 'read')
}

export const RANK: Record<RepoPermission, number> = { none: 0, read: 1, write: 2, admin: 3, owner: 4 }

/**
 * `page` (1-based, ≤ 0 → 1) and `limit` (≤ 0 → 30, clamped to MAX_RESPONSE_ITEMS), with `X-Total-Count` and
 * `Link` (docs/forgejo.md §2.5).
 */
export function paginate<T>(context: RouteContext, items: readonly T[]): { items: T[]; headers: Headers } {
  const page = Math.max(1, Number.parseInt(context.url.searchParams.get('page') ?? '1', 10) || 1)
  const asked = Number.parseInt(context.url.searchParams.get('limit') ?? '0', 10) || 0
  const limit = asked <= 0 ? 30 : Math.min(asked, context.options.maxResponseItems)
  const slice = items.slice((page - 1) * limit, page * limit)
  const headers = new Headers()
  if (context.options.pagingHeaders !== 'none') headers.set('X-Total-Count', String(items.length))
  if (context.options.pagingHeaders === 'both') {
    const last = Math.max(1, Math.ceil(items.length / limit))
    const link = (n: number, rel: string) => {
      const query = new URLSearchParams(context.url.searchParams)
      query.set('page', String(n))
      query.set('limit', String(limit))
      return `<${context.site.root}api/v1${context.url.pathname.replace(/^\/api\/v1/, '')}?${query.toString()}>; rel="${rel}"`
    }
    const links: string[] = []
    if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'))
    if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'))
    if (links.length > 0) headers.set('Link', links.join(','))
  }
  return { items: slice, headers }
}

export function json(body: unknown, status = 200, headers?: Headers): Response {
  return Response.json(body, headers === undefined ? { status } : { status, headers })
}

/** The body as an object, or `null` when it isn't one. */
export function bodyObject(body: unknown): Record<string, unknown> | null {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? Object.fromEntries(Object.entries(body))
    : null
}

export function stringField(body: Record<string, unknown> | null, key: string): string | undefined {
  const value = body?.[key]
  return typeof value === 'string' ? value : undefined
}
