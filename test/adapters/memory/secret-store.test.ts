import { describe, expect, it } from 'bun:test'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { appError, isAppError } from '../../../core/base/errors.ts'
import { secretStoreContract } from '../../ports/secret-store.contract.ts'

secretStoreContract('memory', async () => {
  const store = createMemorySecretStore()
  return {
    store,
    seed: (path, field, value) => store.write(path, field, value),
    forbid: async (path) => store.forbid(path),
    cleanup: async () => undefined,
  }
})

describe('createMemorySecretStore', () => {
  it('starts with the secrets it is given', async () => {
    const store = createMemorySecretStore({ 'swarm/services/review-classifier/acp-provider': { api_key: 'k' } })
    expect(await store.read('swarm/services/review-classifier/acp-provider', 'api_key')).toBe('k')
  })

  it('rejects every call with the simulated failure until it is cleared', async () => {
    const store = createMemorySecretStore({ p: { f: 'v' } })
    store.simulateFailure(appError('unavailable', 'sealed'))
    expect(isAppError(await store.read('p', 'f').catch((e: unknown) => e), 'unavailable')).toBe(true)
    expect(isAppError(await store.write('p', 'f', 'w').catch((e: unknown) => e), 'unavailable')).toBe(true)
    store.simulateFailure(null)
    expect(await store.read('p', 'f')).toBe('v')
  })
})
