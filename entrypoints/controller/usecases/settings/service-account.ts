/**
 * Keeps the forge account `review-classifier` and its one token in place:
 * a pass at start and every five minutes creates the account when it's
 * missing, puts its limits (no repo creation, no password change due) back
 * on an existing one, and mints `swarm-review-classifier` into the secret
 * store when the stored token is missing or no longer matches the forge.
 *
 * An account an admin deactivated or prohibited from signing in is left as
 * the admin left it: the pass warns, edits nothing and mints nothing, and
 * {@link ServiceAccountProvisioner.whyStopped} tells the rest of the
 * controller to post nothing as it (the forge would refuse it anyway,
 * docs/forgejo.md §2.1).
 *
 * A review that finds the token missing waits for it through
 * {@link ServiceAccountProvisioner.mintToken}: the pass in flight is the
 * token's arrival, or, with none in flight, one starts then.
 *
 * The token never reaches a log, an error or a result: only its name and
 * the forge's id for it do.
 */
import { errorKind, errorReason, isAppError } from '../../../../core/base/errors.ts'
import { SERVICE_ACCOUNT, SERVICE_TOKEN, serviceAccountStopped } from '../../../../core/settings/service-account.ts'
import type { Clock } from '../../../../ports/clock.ts'
import type { AccessTokenInfo, ForgeAdmin, ForgeReader, ForgeUser } from '../../../../ports/forge.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { SecretStore } from '../../../../ports/secret-store.ts'
import type { ServiceAccountGate } from './service-token.ts'

export const DEFAULT_PROVISION_INTERVAL_MS = 5 * 60_000

export const PROVISION_MESSAGES = {
  accountCreated: 'review classifier service account created',
  emailMismatch: 'review classifier service account refused: an account by that name has another email',
  stopped:
    'review classifier service account deactivated or prohibited from signing in by an admin: left as it is, no token minted, nothing posted as it',
  limitsFailed: 'review classifier service account limits could not be applied; retrying at the next pass',
  tokenMinted: 'review classifier service account token minted',
  staleTokenDeleted: 'stale review classifier service account token deleted',
  passFailed: 'review classifier service account pass failed; retrying at the next pass',
} as const

export type ProvisionResult =
  | {
      outcome: 'ready'
      account: 'created' | 'existing'
      /** `kept`: the stored token still matches the forge; `minted`: a new one is stored. */
      token: 'kept' | 'minted'
    }
  /** An account by that name with another email: nothing is done as it. */
  | { outcome: 'refused'; detail: string }
  /** An admin deactivated the account or prohibited its sign-in: left so, nothing edited or minted. */
  | { outcome: 'stopped'; detail: string }
  /** The forge or the secret store failed; the next pass tries again. */
  | { outcome: 'failed'; step: ProvisionStep; detail: string }

export type ProvisionStep =
  | 'read-account'
  | 'create-account'
  | 'read-stored-token'
  | 'list-tokens'
  | 'delete-stale-token'
  | 'mint-token'
  | 'store-token'
  /** A bug in the pass itself rather than a call that failed. */
  | 'internal'

export type ServiceAccountProvisionerDeps = {
  forge: ForgeAdmin & Pick<ForgeReader, 'getUser'>
  secrets: SecretStore
  logger: Logger
  clock?: Clock
}

export type ServiceAccountProvisioner = ServiceAccountGate & {
  /** One pass; while one runs, a second call joins it instead of starting another. Never rejects. */
  runOnce(): Promise<ProvisionResult>
  /** A pass now and one every `intervalMs`, none overlapping; `stop()` ends the schedule (a running pass finishes). */
  start(intervalMs?: number): { stop(): void }
}

/** A failed step, carried out of the pass to become its result. */
class StepFailed extends Error {
  readonly step: ProvisionStep
  constructor(step: ProvisionStep, cause: unknown) {
    super(errorReason(cause), { cause })
    this.step = step
  }
}

async function step<T>(name: ProvisionStep, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    throw new StepFailed(name, error)
  }
}

/** Why a pass that ended so left no token to act with; `null` when it did. */
export function whyNoToken(result: ProvisionResult): string | null {
  switch (result.outcome) {
    case 'ready':
      return null
    case 'stopped':
      return result.detail
    case 'refused':
      return `${result.detail}, so nothing is posted as it`
    case 'failed':
      return `the provisioning pass failed at ${result.step} (${result.detail.replace(/\.$/, '')}); the next pass, within five minutes, tries again`
  }
}

function sameEmail(user: ForgeUser): boolean {
  return user.email.toLowerCase() === SERVICE_ACCOUNT.email.toLowerCase()
}

export function createServiceAccountProvisioner(deps: ServiceAccountProvisionerDeps): ServiceAccountProvisioner {
  const { forge, secrets, logger, clock } = deps
  const { login } = SERVICE_ACCOUNT
  let running: Promise<ProvisionResult> | null = null
  /** Why the last pass found the account stopped by an admin; `null` otherwise, and before any pass. */
  let stopped: string | null = null

  async function ensureAccount(): Promise<{ user: ForgeUser; created: boolean }> {
    const existing = await step('read-account', () => forge.getUser(login))
    if (existing !== null) return { user: existing, created: false }
    const user = await step('create-account', () =>
      forge.createUser({ login, email: SERVICE_ACCOUNT.email, fullName: SERVICE_ACCOUNT.fullName }),
    )
    logger.info(PROVISION_MESSAGES.accountCreated, { login, email: user.email })
    return { user, created: true }
  }

  /**
   * Puts the limits back on an existing account each pass: the forge shows
   * none of them, so one idempotent edit is the check, and an account whose
   * limits were lost (the edit after a create failed, or an admin changed
   * them) is fixed by the next pass. A failure is logged and the pass goes
   * on: the token step doesn't depend on it.
   */
  async function ensureLimits(): Promise<void> {
    try {
      await forge.ensureServiceAccountLimits(login)
    } catch (error) {
      logger.warn(PROVISION_MESSAGES.limitsFailed, {
        login,
        code: isAppError(error) ? error.code : 'internal',
        error: errorReason(error),
      })
    }
  }

  /**
   * Whether the stored token is the forge's token of that name, compared by its last eight
   * characters as the forge lists them, and has every scope the account needs: one minted by
   * an older build (without `write:issue`) is replaced like a deleted one.
   */
  async function ensureToken(): Promise<'kept' | 'minted'> {
    const stored = await step('read-stored-token', () =>
      secrets.read(SERVICE_TOKEN.secret.path, SERVICE_TOKEN.secret.field),
    )
    const named = (await step('list-tokens', () => forge.listTokens(login))).filter(
      (token) => token.name === SERVICE_TOKEN.name,
    )
    const current = (token: AccessTokenInfo) =>
      stored !== null &&
      stored.length >= 8 &&
      token.lastEight === stored.slice(-8) &&
      SERVICE_TOKEN.scopes.every((scope) => token.scopes.includes(scope))
    if (named.some(current)) return 'kept'
    // The name is unique per account, so a stale token of that name must go before a new one can be minted.
    for (const stale of named) {
      await step('delete-stale-token', async () => {
        try {
          await forge.deleteToken(login, stale.id)
        } catch (error) {
          if (!isAppError(error, 'not_found')) throw error
        }
      })
      logger.info(PROVISION_MESSAGES.staleTokenDeleted, { login, token_name: stale.name, token_id: stale.id })
    }
    const minted = await step('mint-token', () =>
      forge.mintToken(login, { name: SERVICE_TOKEN.name, scopes: [...SERVICE_TOKEN.scopes] }),
    )
    // A failed store leaves an orphan on the forge; the next pass finds the stored one missing, deletes it and mints again.
    await step('store-token', () => secrets.write(SERVICE_TOKEN.secret.path, SERVICE_TOKEN.secret.field, minted.token))
    logger.info(PROVISION_MESSAGES.tokenMinted, {
      login,
      token_name: minted.name,
      token_id: minted.id,
      scopes: SERVICE_TOKEN.scopes.join(','),
      secret_path: SERVICE_TOKEN.secret.path,
    })
    return 'minted'
  }

  async function pass(): Promise<ProvisionResult> {
    const startedMs = clock?.nowMs()
    try {
      const { user, created } = await ensureAccount()
      if (!sameEmail(user)) {
        const detail = `the forge account ${login} has the email ${user.email}, not ${SERVICE_ACCOUNT.email}`
        logger.error(PROVISION_MESSAGES.emailMismatch, {
          login,
          email: user.email,
          expected_email: SERVICE_ACCOUNT.email,
        })
        return { outcome: 'refused', detail }
      }
      const stoppedBy = serviceAccountStopped(user)
      if (stoppedBy !== null) {
        stopped = stoppedBy
        logger.warn(PROVISION_MESSAGES.stopped, { login, active: user.active, prohibit_login: user.prohibitLogin })
        return { outcome: 'stopped', detail: stoppedBy }
      }
      stopped = null
      // `createUser` has just set them, or thrown.
      if (!created) await ensureLimits()
      const token = await ensureToken()
      return { outcome: 'ready', account: created ? 'created' : 'existing', token }
    } catch (error) {
      if (!(error instanceof StepFailed)) throw error
      const cause: unknown = error.cause
      const transient = isAppError(cause, 'unavailable') || isAppError(cause, 'timeout')
      const fields = {
        login,
        step: error.step,
        code: isAppError(cause) ? cause.code : 'internal',
        error: error.message,
        ...(startedMs === undefined || clock === undefined ? {} : { duration_ms: clock.nowMs() - startedMs }),
      }
      // A forge or store that's down (or not configured yet) is routine until it's back; anything else needs a look.
      if (transient) logger.warn(PROVISION_MESSAGES.passFailed, fields)
      else logger.error(PROVISION_MESSAGES.passFailed, fields)
      return { outcome: 'failed', step: error.step, detail: error.message }
    }
  }

  function runOnce(): Promise<ProvisionResult> {
    if (running !== null) return running
    const current = pass()
      .catch((error: unknown): ProvisionResult => {
        // A bug in the pass itself: log what can be said safely, and let the schedule carry on.
        logger.error(PROVISION_MESSAGES.passFailed, {
          login,
          step: 'internal',
          error: errorKind(error),
        })
        return { outcome: 'failed', step: 'internal', detail: 'an internal error' }
      })
      .finally(() => {
        running = null
      })
    running = current
    return current
  }

  return {
    runOnce,
    /** The pass in flight is the token's arrival; with none in flight, one starts now, so a token lost since the last pass needn't wait for the next. */
    async mintToken() {
      return whyNoToken(await runOnce())
    },
    /**
     * Per the last pass; when it found the account stopped, the forge is
     * asked again, so an admin's re-activation counts at once (and a pass
     * puts the limits and the token back). A failed read keeps the last word.
     */
    async whyStopped() {
      if (stopped === null) return null
      try {
        const user = await forge.getUser(login)
        stopped = user === null ? null : serviceAccountStopped(user)
      } catch {
        return stopped
      }
      if (stopped === null) void runOnce()
      return stopped
    },
    start(intervalMs = DEFAULT_PROVISION_INTERVAL_MS) {
      void runOnce()
      const timer = setInterval(() => void runOnce(), intervalMs)
      return {
        stop() {
          clearInterval(timer)
        },
      }
    },
  } satisfies ServiceAccountProvisioner
}
