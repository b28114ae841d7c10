/**
 * The service account's forge token, the one place it is read: from the
 * secret store for every post and every push, never cached, so a token the
 * provisioning pass re-minted counts from the next call.
 */
import { isAppError } from '../../../core/errors.ts'
import { err, ok, type Result } from '../../../core/result.ts'
import { SERVICE_TOKEN } from '../../../core/service-account.ts'
import type { SecretStore } from '../../../ports/secret-store.ts'

/** Why there is no token to act with: the store failed, or nothing is minted yet. */
export type ServiceTokenProblem = { kind: 'unreadable' | 'missing'; detail: string }

export async function readServiceToken(secrets: SecretStore): Promise<Result<string, ServiceTokenProblem>> {
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
