import { describe, expect, it } from 'bun:test'
import { createMemorySecretStore } from '../../adapters/memory/secret-store.ts'
import { appError } from '../../core/base/errors.ts'
import { err } from '../../core/base/result.ts'
import { readSecret } from '../../ports/secret-store.ts'

const KEY = { path: 'swarm/services/review-classifier/anthropic-api-key', field: 'api_key' }

describe('readSecret', () => {
  it('reads the value stored', async () => {
    const store = createMemorySecretStore({ [KEY.path]: { [KEY.field]: 'sk-test' } })
    expect(await readSecret(store, KEY)).toEqual({ ok: true, value: 'sk-test' })
  })

  it('says missing for no secret, no such field, or an empty value', async () => {
    const missing = err({ kind: 'missing' } as const)
    expect(await readSecret(createMemorySecretStore(), KEY)).toEqual(missing)
    expect(await readSecret(createMemorySecretStore({ [KEY.path]: { other: 'x' } }), KEY)).toEqual(missing)
    expect(await readSecret(createMemorySecretStore({ [KEY.path]: { [KEY.field]: '' } }), KEY)).toEqual(missing)
  })

  it("says unreadable with the store's own words for its AppError, and never another error's", async () => {
    const store = createMemorySecretStore()
    store.simulateFailure(appError('unavailable', 'OpenBao at bao:8200 is sealed'))
    expect(await readSecret(store, KEY)).toEqual({
      ok: false,
      error: { kind: 'unreadable', reason: 'OpenBao at bao:8200 is sealed' },
    })
    const leaky = { read: () => Promise.reject(new Error('token s.abc123 refused')) }
    expect(await readSecret(leaky, KEY)).toEqual({
      ok: false,
      error: { kind: 'unreadable', reason: 'an internal error' },
    })
  })
})
