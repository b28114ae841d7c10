/**
 * The service account's forge token, the one place it is read: from the
 * secret store for every post and every push, never cached, so a token the
 * provisioning pass re-minted counts from the next call.
 */
import { isAppError } from '../../../core/errors.ts'
import { err, ok, type Result } from '../../../core/result.ts'
import { SERVICE_TOKEN } from '../../../core/service-account.ts'
import type { SecretStore } from '../../../ports/secret-store.ts'

/**
 * Why there is no token to act with: the store failed, nothing is minted
 * yet, or an admin stopped the account on the forge (`disabled`).
 */
export type ServiceTokenProblem = { kind: 'unreadable' | 'missing' | 'disabled'; detail: string }

/** Whether the service account may act: the provisioner's answer (service-account.ts). */
export type ServiceAccountGate = {
  /** Why nothing may be done as the account right now, or `null`. */
  whyStopped(): Promise<string | null>
}

/** The token, unless `account` says the account may not act; nothing is read from the store then. */
export async function readServiceToken(
  secrets: SecretStore,
  account?: ServiceAccountGate,
): Promise<Result<string, ServiceTokenProblem>> {
  const stopped = (await account?.whyStopped()) ?? null
  if (stopped !== null) return err({ kind: 'disabled', detail: stopped })
  const { path, field } = SERVICE_TOKEN.secret
  let token: string | null
  try {
    token = await secrets.read(path, field)
  } catch (error) {
    const reason = isAppError(error) ? error.message : 'an internal error'
    return err({
      kind: 'unreadable',
      detail: `the service account's token can't be read from the secret store: ${reason}`,
    })
  }
  if (token === null || token === '') {
    return err({
      kind: 'missing',
      detail: `the service account's token isn't minted yet (${path}, field ${field}); the controller mints it within five minutes of reaching the forge`,
    })
  }
  return ok(token)
}
