/** Building adapters from the parsed configuration, shared by both processes. */
import { createBaoSecretStore } from '../adapters/bao/secret-store.ts'
import { fileTokenSource, fixedTokenSource } from '../adapters/bao/token-source.ts'
import { createDirSecretStore } from '../adapters/secrets-dir/secret-store.ts'
import type { SecretStore } from '../ports/secret-store.ts'
import type { SecretsConfig } from './config.ts'

/** OpenBao when `BAO_ADDR` is set, else the private local directory (DECISIONS.md, the embedded default). */
export function createSecretStore(config: SecretsConfig): SecretStore {
  if (config.kind === 'dir') return createDirSecretStore({ dir: config.dir })
  const token = config.token.kind === 'value' ? fixedTokenSource(config.token.value) : fileTokenSource(config.token.path)
  return createBaoSecretStore({ addr: config.addr, token })
}
