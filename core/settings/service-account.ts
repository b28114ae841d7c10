/**
 * The forge account the classifier acts as (docs/behaviour.md, "The service
 * account"), and where the secrets live (docs/decisions.md, "Secrets"): one
 * place for the names every part uses.
 */
import type { Runtime } from '../wire/types.ts'

/** The forge account whose review request starts a run, and which authors every review. */
export const SERVICE_ACCOUNT = {
  login: 'review-classifier',
  email: 'review-classifier@services.hyperhive.local',
  fullName: 'Review classifier',
} as const

/**
 * Why nothing is done as the service account, when an admin stopped it on
 * the forge (deactivated it, or prohibited its sign-in: the forge then
 * refuses its every call, docs/forgejo.md §2.1); `null` while it may act.
 * The controller leaves such an account as the admin left it.
 */
export function serviceAccountStopped(account: { active: boolean; prohibitLogin: boolean }): string | null {
  if (account.active && !account.prohibitLogin) return null
  const how = [account.active ? null : 'deactivated', account.prohibitLogin ? 'prohibited from signing in' : null]
    .filter((part) => part !== null)
    .join(' and ')
  return `the forge account ${SERVICE_ACCOUNT.login} is ${how} by an admin, so nothing is posted as it until that is undone`
}

/** A secret's place in the store (OpenBao KV v2 mount `secret`, or the same path under `SECRETS_DIR`). */
export type SecretLocation = { path: string; field: string }

/**
 * The service account's one token, minted by the controller; the classifier never sees it.
 * `write:repository` posts reviews, statuses and branches; `write:issue` reacts to and answers
 * the commands of PR comments (docs/behaviour.md, "Waivers and labels"). A stored token
 * without every scope here is replaced at the next pass.
 */
export const SERVICE_TOKEN = {
  name: 'swarm-review-classifier',
  scopes: ['write:repository', 'write:issue'],
  secret: { path: 'swarm/services/review-classifier/forge/token', field: 'token' },
} as const satisfies { name: string; scopes: readonly string[]; secret: SecretLocation }

/** The controller's own site-admin forge token. */
export const CONTROLLER_TOKEN_SECRET = {
  path: 'swarm/services/swarm-controller/forge/token',
  field: 'token',
} as const satisfies SecretLocation

/** Each runtime's key. */
export const RUNTIME_KEY_SECRETS = {
  'api-key': { path: 'swarm/services/review-classifier/anthropic-api-key', field: 'api_key' },
  acp: { path: 'swarm/services/review-classifier/acp-provider', field: 'api_key' },
  // A Claude subscription's long-lived OAuth token, as `claude setup-token` prints it.
  subscription: { path: 'swarm/services/review-classifier/claude-subscription', field: 'oauth_token' },
} as const satisfies Record<Runtime, SecretLocation>
