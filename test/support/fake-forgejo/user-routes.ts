/** The fake forge's account routes: version, users, admin user create/edit, access tokens (docs/forgejo.md §3.12–3.14, §3.16). */
import { randomBytes } from 'node:crypto'
import { KNOWN_TOKEN_SCOPES, type TokenState, type UserState } from '../../../adapters/memory/forge-state.ts'
import {
  apiError,
  bodyObject,
  json,
  notFound,
  paginate,
  type Route,
  type RouteContext,
  seededFlags,
  stringField,
} from './context.ts'
import { tokenJson } from './render.ts'

const USER_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,38}[A-Za-z0-9])?$/
const EMAIL = /^[^@\s]+@[^@\s]+$/
const MIN_PASSWORD_LENGTH = 8

function findUser(context: RouteContext): UserState | null {
  return context.state.users.get((context.params.username ?? '').toLowerCase()) ?? null
}

function selfOrAdmin(context: RouteContext, user: UserState): boolean {
  const caller = context.caller?.user
  return caller !== undefined && (caller.admin || caller.login.toLowerCase() === user.login.toLowerCase())
}

function nextTokenId(context: RouteContext): number {
  context.state.counters.token += 1
  return context.state.counters.token
}

/** `POST …/tokens`: 400 for a used name, no scope or an unknown scope (docs/forgejo.md §2.2, §3.14). */
function mint(context: RouteContext, user: UserState): Response {
  const body = bodyObject(context.body)
  const name = stringField(body, 'name') ?? ''
  if (name === '') return apiError(context, 422, '[Name]: Required')
  const rawScopes = body?.scopes
  const scopes = Array.isArray(rawScopes) ? rawScopes.filter((s): s is string => typeof s === 'string') : []
  if (user.tokens.some((t) => t.name === name)) return apiError(context, 400, 'access token name has been used already')
  if (scopes.length === 0) return apiError(context, 400, 'access token must have a scope')
  if (scopes.some((s) => !KNOWN_TOKEN_SCOPES.has(s)))
    return apiError(context, 400, `invalid access token scope provided`)
  const token: TokenState = { id: nextTokenId(context), name, token: randomBytes(20).toString('hex'), scopes }
  user.tokens.push(token)
  return json(tokenJson(token, true), 201)
}

/** `DELETE …/tokens/{id-or-name}`: a numeric segment is an id (docs/forgejo.md §3.14, §6.7). */
function remove(context: RouteContext, user: UserState): Response {
  const key = context.params.token ?? ''
  const matches = /^\d+$/.test(key)
    ? user.tokens.filter((t) => t.id === Number(key))
    : user.tokens.filter((t) => t.name === key)
  const [match, ...others] = matches
  if (match === undefined) return notFound(context, `access token does not exist [id: ${key}]`)
  if (others.length > 0) return apiError(context, 422, 'multiple matches for token name, please use token id')
  user.tokens.splice(user.tokens.indexOf(match), 1)
  return new Response(null, { status: 204 })
}

function listTokens(context: RouteContext, user: UserState): Response {
  const { items, headers } = paginate(context, user.tokens)
  return json(
    items.map((t) => tokenJson(t, false)),
    200,
    headers,
  )
}

function withUser(handler: (context: RouteContext, user: UserState) => Response, needsSelfOrAdmin = true) {
  return (context: RouteContext) => {
    const user = findUser(context)
    if (user === null) return notFound(context, `user redirect does not exist [name: ${context.params.username}]`)
    if (needsSelfOrAdmin && !selfOrAdmin(context, user))
      return apiError(context, 403, 'only the user or a site admin may do this')
    return handler(context, user)
  }
}

export function userRoutes(): Route[] {
  return [
    {
      method: 'GET',
      template: '/version',
      auth: 'none',
      handler: (context) => json({ version: context.options.version }),
    },
    {
      method: 'GET',
      template: '/users/{username}',
      auth: 'user',
      handler: withUser((context, user) => json(context.render.userJson(user)), false),
    },
    {
      method: 'POST',
      template: '/admin/users',
      auth: 'admin',
      handler(context) {
        const body = bodyObject(context.body)
        const username = stringField(body, 'username') ?? ''
        const email = stringField(body, 'email') ?? ''
        if (username === '') return apiError(context, 422, '[Username]: Required')
        if (email === '') return apiError(context, 422, '[Email]: Required')
        const password = stringField(body, 'password') ?? ''
        if (password.length < MIN_PASSWORD_LENGTH) return apiError(context, 400, 'PasswordIsRequired')
        if (context.state.users.has(username.toLowerCase()))
          return apiError(context, 422, `user already exists [name: ${username}]`)
        if ([...context.state.users.values()].some((u) => u.email.toLowerCase() === email.toLowerCase())) {
          return apiError(context, 422, `e-mail already in use [email: ${email}]`)
        }
        if (!USER_NAME.test(username))
          return apiError(
            context,
            422,
            `name is invalid [${username}]: must be valid alpha or numeric or dash(-_) or dot characters`,
          )
        if (!EMAIL.test(email)) return apiError(context, 422, `e-mail invalid [email: ${email}]`)
        const user: UserState = {
          login: username,
          fullName: stringField(body, 'full_name') ?? '',
          email,
          admin: false,
          tokens: [],
        }
        context.state.users.set(username.toLowerCase(), user)
        context.extra.passwords.set(username.toLowerCase(), password)
        // Omitted, it defaults to true (docs/forgejo.md §3.13).
        context.extra.flags.set(
          username.toLowerCase(),
          seededFlags({ mustChangePassword: body?.must_change_password !== false }),
        )
        return json(context.render.userJson(user), 201)
      },
    },
    {
      method: 'PATCH',
      template: '/admin/users/{username}',
      auth: 'admin',
      handler: withUser((context, user) => {
        const body = bodyObject(context.body)
        const key = user.login.toLowerCase()
        const flags = context.extra.flags.get(key) ?? seededFlags()
        // Both or neither: they name the account's auth source together (Forgejo's EditUser).
        if ((body?.source_id === undefined) !== (body?.login_name === undefined)) {
          return apiError(context, 422, 'source_id and login_name must be specified together')
        }
        const password = stringField(body, 'password')
        if (password !== undefined && password !== '') {
          if (password.length < MIN_PASSWORD_LENGTH) return apiError(context, 400, 'PasswordIsRequired')
          context.extra.passwords.set(key, password)
        }
        if (typeof body?.must_change_password === 'boolean') flags.mustChangePassword = body.must_change_password
        if (typeof body?.active === 'boolean') flags.active = body.active
        if (typeof body?.prohibit_login === 'boolean') flags.prohibitLogin = body.prohibit_login
        if (typeof body?.max_repo_creation === 'number') flags.maxRepoCreation = body.max_repo_creation
        if (typeof body?.allow_create_organization === 'boolean')
          flags.allowCreateOrganization = body.allow_create_organization
        context.extra.flags.set(key, flags)
        return json(context.render.userJson(user))
      }),
    },
    { method: 'GET', template: '/users/{username}/tokens', auth: 'user', handler: withUser(listTokens) },
    // Tokens are not accepted here: Basic auth with a password only (docs/forgejo.md §3.14).
    { method: 'POST', template: '/users/{username}/tokens', auth: 'password', handler: withUser(mint) },
    { method: 'DELETE', template: '/users/{username}/tokens/{token}', auth: 'password', handler: withUser(remove) },
    // Forgejo ≥ 16: the same with an admin token (SOURCE.md); not in the v15 swagger file.
    {
      method: 'GET',
      template: '/admin/users/{username}/tokens',
      auth: 'admin',
      since: 16,
      handler: withUser(listTokens),
    },
    { method: 'POST', template: '/admin/users/{username}/tokens', auth: 'admin', since: 16, handler: withUser(mint) },
    {
      method: 'DELETE',
      template: '/admin/users/{username}/tokens/{token}',
      auth: 'admin',
      since: 16,
      handler: withUser(remove),
    },
  ]
}
