import { describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createFixedClock } from '../../../../../adapters/memory/clock.ts'
import { createMemoryForge, type ForgeSeed, type MemoryForge } from '../../../../../adapters/memory/forge.ts'
import { createRecordingLogger, type RecordingLogger } from '../../../../../adapters/memory/logger.ts'
import { createMemorySecretStore, type MemorySecretStore } from '../../../../../adapters/memory/secret-store.ts'
import { appError } from '../../../../../core/base/errors.ts'
import { SERVICE_ACCOUNT, SERVICE_TOKEN } from '../../../../../core/settings/service-account.ts'
import {
  createServiceAccountProvisioner,
  PROVISION_MESSAGES,
} from '../../../../../entrypoints/controller/usecases/settings/service-account.ts'
import { startForgejoHarness } from '../../../../support/fake-forgejo/harness.ts'
import { expectNothingFor, waitFor } from '../../../../support/waits.ts'

setDefaultTimeout(60_000)

const GOOD_TOKEN = '0123456789abcdef0123456789abcdef01234567'

type World = { forge: MemoryForge; secrets: MemorySecretStore; logger: RecordingLogger }

function aWorld(
  seed: ForgeSeed = {},
  stored: string | null = null,
): World & ReturnType<typeof createServiceAccountProvisioner> {
  const forge = createMemoryForge({ ...seed, users: [{ login: 'root', admin: true }, ...(seed.users ?? [])] })
  const secrets = createMemorySecretStore(
    stored === null ? {} : { [SERVICE_TOKEN.secret.path]: { [SERVICE_TOKEN.secret.field]: stored } },
  )
  const logger = createRecordingLogger()
  const provisioner = createServiceAccountProvisioner({ forge, secrets, logger, clock: createFixedClock() })
  return { forge, secrets, logger, ...provisioner }
}

const theAccount = {
  login: SERVICE_ACCOUNT.login,
  email: SERVICE_ACCOUNT.email,
  fullName: SERVICE_ACCOUNT.fullName,
  active: true,
  prohibitLogin: false,
}
const LIMITED = {
  active: true,
  prohibitLogin: false,
  mustChangePassword: false,
  maxRepoCreation: 0,
  allowCreateOrganization: false,
}
const UNLIMITED = {
  active: true,
  prohibitLogin: false,
  mustChangePassword: false,
  maxRepoCreation: -1,
  allowCreateOrganization: true,
}

function storedToken(world: World): Promise<string | null> {
  return world.secrets.read(SERVICE_TOKEN.secret.path, SERVICE_TOKEN.secret.field)
}

/** The token (or its last eight characters, which the forge lists) must never reach a log line. */
function expectNoTokenIn(logger: RecordingLogger, ...tokens: (string | null)[]): void {
  const logged = JSON.stringify(logger.entries)
  for (const token of tokens) {
    if (token === null) continue
    expect(logged).not.toContain(token)
    expect(logged).not.toContain(token.slice(-8))
  }
}

describe('createServiceAccountProvisioner', () => {
  it('on a fresh forge creates the account and mints its token into the secret store', async () => {
    const world = aWorld()
    expect(await world.runOnce()).toEqual({ outcome: 'ready', account: 'created', token: 'minted' })
    expect(await world.forge.getUser(SERVICE_ACCOUNT.login)).toEqual(theAccount)
    const token = await storedToken(world)
    expect(token).not.toBeNull()
    const tokens = await world.forge.listTokens(SERVICE_ACCOUNT.login)
    expect(tokens).toEqual([
      {
        id: expect.any(Number),
        name: 'swarm-review-classifier',
        lastEight: token?.slice(-8) ?? '',
        scopes: ['write:repository', 'write:issue'],
      },
    ])
    // The minted token works as the account, with write:repository.
    const seeded = aWorld({ repos: [{ owner: 'acme', name: 'widgets', pulls: [{ number: 1 }] }] })
    await seeded.runOnce()
    const posted = await seeded.forge
      .forAccount((await storedToken(seeded)) ?? '')
      .createReview({ owner: 'acme', name: 'widgets' }, 1, {
        event: 'COMMENT',
        body: 'hello',
        commitId: 'abc',
      })
    expect(seeded.forge.reviews({ owner: 'acme', name: 'widgets' }, 1)[0]).toMatchObject({
      id: posted.id,
      user: SERVICE_ACCOUNT.login,
    })
    expect(world.logger.withMessage(PROVISION_MESSAGES.accountCreated)).toHaveLength(1)
    expect(world.logger.withMessage(PROVISION_MESSAGES.tokenMinted)).toHaveLength(1)
    expectNoTokenIn(world.logger, token)
  })

  it('leaves an existing account with a stored token that matches the forge untouched', async () => {
    const world = aWorld(
      {
        users: [{ login: 'review-classifier', email: SERVICE_ACCOUNT.email }],
        tokens: [{ login: 'review-classifier', name: SERVICE_TOKEN.name, token: GOOD_TOKEN }],
      },
      GOOD_TOKEN,
    )
    const before = await world.forge.listTokens(SERVICE_ACCOUNT.login)
    expect(await world.runOnce()).toEqual({ outcome: 'ready', account: 'existing', token: 'kept' })
    expect(await world.runOnce()).toEqual({ outcome: 'ready', account: 'existing', token: 'kept' })
    expect(await world.forge.listTokens(SERVICE_ACCOUNT.login)).toEqual(before)
    expect(await storedToken(world)).toBe(GOOD_TOKEN)
    expect(world.logger.entries).toEqual([])
  })

  it('puts the limits on an existing account that lacks them, at every pass, and on a new one through createUser', async () => {
    const world = aWorld(
      {
        users: [{ login: 'review-classifier', email: SERVICE_ACCOUNT.email }],
        tokens: [{ login: 'review-classifier', name: SERVICE_TOKEN.name, token: GOOD_TOKEN }],
      },
      GOOD_TOKEN,
    )
    let edits = 0
    const ensure = world.forge.ensureServiceAccountLimits.bind(world.forge)
    world.forge.ensureServiceAccountLimits = async (login) => {
      edits += 1
      await ensure(login)
    }
    expect(world.forge.accountFlags(SERVICE_ACCOUNT.login)).toEqual(UNLIMITED)
    expect(await world.runOnce()).toEqual({ outcome: 'ready', account: 'existing', token: 'kept' })
    expect(world.forge.accountFlags(SERVICE_ACCOUNT.login)).toEqual(LIMITED)
    expect(await world.runOnce()).toEqual({ outcome: 'ready', account: 'existing', token: 'kept' })
    expect(edits).toBe(2)
    expect(world.logger.entries).toEqual([])

    const fresh = aWorld()
    expect(await fresh.runOnce()).toEqual({ outcome: 'ready', account: 'created', token: 'minted' })
    expect(fresh.forge.accountFlags(SERVICE_ACCOUNT.login)).toEqual(LIMITED)
  })

  it('makes an existing account that must change its password able to post again', async () => {
    const world = aWorld({
      users: [{ login: 'review-classifier', email: SERVICE_ACCOUNT.email, flags: { mustChangePassword: true } }],
      repos: [{ owner: 'acme', name: 'widgets', pulls: [{ number: 1 }] }],
    })
    expect(await world.runOnce()).toEqual({ outcome: 'ready', account: 'existing', token: 'minted' })
    await world.forge
      .forAccount((await storedToken(world)) ?? '')
      .createReview({ owner: 'acme', name: 'widgets' }, 1, { event: 'COMMENT', body: 'hi', commitId: 'abc' })
    expect(world.forge.reviews({ owner: 'acme', name: 'widgets' }, 1).map((r) => r.user)).toEqual([
      SERVICE_ACCOUNT.login,
    ])
  })

  it.each([
    ['deactivated', { active: false }],
    ['prohibited from signing in', { prohibitLogin: true }],
  ] as const)(
    'leaves an account an admin %s as it is: warns, edits nothing, mints nothing, and says why',
    async (how, flags) => {
      const world = aWorld({ users: [{ login: 'review-classifier', email: SERVICE_ACCOUNT.email, flags }] })
      let edits = 0
      const ensure = world.forge.ensureServiceAccountLimits.bind(world.forge)
      world.forge.ensureServiceAccountLimits = async (login) => {
        edits += 1
        await ensure(login)
      }
      const detail = `the forge account review-classifier is ${how} by an admin, so nothing is posted as it until that is undone`
      expect(await world.whyStopped()).toBeNull()
      for (let pass = 0; pass < 2; pass += 1) {
        expect(await world.runOnce()).toEqual({ outcome: 'stopped', detail })
        expect(world.forge.accountFlags(SERVICE_ACCOUNT.login)).toEqual({ ...UNLIMITED, ...flags })
      }
      expect(edits).toBe(0)
      expect(await world.forge.listTokens(SERVICE_ACCOUNT.login)).toEqual([])
      expect(await storedToken(world)).toBeNull()
      const warnings = world.logger.withMessage(PROVISION_MESSAGES.stopped)
      expect(warnings.map((w) => w.level)).toEqual(['warn', 'warn'])
      const { active, prohibitLogin } = { ...UNLIMITED, ...flags }
      expect(warnings[0]?.fields).toEqual({ login: SERVICE_ACCOUNT.login, active, prohibit_login: prohibitLogin })
      expect(await world.whyStopped()).toBe(detail)
      expect(world.logger.withMessage(PROVISION_MESSAGES.tokenMinted)).toEqual([])

      // The admin undoes it: the next question sees it at once, and a pass puts the limits and the token back.
      world.forge.changeAccount(SERVICE_ACCOUNT.login, { active: true, prohibitLogin: false })
      expect(await world.whyStopped()).toBeNull()
      await waitFor(() => world.logger.withMessage(PROVISION_MESSAGES.tokenMinted).length === 1, 'the token minted')
      expect(world.forge.accountFlags(SERVICE_ACCOUNT.login)).toEqual(LIMITED)
    },
  )

  it('keeps the last word on a stopped account while the forge cannot be asked', async () => {
    const world = aWorld({
      users: [{ login: 'review-classifier', email: SERVICE_ACCOUNT.email, flags: { active: false } }],
    })
    expect(await world.runOnce()).toMatchObject({ outcome: 'stopped' })
    world.forge.simulateFailure(appError('unavailable', 'the forge answered 502'))
    expect(await world.whyStopped()).toContain('is deactivated by an admin')
  })

  it('leaves a deactivated account alone through the Forgejo adapter: no admin edit, no token request', async () => {
    const harness = await startForgejoHarness({
      users: [{ login: SERVICE_ACCOUNT.login, email: SERVICE_ACCOUNT.email, flags: { active: false } }],
    })
    try {
      const secrets = createMemorySecretStore()
      const provisioner = createServiceAccountProvisioner({
        forge: harness.forge,
        secrets,
        logger: createRecordingLogger(),
      })
      expect(await provisioner.runOnce()).toMatchObject({ outcome: 'stopped' })
      expect(harness.fake.requests.map((r) => `${r.method} ${r.template}`)).toEqual(['GET /users/{username}'])
      expect(harness.fake.flags(SERVICE_ACCOUNT.login)).toMatchObject({ active: false, maxRepoCreation: -1 })
      expect(await secrets.read(SERVICE_TOKEN.secret.path, SERVICE_TOKEN.secret.field)).toBeNull()
    } finally {
      await harness.cleanup()
    }
  })

  it('logs a failed limits edit as a warning and still keeps or mints the token', async () => {
    for (const stored of [GOOD_TOKEN, null]) {
      const world = aWorld(
        {
          users: [{ login: 'review-classifier', email: SERVICE_ACCOUNT.email }],
          tokens: [{ login: 'review-classifier', name: SERVICE_TOKEN.name, token: GOOD_TOKEN }],
        },
        stored,
      )
      world.forge.ensureServiceAccountLimits = async () => {
        throw appError('unavailable', 'the forge answered 502')
      }
      expect(await world.runOnce()).toEqual({
        outcome: 'ready',
        account: 'existing',
        token: stored === null ? 'minted' : 'kept',
      })
      const [warning] = world.logger.withMessage(PROVISION_MESSAGES.limitsFailed)
      expect(warning?.level).toBe('warn')
      expect(warning?.fields).toMatchObject({
        login: SERVICE_ACCOUNT.login,
        code: 'unavailable',
        error: 'the forge answered 502',
      })
      expect(world.logger.withMessage(PROVISION_MESSAGES.passFailed)).toEqual([])
      const token = await storedToken(world)
      expect((await world.forge.listTokens(SERVICE_ACCOUNT.login)).map((t) => t.lastEight)).toEqual([
        token?.slice(-8) ?? 'none',
      ])
      expectNoTokenIn(world.logger, GOOD_TOKEN, token)
    }
  })

  it('recovers, through the Forgejo adapter, from an account created without its limits', async () => {
    const harness = await startForgejoHarness({})
    try {
      const secrets = createMemorySecretStore()
      const logger = createRecordingLogger()
      const provisioner = createServiceAccountProvisioner({ forge: harness.forge, secrets, logger })
      // The create goes through, the edit after it does not.
      harness.fake.failNext('PATCH', '/admin/users/{username}', { status: 500 })
      expect(await provisioner.runOnce()).toMatchObject({ outcome: 'failed', step: 'create-account' })
      expect(harness.fake.flags(SERVICE_ACCOUNT.login)).toMatchObject({
        maxRepoCreation: -1,
        allowCreateOrganization: true,
      })
      expect(await provisioner.runOnce()).toEqual({ outcome: 'ready', account: 'existing', token: 'minted' })
      expect(harness.fake.flags(SERVICE_ACCOUNT.login)).toMatchObject({
        active: true,
        mustChangePassword: false,
        maxRepoCreation: 0,
        allowCreateOrganization: false,
      })
      const limits = harness.fake.requests.filter(
        (r) => r.method === 'PATCH' && JSON.stringify(r.body).includes('max_repo_creation'),
      )
      expect(limits).toHaveLength(2)
      expect(await secrets.read(SERVICE_TOKEN.secret.path, SERVICE_TOKEN.secret.field)).toMatch(/^[0-9a-f]{40}$/)
    } finally {
      await harness.cleanup()
    }
  })

  it('re-mints when the token was deleted on the forge, and the new one is the one stored', async () => {
    const world = aWorld(
      {
        users: [{ login: 'review-classifier', email: SERVICE_ACCOUNT.email }],
        tokens: [{ login: 'review-classifier', name: SERVICE_TOKEN.name, token: GOOD_TOKEN }],
      },
      GOOD_TOKEN,
    )
    const [old] = await world.forge.listTokens(SERVICE_ACCOUNT.login)
    await world.forge.deleteToken(SERVICE_ACCOUNT.login, old?.id ?? -1)
    expect(await world.runOnce()).toEqual({ outcome: 'ready', account: 'existing', token: 'minted' })
    const fresh = await storedToken(world)
    expect(fresh).not.toBe(GOOD_TOKEN)
    expect((await world.forge.listTokens(SERVICE_ACCOUNT.login)).map((t) => t.lastEight)).toEqual([
      fresh?.slice(-8) ?? '',
    ])
    expectNoTokenIn(world.logger, GOOD_TOKEN, fresh)
  })

  it('replaces a stored token that matches the forge but lacks write:issue, as it would a deleted one', async () => {
    const world = aWorld(
      {
        users: [{ login: 'review-classifier', email: SERVICE_ACCOUNT.email }],
        tokens: [
          { login: 'review-classifier', name: SERVICE_TOKEN.name, token: GOOD_TOKEN, scopes: ['write:repository'] },
        ],
      },
      GOOD_TOKEN,
    )
    expect(await world.runOnce()).toEqual({ outcome: 'ready', account: 'existing', token: 'minted' })
    const fresh = await storedToken(world)
    expect(fresh).not.toBe(GOOD_TOKEN)
    expect(await world.forge.listTokens(SERVICE_ACCOUNT.login)).toEqual([
      {
        id: expect.any(Number),
        name: SERVICE_TOKEN.name,
        lastEight: fresh?.slice(-8) ?? '',
        scopes: ['write:repository', 'write:issue'],
      },
    ])
    expect(world.logger.withMessage(PROVISION_MESSAGES.staleTokenDeleted)).toHaveLength(1)
    // Kept from then on.
    expect(await world.runOnce()).toEqual({ outcome: 'ready', account: 'existing', token: 'kept' })
    expectNoTokenIn(world.logger, GOOD_TOKEN, fresh)
  })

  it('deletes a stale token of that name when the stored one is missing or different, then mints', async () => {
    for (const stored of [null, 'ffffffffffffffffffffffffffffffffffffffff']) {
      const world = aWorld(
        {
          users: [{ login: 'review-classifier', email: SERVICE_ACCOUNT.email }],
          tokens: [
            { login: 'review-classifier', name: SERVICE_TOKEN.name, token: GOOD_TOKEN },
            { login: 'review-classifier', name: 'hand-made', token: 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee' },
          ],
        },
        stored,
      )
      expect(await world.runOnce()).toEqual({ outcome: 'ready', account: 'existing', token: 'minted' })
      const fresh = await storedToken(world)
      const tokens = await world.forge.listTokens(SERVICE_ACCOUNT.login)
      expect(tokens.map((t) => [t.name, t.lastEight])).toEqual([
        ['hand-made', 'eeeeeeee'],
        [SERVICE_TOKEN.name, fresh?.slice(-8) ?? ''],
      ])
      expect(world.logger.withMessage(PROVISION_MESSAGES.staleTokenDeleted)).toHaveLength(1)
      expectNoTokenIn(world.logger, GOOD_TOKEN, fresh)
    }
  })

  it('refuses an existing account with another email and does nothing as it', async () => {
    const world = aWorld({ users: [{ login: 'review-classifier', email: 'mallory@example.org' }] })
    const result = await world.runOnce()
    expect(result).toMatchObject({ outcome: 'refused' })
    expect(await world.forge.listTokens(SERVICE_ACCOUNT.login)).toEqual([])
    expect(await storedToken(world)).toBeNull()
    expect(world.forge.accountFlags(SERVICE_ACCOUNT.login)).toEqual(UNLIMITED)
    const [refusal] = world.logger.withMessage(PROVISION_MESSAGES.emailMismatch)
    expect(refusal?.level).toBe('error')
    expect(refusal?.fields).toMatchObject({ email: 'mallory@example.org', expected_email: SERVICE_ACCOUNT.email })
  })

  it('compares the email without regard to case, as the forge does', async () => {
    const world = aWorld({ users: [{ login: 'Review-Classifier', email: SERVICE_ACCOUNT.email.toUpperCase() }] })
    expect(await world.runOnce()).toEqual({ outcome: 'ready', account: 'existing', token: 'minted' })
  })

  it('logs a pass that fails with the forge down, changes nothing, and succeeds at the next pass', async () => {
    const world = aWorld()
    world.forge.simulateFailure(appError('unavailable', 'the forge answered 502'))
    expect(await world.runOnce()).toEqual({ outcome: 'failed', step: 'read-account', detail: 'the forge answered 502' })
    const [failure] = world.logger.withMessage(PROVISION_MESSAGES.passFailed)
    expect(failure?.level).toBe('warn')
    expect(failure?.fields).toMatchObject({ step: 'read-account', code: 'unavailable' })
    expect(await storedToken(world)).toBeNull()
    world.forge.simulateFailure(null)
    expect(await world.runOnce()).toEqual({ outcome: 'ready', account: 'created', token: 'minted' })
  })

  it('does not mint when the secret store cannot be read, since it cannot tell whether the token is good', async () => {
    const world = aWorld(
      {
        users: [{ login: 'review-classifier', email: SERVICE_ACCOUNT.email }],
        tokens: [{ login: 'review-classifier', name: SERVICE_TOKEN.name, token: GOOD_TOKEN }],
      },
      GOOD_TOKEN,
    )
    world.secrets.simulateFailure(appError('unavailable', 'the store is sealed'))
    expect(await world.runOnce()).toMatchObject({ outcome: 'failed', step: 'read-stored-token' })
    expect((await world.forge.listTokens(SERVICE_ACCOUNT.login)).map((t) => t.lastEight)).toEqual([
      GOOD_TOKEN.slice(-8),
    ])
  })

  it('logs a failed store of a minted token without the token, and the next pass mints a fresh one', async () => {
    // Readable but not writable: the mint happens, the store refuses.
    const writeFails = aWorld()
    const write = writeFails.secrets.write.bind(writeFails.secrets)
    let refuseWrites = true
    writeFails.secrets.write = async (path, field, value) => {
      if (refuseWrites) throw appError('forbidden', `the secret store refuses ${path}`)
      await write(path, field, value)
    }
    expect(await writeFails.runOnce()).toMatchObject({ outcome: 'failed', step: 'store-token' })
    const orphan = await writeFails.forge.listTokens(SERVICE_ACCOUNT.login)
    expect(orphan).toHaveLength(1)
    const [failure] = writeFails.logger.withMessage(PROVISION_MESSAGES.passFailed)
    expect(failure?.level).toBe('error')
    expect(failure?.fields).toMatchObject({ step: 'store-token', code: 'forbidden' })
    expect(JSON.stringify(writeFails.logger.entries)).not.toContain(orphan[0]?.lastEight ?? 'none')

    refuseWrites = false
    expect(await writeFails.runOnce()).toEqual({ outcome: 'ready', account: 'existing', token: 'minted' })
    const tokens = await writeFails.forge.listTokens(SERVICE_ACCOUNT.login)
    expect(tokens).toHaveLength(1)
    expect(tokens[0]?.id).not.toBe(orphan[0]?.id)
    expect(tokens[0]?.lastEight).toBe((await storedToken(writeFails))?.slice(-8) ?? '')
  })

  it('never runs two passes at once: a call during a pass joins it', async () => {
    const world = aWorld()
    let creates = 0
    const createUser = world.forge.createUser.bind(world.forge)
    world.forge.createUser = async (user) => {
      creates += 1
      return createUser(user)
    }
    const [first, second] = await Promise.all([world.runOnce(), world.runOnce()])
    expect(first).toEqual({ outcome: 'ready', account: 'created', token: 'minted' })
    expect(second).toBe(first)
    expect(creates).toBe(1)
    expect(await world.forge.listTokens(SERVICE_ACCOUNT.login)).toHaveLength(1)
  })

  it('runs a pass at start and again at each interval until stopped', async () => {
    const world = aWorld()
    let passes = 0
    const getUser = world.forge.getUser.bind(world.forge)
    world.forge.getUser = async (login) => {
      passes += 1
      return getUser(login)
    }
    const intervalMs = 20
    const schedule = world.start(intervalMs)
    await waitFor(() => passes >= 3, 'three passes', 20_000)
    schedule.stop()
    // A pass that started before stop() may still be reading; none starts after it.
    const after = passes
    await expectNothingFor(() => passes > after, 'a pass after stop()', 5 * intervalMs)
    expect(await world.forge.listTokens(SERVICE_ACCOUNT.login)).toHaveLength(1)
  })
})
