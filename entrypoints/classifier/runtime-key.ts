/**
 * A run's runtime key: read from the secret store for every run, never
 * cached (a key written by hand counts from the next run), and put only in
 * the model processes' environment.
 */
import { RUNTIME_KEY_SECRETS } from '../../core/settings/service-account.ts'
import type { Runtime } from '../../core/wire/types.ts'
import { readSecret, type SecretStore } from '../../ports/secret-store.ts'

/** The key, or the run's error: no key stored, or the store failed. */
export async function readRuntimeKey(
  secrets: SecretStore,
  runtime: Runtime,
): Promise<{ key: string } | { error: string }> {
  const secret = RUNTIME_KEY_SECRETS[runtime]
  const read = await readSecret(secrets, secret)
  if (read.ok) return { key: read.value }
  if (read.error.kind === 'missing') {
    const what =
      runtime === 'subscription' ? 'no OAuth token for the subscription runtime' : `no key for the ${runtime} runtime`
    return { error: `${what}: secret/${secret.path} has no ${secret.field}` }
  }
  return { error: `the ${runtime} runtime's key could not be read from the secret store: ${read.error.reason}` }
}
