/**
 * The forge account the classifier acts as (docs/behaviour.md, "The service
 * account"), and where the secrets live (docs/decisions.md, "Secrets"): one
 * place for the names every part uses.
 */
import type { Runtime } from './types.ts'

/** The forge account whose review request starts a run, and which authors every review. */
export const SERVICE_ACCOUNT = {
  login: 'review-classifier',
  email: 'review-classifier@services.hyperhive.local',
  fullName: 'Review classifier',
} as const

/** A secret's place in the store (OpenBao KV v2 mount `secret`, or the same path under `SECRETS_DIR`). */
export type SecretLocation = { path: string; field: string }

/** The service account's one token, minted by the controller; the classifier never sees it. */
export const SERVICE_TOKEN = {
  name: 'swarm-review-classifier',
  scopes: ['write:repository'],
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
} as const satisfies Record<Runtime, SecretLocation>
