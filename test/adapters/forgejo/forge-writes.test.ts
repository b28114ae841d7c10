import { afterEach, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createForgejoForge } from '../../../adapters/forgejo/forge.ts'
import { isAppError } from '../../../core/base/errors.ts'
import {
  BUSY,
  codeOf,
  contractForgeSeed,
  HEAD_42,
  READER_TOKEN,
  RULES_PATH,
  SERVICE_LOGIN,
  SERVICE_TOKEN,
  WIDGETS,
} from '../../ports/forge.fixtures.ts'
import { aBranchCommit } from '../../support/builders.ts'
import { ADMIN_TOKEN, type ForgejoHarness, startForgejoHarness } from '../../support/fake-forgejo/harness.ts'

setDefaultTimeout(60_000)

const V16 = '16.0.0+gitea-1.22.0'
/** The whole admin edit body for the service account's limits: nothing else of the account is touched. */
/** No `active` (nor `prohibit_login`): an admin's deactivation stays. */
const LIMITS_BODY = {
  must_change_password: false,
  max_repo_creation: 0,
  allow_create_organization: false,
}

let harness: ForgejoHarness | null = null
afterEach(async () => {
  await harness?.cleanup()
  harness = null
})

async function start(...args: Parameters<typeof startForgejoHarness>): Promise<ForgejoHarness> {
  harness = await startForgejoHarness(...args)
  return harness
}

const aCommit = aBranchCommit({ message: 'Add review classifications\n\nAsked for by alice.' })

describe('createForgejoForge: the service account writes', () => {
  it('creates the file on a new branch with the author, committer and message, as the account', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    const pushed = await forge.forAccount(SERVICE_TOKEN).commitFile(WIDGETS, aCommit)
    const sent = fake.requests.at(-1)
    expect(sent).toMatchObject({
      method: 'POST',
      path: `/repos/acme/widgets/contents/${aCommit.path}`,
      login: SERVICE_LOGIN,
    })
    expect(sent?.body).toEqual({
      branch: 'main',
      new_branch: aCommit.branch,
      content: Buffer.from(aCommit.content).toString('base64'),
      message: aCommit.message,
      author: aCommit.author,
      committer: aCommit.committer,
    })
    expect(fake.pushedCommits(WIDGETS)).toEqual([
      {
        sha: pushed.commitSha,
        branch: aCommit.branch,
        from: 'main',
        path: aCommit.path,
        content: aCommit.content,
        message: aCommit.message,
        author: aCommit.author,
        committer: aCommit.committer,
        pusher: SERVICE_LOGIN,
      },
    ])
  })

  it('updates with PUT and the sha read', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    const read = await forge.getFileContent(WIDGETS, RULES_PATH, 'main')
    await forge.forAccount(SERVICE_TOKEN).commitFile(WIDGETS, { ...aCommit, path: RULES_PATH, sha: read?.sha ?? null })
    expect(fake.requests.at(-1)).toMatchObject({ method: 'PUT', body: { sha: read?.sha } })
  })

  it('reports the PUT on a file deleted since (a 500 from Forgejo) as conflict', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    const read = await forge.getFileContent(WIDGETS, RULES_PATH, 'main')
    fake.changeFile(WIDGETS, 'main', RULES_PATH, null)
    expect(
      await codeOf(
        forge.forAccount(SERVICE_TOKEN).commitFile(WIDGETS, { ...aCommit, path: RULES_PATH, sha: read?.sha ?? null }),
      ),
    ).toBe('conflict')
    expect(fake.responses.some((r) => r.method === 'PUT' && r.status === 500)).toBe(true)
  })

  it('keeps a 500 it can not explain as unavailable', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    fake.failNext('POST', '/repos/{owner}/{repo}/contents/{filepath}', { status: 500 })
    expect(await codeOf(forge.forAccount(SERVICE_TOKEN).commitFile(WIDGETS, aCommit))).toBe('unavailable')
  })

  it.each(['has space', 'a..b', '-lead', 'x.lock', 'end/', 'q?', 'a'.repeat(101)])(
    'refuses the branch name %j as invalid without calling the forge',
    async (branch) => {
      const { fake, forge } = await start(contractForgeSeed())
      expect(await codeOf(forge.forAccount(SERVICE_TOKEN).commitFile(WIDGETS, { ...aCommit, branch }))).toBe('invalid')
      expect(fake.requests).toEqual([])
    },
  )

  it('posts the review with event, body and commit_id, and takes the URL the forge gives', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    const posted = await forge
      .forAccount(SERVICE_TOKEN)
      .createReview(WIDGETS, 42, { event: 'APPROVED', body: '| ok |', commitId: HEAD_42 })
    expect(fake.requests.at(-1)?.body).toEqual({ event: 'APPROVED', body: '| ok |', commit_id: HEAD_42 })
    expect(posted.htmlUrl).toMatch(/\/acme\/widgets\/pulls\/42#issuecomment-\d+$/)
    expect(fake.reviews(WIDGETS, 42)).toMatchObject([
      { state: 'APPROVED', official: true, stale: false, user: SERVICE_LOGIN },
    ])
  })

  it('reports a review the forge kept as a pending draft as invalid', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    fake.failNext('POST', '/repos/{owner}/{repo}/pulls/{index}/reviews', {
      status: 200,
      body: { id: 9, state: 'PENDING', html_url: '' },
    })
    expect(
      await codeOf(
        forge.forAccount(SERVICE_TOKEN).createReview(WIDGETS, 42, { event: 'COMMENT', body: 'x', commitId: HEAD_42 }),
      ),
    ).toBe('invalid')
  })

  it('answers unavailable for an approval on a commit the forge does not know (its 500)', async () => {
    const { forge } = await start(contractForgeSeed())
    expect(
      await codeOf(
        forge
          .forAccount(SERVICE_TOKEN)
          .createReview(WIDGETS, 42, { event: 'APPROVED', body: '', commitId: 'f'.repeat(40) }),
      ),
    ).toBe('unavailable')
  })
})

describe('createForgejoForge: the commit status', () => {
  const status = { state: 'success', context: 'review-classifier', description: 'Approve' } as const

  it('sends state, context, description and the target URL as the account, leaving out a target it has none for', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    const writer = forge.forAccount(SERVICE_TOKEN)
    await writer.setCommitStatus(WIDGETS, HEAD_42, { ...status, targetUrl: 'https://forge.example/r#issuecomment-3' })
    await writer.setCommitStatus(WIDGETS, HEAD_42, { ...status, targetUrl: null })
    expect(fake.requests.map((r) => [r.method, r.path, r.login, r.body])).toEqual([
      [
        'POST',
        `/repos/acme/widgets/statuses/${HEAD_42}`,
        SERVICE_LOGIN,
        { ...status, target_url: 'https://forge.example/r#issuecomment-3' },
      ],
      ['POST', `/repos/acme/widgets/statuses/${HEAD_42}`, SERVICE_LOGIN, status],
    ])
  })

  it.each([
    [403, 'forbidden'],
    [404, 'not_found'],
    [500, 'unavailable'],
  ] as const)('maps a %d from the forge to %s', async (code, expected) => {
    const { fake, forge } = await start(contractForgeSeed())
    fake.failNext('POST', '/repos/{owner}/{repo}/statuses/{sha}', { status: code })
    expect(
      await codeOf(forge.forAccount(SERVICE_TOKEN).setCommitStatus(WIDGETS, HEAD_42, { ...status, targetUrl: null })),
    ).toBe(expected)
  })
})

describe('createForgejoForge: provisioning the service account', () => {
  it('creates an active account that needs no password change and may create no repo', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    await forge.createUser({ login: 'classifier-2', email: 'c2@services.hyperhive.local', fullName: 'Classifier Two' })
    const create = fake.requests.find((r) => r.method === 'POST' && r.template === '/admin/users')
    expect(create?.body).toMatchObject({ username: 'classifier-2', must_change_password: false })
    const edit = fake.requests.find((r) => r.method === 'PATCH' && r.template === '/admin/users/{username}')
    expect(edit?.body).toEqual(LIMITS_BODY)
    expect(fake.flags('classifier-2')).toMatchObject({
      active: true,
      mustChangePassword: false,
      maxRepoCreation: 0,
      allowCreateOrganization: false,
    })
    // The account can work (the forge refuses every call of one that must change its password): its minted token posts a review.
    const minted = await forge.mintToken('classifier-2', { name: 'swarm', scopes: ['write:repository'] })
    await forge.forAccount(minted.token).createReview(BUSY, 2, { event: 'COMMENT', body: 'hi', commitId: HEAD_42 })
    expect(fake.reviews(BUSY, 2).map((r) => r.user)).toEqual(['classifier-2'])
  })

  it('limits an existing account with one admin edit that sends only the limits: no login_name, source_id, password or profile', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    await forge.ensureServiceAccountLimits(SERVICE_LOGIN)
    expect(fake.requests.map((r) => [r.method, r.path, r.auth, r.login])).toEqual([
      ['PATCH', `/admin/users/${SERVICE_LOGIN}`, 'token', 'swarm-controller'],
    ])
    expect(fake.requests[0]?.body).toEqual(LIMITS_BODY)
    expect(fake.password(SERVICE_LOGIN)).toBeNull()
    expect(fake.flags(SERVICE_LOGIN)).toEqual({
      active: true,
      mustChangePassword: false,
      prohibitLogin: false,
      maxRepoCreation: 0,
      allowCreateOrganization: false,
    })
  })

  it.each([
    ['a login ban', { prohibit_login: true }, { prohibitLogin: true }],
    ['a deactivation', { active: false }, { active: false }],
  ] as const)('leaves %s a site admin set by hand in place, and reads it back', async (_, edit, flags) => {
    const { fake, forge } = await start(contractForgeSeed())
    const ban = await fetch(`${fake.url}/api/v1/admin/users/${SERVICE_LOGIN}`, {
      method: 'PATCH',
      headers: { Authorization: `token ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(edit),
    })
    expect(ban.status).toBe(200)
    await forge.ensureServiceAccountLimits(SERVICE_LOGIN)
    expect(fake.flags(SERVICE_LOGIN)).toMatchObject(flags)
    expect(await forge.getUser(SERVICE_LOGIN)).toMatchObject(flags)
  })

  it('refuses to limit an account without admin rights as forbidden, and a forge error as unavailable', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    const notAdmin = createForgejoForge({ baseUrl: fake.url, token: async () => READER_TOKEN })
    expect(await codeOf(notAdmin.ensureServiceAccountLimits(SERVICE_LOGIN))).toBe('forbidden')
    fake.failNext('PATCH', '/admin/users/{username}', { status: 502 })
    expect(await codeOf(forge.ensureServiceAccountLimits(SERVICE_LOGIN))).toBe('unavailable')
    expect(fake.flags(SERVICE_LOGIN)).toMatchObject({ maxRepoCreation: -1, allowCreateOrganization: true })
  })

  it('throws when the edit after the create fails, leaving an account that a later ensureServiceAccountLimits limits', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    fake.failNext('PATCH', '/admin/users/{username}', { status: 500 })
    const newUser = { login: 'classifier-2', email: 'c2@services.hyperhive.local', fullName: 'Classifier Two' }
    expect(await codeOf(forge.createUser(newUser))).toBe('unavailable')
    expect(await forge.getUser('classifier-2')).toEqual({ ...newUser, active: true, prohibitLogin: false })
    expect(fake.flags('classifier-2')).toMatchObject({
      mustChangePassword: false,
      maxRepoCreation: -1,
      allowCreateOrganization: true,
    })
    await forge.ensureServiceAccountLimits('classifier-2')
    expect(fake.flags('classifier-2')).toMatchObject({
      active: true,
      mustChangePassword: false,
      maxRepoCreation: 0,
      allowCreateOrganization: false,
    })
  })

  it('refuses a bad login as invalid, not conflict', async () => {
    const { forge } = await start(contractForgeSeed())
    expect(await codeOf(forge.createUser({ login: '-bad name-', email: 'x@example.org', fullName: '' }))).toBe(
      'invalid',
    )
  })

  it('refuses provisioning without admin rights as forbidden', async () => {
    const { fake } = await start(contractForgeSeed())
    const notAdmin = createForgejoForge({ baseUrl: fake.url, token: async () => SERVICE_TOKEN })
    expect(await codeOf(notAdmin.createUser({ login: 'x', email: 'x@example.org', fullName: '' }))).toBe('forbidden')
  })

  it('mints on Forgejo 15 over Basic auth as the account, with a password it sets first', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    const minted = await forge.mintToken('bob', { name: 'swarm', scopes: ['write:repository'] })
    const steps = fake.requests.map((r) => [r.method, r.template, r.auth, r.login])
    expect(steps).toEqual([
      ['GET', '/version', 'token', 'swarm-controller'],
      ['PATCH', '/admin/users/{username}', 'token', 'swarm-controller'],
      ['POST', '/users/{username}/tokens', 'basic', 'bob'],
    ])
    expect(fake.requests[1]?.body).toMatchObject({ must_change_password: false })
    const password = fake.password('bob') ?? ''
    expect(password.length).toBeGreaterThanOrEqual(32)
    expect(minted.token).toMatch(/^[0-9a-f]{40}$/)
  })

  it('mints and deletes on Forgejo 16 with the admin token, setting no password', async () => {
    const { fake, forge } = await start(contractForgeSeed(), { version: V16 })
    const minted = await forge.mintToken('bob', { name: 'swarm', scopes: ['write:repository'] })
    await forge.deleteToken('bob', minted.id)
    expect(fake.requests.filter((r) => r.template !== '/version').map((r) => [r.method, r.template, r.auth])).toEqual([
      ['POST', '/admin/users/{username}/tokens', 'token'],
      ['DELETE', '/admin/users/{username}/tokens/{token}', 'token'],
    ])
    expect(fake.password('bob')).toBeNull()
    expect(await forge.listTokens('bob')).toEqual([expect.objectContaining({ name: 'bob' })])
  })

  it('deletes on Forgejo 15 over Basic auth', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    const [token] = await forge.listTokens(SERVICE_LOGIN)
    await forge.deleteToken(SERVICE_LOGIN, token?.id ?? -1)
    expect(fake.requests.at(-1)).toMatchObject({ method: 'DELETE', auth: 'basic', login: SERVICE_LOGIN })
  })

  it('refuses an unknown scope as invalid', async () => {
    const { forge } = await start(contractForgeSeed())
    expect(await codeOf(forge.mintToken('bob', { name: 'x', scopes: ['write:everything'] }))).toBe('invalid')
  })

  it('never shows the admin token or the password it set in an error', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    fake.failNext('POST', '/users/{username}/tokens', { status: 500, body: { message: 'boom' } })
    const error = await forge.mintToken('bob', { name: 'x', scopes: ['write:repository'] }).catch((e: unknown) => e)
    expect(isAppError(error, 'unavailable')).toBe(true)
    const password = fake.password('bob') ?? 'no password set'
    const shown = `${String(error)} ${JSON.stringify(error)}`
    expect(shown).not.toContain(password)
    expect(shown).not.toContain(ADMIN_TOKEN)
    expect(shown).not.toContain(Buffer.from(`bob:${password}`).toString('base64'))
  })
})
