/** The secret store the configuration names, built for either process. */
import { createBaoSecretStore } from '../adapters/bao/secret-store.ts'
import { createDirSecretStore } from '../adapters/secrets-dir/secret-store.ts'
import type { SecretStore } from '../ports/secret-store.ts'
import type { SecretsConfig } from './config.ts'

/** OpenBao when `BAO_ADDR` is set, else the private local directory (docs/decisions.md, the embedded default). */
export function createSecretStore(config: SecretsConfig): SecretStore {
  if (config.kind === 'dir') return createDirSecretStore({ dir: config.dir })
  return createBaoSecretStore({ addr: config.addr, token: config.token })
}
