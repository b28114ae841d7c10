/**
 * A fake Forgejo (v15 by default) on 127.0.0.1 with a port the OS picks,
 * serving the `/api/v1` routes the Forgejo adapter calls, with the behaviour
 * docs/forgejo.md describes: token scopes checked before
 * anything else, private repos hidden behind 404, `Link`/`X-Total-Count`
 * paging with `limit` clamped, an empty repo answering `[]` for contents,
 * token minting only over Basic auth with a password (< v16), the review and
 * contents quirks of §6.
 *
 * It holds the memory forge's state (same seed, same shas), records every
 * request and answer (the conformance test checks them against the swagger
 * file), counts requests in flight, and can make the next call to a route
 * fail, hang, or wait until the test releases it. Every route it serves is
 * checked against swagger.v1.json when it starts.
 */
import {
  addComment,
  addSnapshot,
  blobSha,
  buildState,
  type ForgeSeed,
  pullState,
  repoKey,
  type SeedPull,
  type StoredComment,
  type StoredCommit,
  type StoredStatus,
  type UserState,
} from '../../adapters/memory/forge-state.ts'
import type { RepoRef } from '../../core/wire/types.ts'
import type { ForgeFile } from '../../ports/forge.ts'
import { commentRoutes } from './fake-forgejo/comment-routes.ts'
import {
  type AccountFlags,
  apiError,
  type Caller,
  type DiffStreams,
  type Extra,
  type FakeForgejoSettings,
  type FakeReview,
  type Route,
  type RouteContext,
  STREAMED,
  seededFlags,
} from './fake-forgejo/context.ts'
import { permissionRoutes } from './fake-forgejo/permission-route.ts'
import { type Site, userJson } from './fake-forgejo/render.ts'
import { repoRoutes } from './fake-forgejo/repo-routes.ts'
import { findOperation, loadSwagger } from './fake-forgejo/swagger.ts'
import { userRoutes } from './fake-forgejo/user-routes.ts'

export type { AccountFlags, DiffStreams, FakeReview } from './fake-forgejo/context.ts'

export type FakeForgejoOptions = Partial<FakeForgejoSettings> & {
  seed?: ForgeSeed
  /** Each answer waits this long, so concurrent requests overlap; default 0. */
  latencyMs?: number
}

export type FakeForgejoRequest = {
  method: string
  /** Below `/api/v1`, decoded. */
  path: string
  /** The swagger template of the route that served it; `null` when none did. */
  template: string | null
  query: Record<string, string>
  auth: 'token' | 'basic' | 'none'
  /** The account the credentials belong to, `null` when refused or absent. */
  login: string | null
  body: unknown
}

export type FakeForgejoResponse = { method: string; template: string; status: number; body: unknown; json: boolean }

/** `hang`: accepted and never answered (until `stop`); otherwise that status and body. */
export type FakeFailure = 'hang' | { status: number; body?: unknown }

/** A held call: `reached` once it has come in; `release()` lets it go on as the route (or a queued failure) answers it. */
export type FakeHold = { reached: Promise<void>; release(): void }

export type FakeForgejo = {
  /** `http://127.0.0.1:<port>`, the forge's root URL without the trailing slash. */
  readonly url: string
  readonly requests: FakeForgejoRequest[]
  /** Every answer a route gave (injected failures left out). */
  readonly responses: FakeForgejoResponse[]
  /** What it serves at this version, as swagger templates. */
  readonly routes: ReadonlyArray<{ method: string; template: string; since?: number }>
  /** What the generated diffs (`diffBytes` in a seed pull) streamed: bytes sent, and streams the client cancelled. */
  diffStreams(): DiffStreams
  /** The most requests it was handling at once since the start or the last reset. */
  maxInFlight(): number
  resetMaxInFlight(): void
  reviews(repo: RepoRef, pr: number): FakeReview[]
  pushedCommits(repo: RepoRef): StoredCommit[]
  /** Commit statuses set on `sha` (the full sha), oldest first. */
  statuses(repo: RepoRef, sha: string): StoredStatus[]
  /** Writes (or with `null` deletes) a file on a branch as a new commit. */
  changeFile(repo: RepoRef, branch: string, path: string, content: string | null): void
  upsertPull(repo: RepoRef, pull: SeedPull): void
  /** Adds a comment by `login` on PR `pr`, as if written on the forge's page; its id. */
  addComment(repo: RepoRef, pr: number, login: string, body: string): number
  /** The comments on PR `pr`, oldest first, with their reactions. */
  comments(repo: RepoRef, pr: number): StoredComment[]
  /** Deletes a branch, the default one included (a repo whose default branch is gone is not empty while another branch is left). */
  deleteBranch(repo: RepoRef, branch: string): void
  addToken(login: string, token: { name: string; token: string; scopes: string[] }): void
  /** The password the forge holds for the account, `null` when none was set. */
  password(login: string): string | null
  /** The account's flags (Forgejo's defaults where nothing set them); `null` for an unknown user. */
  flags(login: string): AccountFlags | null
  /** The next `times` calls to `method template` fail this way. */
  failNext(method: string, template: string, failure: FakeFailure, times?: number): void
  /** The next call to `method template` waits until released (or `stop`), then is served as usual. */
  holdNext(method: string, template: string): FakeHold
  stop(): Promise<void>
}

const API = '/api/v1'
const DEFAULTS: FakeForgejoSettings = {
  version: '15.0.3+gitea-1.22.0',
  openPrCounter: true,
  maxResponseItems: 50,
  pagingHeaders: 'both',
}
/** Path parameters that span slashes: Forgejo routes them with `*`. */
const GREEDY = new Set(['filepath', 'branch'])

type CompiledRoute = Route & { pattern: RegExp; names: string[] }

function compile(route: Route): CompiledRoute {
  const names: string[] = []
  const source = route.template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name)
    if (GREEDY.has(name)) return '(.+)'
    return name === 'index' ? '(\\d+)' : '([^/]+)'
  })
  return { ...route, pattern: new RegExp(`^${source}$`), names }
}

function majorOf(version: string): number {
  return Number(/^(\d+)\./.exec(version)?.[1] ?? '0')
}

function hasScope(scopes: string[], needed: string): boolean {
  if (scopes.includes('all') || scopes.includes(needed)) return true
  return needed.startsWith('read:') && scopes.includes(`write:${needed.slice('read:'.length)}`)
}

export function createFakeForgejo(options: FakeForgejoOptions = {}): FakeForgejo {
  const settings: FakeForgejoSettings = { ...DEFAULTS, ...options }
  const state = buildState(options.seed ?? {})
  const extra: Extra = {
    passwords: new Map(),
    flags: new Map(),
    reviews: [],
    ids: new Map(),
    counters: { comment: 0 },
    diffStreams: { bytesSent: 0, cancelled: 0 },
  }
  for (const user of options.seed?.users ?? []) extra.flags.set(user.login.toLowerCase(), seededFlags(user.flags))
  const requests: FakeForgejoRequest[] = []
  const responses: FakeForgejoResponse[] = []
  const failures = new Map<string, FakeFailure[]>()
  const held = new Set<() => void>()
  /** Per route, the held calls to come: each says it was reached and waits for its release. */
  const holds = new Map<string, (() => Promise<void>)[]>()
  let inFlight = 0
  let maxInFlight = 0

  const routes = [...repoRoutes(), ...permissionRoutes(), ...commentRoutes(), ...userRoutes()]
    .filter((r) => r.since === undefined || majorOf(settings.version) >= r.since)
    .map(compile)
  const swagger = loadSwagger()
  for (const route of routes) {
    if (route.since === undefined && findOperation(swagger, route.method, route.template) === null) {
      throw new Error(`the fake forge serves ${route.method} ${route.template}, which swagger.v1.json does not have`)
    }
  }

  let root = 'http://127.0.0.1/'
  const site: Site = {
    get root() {
      return root
    },
    idOf(kind, key) {
      const id = extra.ids.get(`${kind}:${key}`)
      if (id !== undefined) return id
      const next = [...extra.ids.keys()].filter((k) => k.startsWith(`${kind}:`)).length + 1
      extra.ids.set(`${kind}:${key}`, next)
      return next
    },
  }
  // Ids in seed order, so `sort=id` lists repos as seeded.
  for (const repo of state.repos.values()) site.idOf('repo', repoKey(repo.owner, repo.name))
  for (const user of state.users.values()) site.idOf('user', user.login.toLowerCase())

  function renderUser(user: UserState): Record<string, unknown> {
    const flags = extra.flags.get(user.login.toLowerCase())
    return userJson(site, user, { prohibitLogin: flags?.prohibitLogin ?? false, active: flags?.active ?? true })
  }

  function byToken(token: string): Caller | null {
    for (const user of state.users.values()) {
      const found = user.tokens.find((t) => t.token === token)
      if (found !== undefined) return { user, via: 'token', scopes: found.scopes }
    }
    return null
  }

  /** The caller, `null` without credentials, or the refusal (docs/forgejo.md §2.1). */
  function authenticate(context: { site: Site }, header: string | null): Caller | null | Response {
    if (header === null) return null
    const space = header.indexOf(' ')
    const scheme = header.slice(0, space).toLowerCase()
    const value = header.slice(space + 1).trim()
    let caller: Caller | null = null
    if (scheme === 'token' || scheme === 'bearer') caller = byToken(value)
    else if (scheme === 'basic') {
      const decoded = Buffer.from(value, 'base64').toString('utf8')
      const colon = decoded.indexOf(':')
      const login = decoded.slice(0, colon)
      const password = decoded.slice(colon + 1)
      const user = state.users.get(login.toLowerCase())
      // A token in either field counts as token auth, not password auth.
      if (password === '') caller = byToken(login)
      else if (user !== undefined && extra.passwords.get(login.toLowerCase()) === password)
        caller = { user, via: 'password', scopes: null }
      else caller = byToken(password)
    }
    if (caller === null) return apiError(context, 401, 'invalid username, password or token')
    const flags = extra.flags.get(caller.user.login.toLowerCase())
    if (flags?.active === false) return apiError(context, 403, 'This account is not activated.')
    if (flags?.mustChangePassword === true)
      return apiError(context, 403, `You must change your password. Change it at: ${site.root}user/change_password`)
    if (flags?.prohibitLogin === true)
      return apiError(
        context,
        403,
        'This account is prohibited from signing in, please contact your site administrator.',
      )
    return caller
  }

  function authorize(context: { site: Site }, route: Route, method: string, caller: Caller | null): Response | null {
    if (route.auth === 'none') return null
    if (caller === null) return apiError(context, 401, 'token is required')
    if (route.auth === 'password')
      return caller.via === 'password' ? null : apiError(context, 401, 'auth method not allowed')
    const needed = `${method === 'GET' ? 'read' : 'write'}:${route.auth}`
    // The scope check runs before the site-admin and permission checks (docs/forgejo.md §2.2).
    if (caller.scopes !== null && !hasScope(caller.scopes, needed)) {
      return apiError(context, 403, `token does not have at least one of required scope(s): [${needed}]`)
    }
    if (route.auth === 'admin' && !caller.user.admin) return apiError(context, 403, 'you must be an admin')
    return null
  }

  async function readBody(request: Request): Promise<unknown> {
    const text = await request.text()
    if (text === '') return null
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }

  async function handle(request: Request): Promise<Response> {
    inFlight += 1
    maxInFlight = Math.max(maxInFlight, inFlight)
    try {
      if ((options.latencyMs ?? 0) > 0) await Bun.sleep(options.latencyMs ?? 0)
      const url = new URL(request.url)
      const context0 = { site }
      if (!url.pathname.startsWith(`${API}/`)) return apiError(context0, 404, 'not found')
      const path = url.pathname.slice(API.length)
      const body = await readBody(request)
      const header = request.headers.get('authorization')
      const record: FakeForgejoRequest = {
        method: request.method,
        path: decodeURIComponent(path),
        template: null,
        query: Object.fromEntries(url.searchParams),
        auth: header === null ? 'none' : /^basic /i.test(header) ? 'basic' : 'token',
        login: null,
        body,
      }
      requests.push(record)
      const matching = routes.filter((r) => r.pattern.test(path))
      const route = matching.find((r) => r.method === request.method)
      if (route === undefined) return apiError(context0, matching.length > 0 ? 405 : 404, 'not found')
      record.template = route.template

      const hold = holds.get(`${route.method} ${route.template}`)?.shift()
      if (hold !== undefined) await hold()
      const queued = failures.get(`${route.method} ${route.template}`)
      const failure = queued?.shift()
      if (failure === 'hang') {
        await new Promise<void>((resolve) => held.add(resolve))
        return apiError(context0, 503, 'stopped')
      }
      if (failure !== undefined)
        return Response.json(failure.body ?? { message: '', url: `${site.root}api/swagger` }, {
          status: failure.status,
        })

      const caller = authenticate(context0, header)
      if (caller instanceof Response) return recorded(route, caller)
      record.login = caller?.user.login ?? null
      const refusal = authorize(context0, route, request.method, caller)
      if (refusal !== null) return recorded(route, refusal)
      const match = route.pattern.exec(path)
      const params = Object.fromEntries(route.names.map((name, i) => [name, decodeURIComponent(match?.[i + 1] ?? '')]))
      const context: RouteContext = {
        request,
        url,
        params,
        caller,
        body,
        state,
        extra,
        site,
        options: settings,
        render: { userJson: renderUser },
      }
      return recorded(route, await route.handler(context))
    } finally {
      inFlight -= 1
    }
  }

  async function recorded(route: Route, response: Response): Promise<Response> {
    const isJson = (response.headers.get('content-type') ?? '').includes('application/json')
    // A streamed diff is recorded unread: reading a clone would pull all of it from the source.
    const text = STREAMED.has(response) ? '(streamed)' : await response.clone().text()
    responses.push({
      method: route.method,
      template: route.template,
      status: response.status,
      body: isJson && text !== '' ? JSON.parse(text) : text,
      json: isJson,
    })
    return response
  }

  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handle })
  root = `http://127.0.0.1:${server.port}/`

  function requireRepo(repo: RepoRef) {
    const found = state.repos.get(repoKey(repo.owner, repo.name))
    if (found === undefined) throw new Error(`the fake forge has no repo ${repo.owner}/${repo.name}`)
    return found
  }

  return {
    url: root.replace(/\/$/, ''),
    requests,
    responses,
    routes: routes.map(({ method, template, since }) =>
      since === undefined ? { method, template } : { method, template, since },
    ),
    diffStreams: () => ({ ...extra.diffStreams }),
    maxInFlight: () => maxInFlight,
    resetMaxInFlight() {
      maxInFlight = inFlight
    },
    reviews(repo, pr) {
      return extra.reviews
        .filter((r) => r.repo === repoKey(repo.owner, repo.name) && r.pr === pr)
        .map((r) => ({ ...r }))
    },
    pushedCommits(repo) {
      return requireRepo(repo).pushed.map((c) => ({ ...c }))
    },
    statuses(repo, sha) {
      return requireRepo(repo)
        .statuses.filter((s) => s.sha === sha)
        .map((s) => ({ ...s }))
    },
    changeFile(repo, branch, path, content) {
      const found = requireRepo(repo)
      const head = found.branches.get(branch)?.head
      const files = new Map<string, ForgeFile>(head === undefined ? [] : (found.snapshots.get(head) ?? []))
      if (content === null) files.delete(path)
      else files.set(path, { content, sha: blobSha(content) })
      found.branches.set(branch, { head: addSnapshot(state, found, files) })
    },
    upsertPull(repo, pull) {
      const found = requireRepo(repo)
      found.pulls.set(pull.number, pullState(found, pull, found.defaultBranch, found.pulls.get(pull.number)))
    },
    addComment(repo, pr, login, body) {
      return addComment(state, requireRepo(repo), pr, login, body).id
    },
    comments(repo, pr) {
      return requireRepo(repo)
        .comments.filter((c) => c.pr === pr)
        .map((c) => ({ ...c, reactions: c.reactions.map((r) => ({ ...r })) }))
    },
    deleteBranch(repo, branch) {
      if (!requireRepo(repo).branches.delete(branch))
        throw new Error(`the fake forge has no branch ${branch} in ${repo.owner}/${repo.name}`)
    },
    addToken(login, token) {
      const user = state.users.get(login.toLowerCase())
      if (user === undefined) throw new Error(`the fake forge has no user ${login}`)
      state.counters.token += 1
      user.tokens.push({ id: state.counters.token, ...token })
    },
    password: (login) => extra.passwords.get(login.toLowerCase()) ?? null,
    flags(login) {
      if (!state.users.has(login.toLowerCase())) return null
      return { ...(extra.flags.get(login.toLowerCase()) ?? seededFlags()) }
    },
    failNext(method, template, failure, times = 1) {
      const key = `${method} ${template}`
      failures.set(key, [...(failures.get(key) ?? []), ...Array.from({ length: times }, () => failure)])
    },
    holdNext(method, template) {
      const reached = Promise.withResolvers<void>()
      const released = Promise.withResolvers<void>()
      held.add(released.resolve)
      const key = `${method} ${template}`
      const hold = () => {
        reached.resolve()
        return released.promise
      }
      holds.set(key, [...(holds.get(key) ?? []), hold])
      return { reached: reached.promise, release: released.resolve }
    },
    async stop() {
      for (const release of held) release()
      held.clear()
      await server.stop(true)
    },
  } satisfies FakeForgejo
}
