/**
 * The token's arrival: the provisioner's `mintToken` (the pass in flight, or
 * one started then) and a review's token reads, which wait for it once.
 */
import { describe, expect, it } from 'bun:test'
import { createMemoryForge } from '../../../../../adapters/memory/forge.ts'
import { createRecordingLogger } from '../../../../../adapters/memory/logger.ts'
import { createMemorySecretStore } from '../../../../../adapters/memory/secret-store.ts'
import { appError } from '../../../../../core/base/errors.ts'
import { SERVICE_ACCOUNT, SERVICE_TOKEN } from '../../../../../core/settings/service-account.ts'
import {
  createServiceAccountProvisioner,
  whyNoToken,
} from '../../../../../entrypoints/controller/usecases/settings/service-account.ts'
import {
  createServiceTokens,
  type ServiceAccountGate,
} from '../../../../../entrypoints/controller/usecases/settings/service-token.ts'
import { gate } from '../../review-world.ts'

const { path, field } = SERVICE_TOKEN.secret

describe("the provisioner's mintToken", () => {
  function provisionerWith(mint: 'held' | 'ok' | 'refused') {
    const forge = createMemoryForge({ users: [{ login: 'root', admin: true }] })
    const secrets = createMemorySecretStore()
    const released = gate()
    let mints = 0
    const provisioner = createServiceAccountProvisioner({
      forge: {
        ...forge,
        async mintToken(login, token) {
          mints += 1
          if (mint === 'refused') throw appError('forbidden', 'the forge refuses the mint')
          if (mint === 'held') await released.wait
          return forge.mintToken(login, token)
        },
      },
      secrets,
      logger: createRecordingLogger(),
    })
    return { provisioner, secrets, release: released.open, mints: () => mints }
  }

  it('is the pass in flight: every waiter gets its end, and nothing is minted twice', async () => {
    const { provisioner, secrets, release, mints } = provisionerWith('held')
    const pass = provisioner.runOnce()
    const waiters = [provisioner.mintToken(), provisioner.mintToken()]
    release()
    expect(await Promise.all(waiters)).toEqual([null, null])
    expect((await pass).outcome).toBe('ready')
    expect(mints()).toBe(1)
    expect(await secrets.read(path, field)).not.toBeNull()
  })

  it('starts a pass when none is in flight, and says why no token came when it fails', async () => {
    const ok = provisionerWith('ok')
    expect(await ok.provisioner.mintToken()).toBeNull()
    expect(ok.mints()).toBe(1)
    const refused = provisionerWith('refused')
    expect(await refused.provisioner.mintToken()).toBe(
      'the provisioning pass failed at mint-token (the forge refuses the mint); the next pass, within five minutes, tries again',
    )
  })

  it('says why for each outcome without a token', () => {
    expect(whyNoToken({ outcome: 'ready', account: 'existing', token: 'kept' })).toBeNull()
    expect(whyNoToken({ outcome: 'stopped', detail: 'deactivated by an admin' })).toBe('deactivated by an admin')
    expect(whyNoToken({ outcome: 'refused', detail: `${SERVICE_ACCOUNT.login} has another email` })).toBe(
      'review-classifier has another email, so nothing is posted as it',
    )
  })
})

describe("a review's token reads", () => {
  function countingGate(answer: () => Promise<string | null>): ServiceAccountGate & { asked(): number } {
    let asked = 0
    return {
      whyStopped: async () => null,
      mintToken() {
        asked += 1
        return answer()
      },
      asked: () => asked,
    }
  }

  it('reads a stored token without waiting for any mint', async () => {
    const secrets = createMemorySecretStore({ [path]: { [field]: 'rc-token-1' } })
    const account = countingGate(async () => null)
    const tokens = createServiceTokens(secrets, account)
    expect(await tokens.read()).toEqual({ ok: true, value: 'rc-token-1' })
    expect(account.asked()).toBe(0)
  })

  it('waits for a missing token, then reads the store afresh at every call', async () => {
    const secrets = createMemorySecretStore()
    const account = countingGate(async () => {
      await secrets.write(path, field, 'rc-token-minted')
      return null
    })
    const tokens = createServiceTokens(secrets, account)
    expect(await tokens.now()).toMatchObject({ ok: false, error: { kind: 'missing' } })
    expect(tokens.canWait()).toBe(true)
    expect(await tokens.read()).toEqual({ ok: true, value: 'rc-token-minted' })
    await secrets.write(path, field, 'rc-token-reminted')
    expect(await tokens.read()).toEqual({ ok: true, value: 'rc-token-reminted' })
    expect(account.asked()).toBe(1)
  })

  it('waits once: a failed mint fails every later read alike, with no second pass', async () => {
    const account = countingGate(async () => 'the provisioning pass failed at mint-token (refused).')
    const tokens = createServiceTokens(createMemorySecretStore(), account)
    const reads = await Promise.all([tokens.read(), tokens.read()])
    const later = await tokens.read()
    for (const read of [...reads, later]) {
      expect(read).toEqual({
        ok: false,
        error: {
          kind: 'missing',
          detail:
            "the service account's token couldn't be minted: the provisioning pass failed at mint-token (refused)",
        },
      })
    }
    expect(account.asked()).toBe(1)
    expect(tokens.canWait()).toBe(false)
  })

  it('fails at once without a provisioner, as it always did', async () => {
    const tokens = createServiceTokens(createMemorySecretStore())
    expect(tokens.canWait()).toBe(false)
    expect(await tokens.read()).toMatchObject({ ok: false, error: { kind: 'missing' } })
  })
})
