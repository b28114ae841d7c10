/**
 * The secret store: OpenBao KV v2 (mount `secret`) or, on one machine, a
 * directory of one file per path and field. Paths are the store's own,
 * without the mount, e.g. `swarm/services/review-classifier/forge/token`.
 *
 * Secrets are read on every use, never cached, so a key written by hand or a
 * re-minted token counts from the next call.
 */
import { errorReason } from '../core/base/errors.ts'
import { err, ok, type Result } from '../core/base/result.ts'
import type { SecretLocation } from '../core/settings/service-account.ts'

export type SecretStore = {
  /**
   * One field of the secret at `path`, or `null` when there is no such secret
   * or field (a missing key is "no key", not an error). `forbidden` when the
   * store refuses the read (policy, bad token, a secret file others can read);
   * `unavailable` when the store is unreachable, sealed or fails.
   */
  read(path: string, field: string): Promise<string | null>
  /**
   * Sets one field of the secret at `path` (the controller stores the service
   * account's minted token). Every secret here holds one field, so what
   * becomes of other fields at the path is the adapter's. `forbidden` /
   * `unavailable` as for `read`.
   */
  write(path: string, field: string, value: string): Promise<void>
}

/**
 * Why {@link readSecret} has no value: nothing is stored there (or only an
 * empty value), or the store failed, said in words that name nothing it
 * holds (an AppError's message, else "an internal error").
 */
export type SecretProblem = { kind: 'missing' } | { kind: 'unreadable'; reason: string }

/**
 * Reads one secret, or says why there is none; never rejects. Each caller
 * words the why for what the secret is for (a runtime's key, the service
 * account's token).
 */
export async function readSecret(
  store: Pick<SecretStore, 'read'>,
  secret: SecretLocation,
): Promise<Result<string, SecretProblem>> {
  try {
    const value = await store.read(secret.path, secret.field)
    return value === null || value === '' ? err({ kind: 'missing' }) : ok(value)
  } catch (error) {
    return err({ kind: 'unreadable', reason: errorReason(error) })
  }
}
