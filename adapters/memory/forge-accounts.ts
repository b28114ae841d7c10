/**
 * The memory forge's site-admin account calls: creating the service
 * account, putting its limits back, and listing, minting and deleting its
 * tokens, with Forgejo's refusals (an invalid or taken name or email, an
 * unknown scope, a token name used already).
 */
import { appError } from '../../core/base/errors.ts'
import type { Forge } from '../../ports/forge.ts'
import type { MemoryForgeContext } from './forge-context.ts'
import { KNOWN_TOKEN_SCOPES, serviceAccountFlags, sha1, type UserState } from './forge-state.ts'

export type MemoryForgeAccounts = Pick<
  Forge,
  'createUser' | 'ensureServiceAccountLimits' | 'listTokens' | 'mintToken' | 'deleteToken'
>

export function createMemoryAccounts(forge: MemoryForgeContext): MemoryForgeAccounts {
  const { state, flags, requireUser } = forge

  return {
    async createUser(user) {
      await forge.call()
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/.test(user.login))
        throw appError('invalid', `invalid user name ${user.login}`)
      if (!/^[^@\s]+@[^@\s]+$/.test(user.email)) throw appError('invalid', `invalid email ${user.email}`)
      const taken = [...state.users.values()].some(
        (u) => u.login.toLowerCase() === user.login.toLowerCase() || u.email.toLowerCase() === user.email.toLowerCase(),
      )
      if (taken) throw appError('conflict', `user ${user.login} or email ${user.email} already exists`)
      const created: UserState = {
        login: user.login,
        fullName: user.fullName,
        email: user.email,
        admin: false,
        tokens: [],
      }
      state.users.set(user.login.toLowerCase(), created)
      flags.set(user.login.toLowerCase(), serviceAccountFlags())
      return forge.toUser(created)
    },
    async ensureServiceAccountLimits(login) {
      await forge.call()
      const key = requireUser(login).login.toLowerCase()
      flags.set(key, serviceAccountFlags(flags.get(key)))
    },
    async listTokens(login) {
      await forge.call()
      return requireUser(login).tokens.map((t) => ({
        id: t.id,
        name: t.name,
        lastEight: t.token.slice(-8),
        scopes: [...t.scopes],
      }))
    },
    async mintToken(login, token) {
      await forge.call()
      const user = requireUser(login)
      if (user.tokens.some((t) => t.name === token.name))
        throw appError('conflict', `access token name ${token.name} has been used already`)
      const unknown = token.scopes.filter((s) => !KNOWN_TOKEN_SCOPES.has(s))
      if (token.scopes.length === 0 || unknown.length > 0)
        throw appError('invalid', `invalid token scopes: ${unknown.join(', ') || 'none'}`)
      state.counters.token += 1
      const minted = {
        id: state.counters.token,
        name: token.name,
        token: sha1(`token ${state.counters.token}`),
        scopes: [...token.scopes],
      }
      user.tokens.push(minted)
      return {
        id: minted.id,
        name: minted.name,
        lastEight: minted.token.slice(-8),
        scopes: [...minted.scopes],
        token: minted.token,
      }
    },
    async deleteToken(login, id) {
      await forge.call()
      const user = requireUser(login)
      const index = user.tokens.findIndex((t) => t.id === id)
      if (index < 0) throw appError('not_found', `user ${login} has no token ${id}`)
      user.tokens.splice(index, 1)
    },
  } satisfies MemoryForgeAccounts
}
