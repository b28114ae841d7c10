/**
 * The secret store's contract, run against every adapter (memory, OpenBao
 * behind a fake server, the secrets directory). The harness writes secrets
 * behind the port's back (as an operator would by hand) and makes one path
 * unreadable (a policy that doesn't grant it; for the directory store, a
 * secret file others can read).
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { isAppError } from '../../core/base/errors.ts'
import type { SecretStore } from '../../ports/secret-store.ts'

export type SecretStoreHarness = {
  store: SecretStore
  /** Writes a secret as the operator would, outside the port. */
  seed(path: string, field: string, value: string): Promise<void>
  /** Makes the store refuse `path`. */
  forbid(path: string): Promise<void>
  cleanup(): Promise<void>
}

const API_KEY = 'swarm/services/review-classifier/anthropic-api-key'
const FORGE_TOKEN = 'swarm/services/review-classifier/forge/token'

export function secretStoreContract(name: string, make: () => Promise<SecretStoreHarness>): void {
  describe(`SecretStore contract (${name})`, () => {
    let harness: SecretStoreHarness
    beforeEach(async () => {
      harness = await make()
    })
    afterEach(async () => {
      await harness.cleanup()
    })

    it('answers null for a secret that does not exist', async () => {
      expect(await harness.store.read(API_KEY, 'api_key')).toBeNull()
    })

    it('reads a field the operator wrote', async () => {
      await harness.seed(API_KEY, 'api_key', 'sk-ant-test-123')
      expect(await harness.store.read(API_KEY, 'api_key')).toBe('sk-ant-test-123')
    })

    it('answers null for a field the secret does not hold', async () => {
      await harness.seed(API_KEY, 'api_key', 'sk-ant-test-123')
      expect(await harness.store.read(API_KEY, 'token')).toBeNull()
    })

    it('reads what it wrote, and a second write replaces the first', async () => {
      await harness.store.write(FORGE_TOKEN, 'token', 'first-token')
      expect(await harness.store.read(FORGE_TOKEN, 'token')).toBe('first-token')
      await harness.store.write(FORGE_TOKEN, 'token', 'second-token')
      expect(await harness.store.read(FORGE_TOKEN, 'token')).toBe('second-token')
    })

    it('reads a change made behind its back on the next read (no cache)', async () => {
      await harness.seed(API_KEY, 'api_key', 'old')
      expect(await harness.store.read(API_KEY, 'api_key')).toBe('old')
      await harness.seed(API_KEY, 'api_key', 'new')
      expect(await harness.store.read(API_KEY, 'api_key')).toBe('new')
    })

    it('refuses a path it may not read with forbidden, while other paths still read', async () => {
      await harness.seed(API_KEY, 'api_key', 'sk-ant-test-123')
      await harness.seed(FORGE_TOKEN, 'token', 'forge-token')
      await harness.forbid(API_KEY)
      const failure = await harness.store.read(API_KEY, 'api_key').then(
        () => null,
        (error: unknown) => error,
      )
      expect(isAppError(failure, 'forbidden')).toBe(true)
      expect(isAppError(failure) && failure.message.includes('sk-ant-test-123')).toBe(false)
      expect(await harness.store.read(FORGE_TOKEN, 'token')).toBe('forge-token')
    })
  })
}
