/** The forge contract, part two: the service account's writes and the admin calls that provision it. */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import type { NewBranchCommit, NewCommitStatus } from '../../ports/forge.ts'
import { aBranchCommit } from '../support/builders.ts'
import {
  BUSY,
  codeOf,
  contractForgeSeed,
  type ForgeHarness,
  HEAD_42,
  type MakeForge,
  MISSING,
  NARROW_TOKEN,
  READER_TOKEN,
  RULES_PATH,
  RULES_TEXT,
  SERVICE_LOGIN,
  SERVICE_TOKEN,
  WIDGETS,
} from './forge.fixtures.ts'

/** What `ensureServiceAccountLimits` (and `createUser`) leave on an account. */
const LIMITED = {
  active: true,
  prohibitLogin: false,
  mustChangePassword: false,
  maxRepoCreation: 0,
  allowCreateOrganization: false,
}

const NEW_RULES = `${RULES_TEXT}  - name: no-ads\n    description: No AI advertising.\n    polarity: negative\n    threshold: 90\n`

/** The contract's commit: the YAML rules file with one rule more. */
function aRulesCommit(overrides: Partial<NewBranchCommit> = {}): NewBranchCommit {
  return aBranchCommit({ path: RULES_PATH, content: NEW_RULES, ...overrides })
}

function aStatus(overrides: Partial<NewCommitStatus> = {}): NewCommitStatus {
  return {
    state: 'pending',
    context: 'review-classifier',
    description: "Checking this commit against the repo's rules",
    targetUrl: null,
    ...overrides,
  }
}

export function forgeWriterContract(name: string, make: MakeForge): void {
  describe(`ForgeWriter contract (${name})`, () => {
    let harness: ForgeHarness
    beforeEach(async () => {
      harness = await make(contractForgeSeed())
    })
    afterEach(async () => {
      await harness.cleanup()
    })

    it.each(['APPROVED', 'REQUEST_CHANGES', 'COMMENT'] as const)(
      'posts a %s review the forge records as the account',
      async (event) => {
        const posted = await harness.forge
          .forAccount(SERVICE_TOKEN)
          .createReview(WIDGETS, 42, { event, body: '| table |', commitId: HEAD_42 })
        const stored = await harness.reviews(WIDGETS, 42)
        expect(stored).toHaveLength(1)
        expect(stored[0]).toMatchObject({
          id: posted.id,
          user: SERVICE_LOGIN,
          event,
          body: '| table |',
          commitId: HEAD_42,
        })
        expect(posted.htmlUrl ?? '').toContain('/acme/widgets/pulls/42')
      },
    )

    it.each([
      ['an unknown repo', MISSING, 42, 'not_found'],
      ['an unknown PR', WIDGETS, 999, 'not_found'],
    ] as const)('refuses a review on %s', async (_, repo, pr, code) => {
      expect(
        await codeOf(
          harness.forge
            .forAccount(SERVICE_TOKEN)
            .createReview(repo, pr, { event: 'COMMENT', body: 'x', commitId: HEAD_42 }),
        ),
      ).toBe(code)
    })

    it('refuses a review the forge would refuse as invalid, and records none', async () => {
      const writer = harness.forge.forAccount(SERVICE_TOKEN)
      expect(await codeOf(writer.createReview(WIDGETS, 42, { event: 'COMMENT', body: '  ', commitId: HEAD_42 }))).toBe(
        'invalid',
      )
      expect(await codeOf(writer.createReview(WIDGETS, 44, { event: 'APPROVED', body: 'ok', commitId: HEAD_42 }))).toBe(
        'invalid',
      )
      expect(await harness.reviews(WIDGETS, 42)).toEqual([])
    })

    it('refuses an unknown token as unauthorized, and a token without write:repository as forbidden', async () => {
      const review = { event: 'COMMENT', body: 'x', commitId: HEAD_42 } as const
      expect(await codeOf(harness.forge.forAccount('f'.repeat(40)).createReview(WIDGETS, 42, review))).toBe(
        'unauthorized',
      )
      expect(await codeOf(harness.forge.forAccount(NARROW_TOKEN).createReview(WIDGETS, 42, review))).toBe('forbidden')
    })

    it('creates a branch with one commit adding a file, leaving the default branch alone', async () => {
      const mainBefore = await harness.forge.getBranchHead(WIDGETS, 'main')
      const pushed = await harness.forge
        .forAccount(SERVICE_TOKEN)
        .commitFile(WIDGETS, aRulesCommit({ path: '.hyperhive/review-classifier.json', content: '{}' }))
      expect(pushed.branch).toBe('review-classifier/alice-0000abcd')
      expect(await harness.forge.getBranchHead(WIDGETS, pushed.branch)).toBe(pushed.commitSha)
      expect(
        (await harness.forge.getFileContent(WIDGETS, '.hyperhive/review-classifier.json', pushed.branch))?.content,
      ).toBe('{}')
      expect((await harness.forge.getFileContent(WIDGETS, RULES_PATH, pushed.branch))?.content).toBe(RULES_TEXT)
      expect(await harness.forge.getBranchHead(WIDGETS, 'main')).toBe(mainBefore)
      expect(await harness.forge.getFileContent(WIDGETS, '.hyperhive/review-classifier.json', 'main')).toBeNull()
    })

    it('updates a file named by the sha it was read at', async () => {
      const read = await harness.forge.getFileContent(WIDGETS, RULES_PATH, 'main')
      const pushed = await harness.forge
        .forAccount(SERVICE_TOKEN)
        .commitFile(WIDGETS, aRulesCommit({ sha: read?.sha ?? null }))
      expect((await harness.forge.getFileContent(WIDGETS, RULES_PATH, pushed.branch))?.content).toBe(NEW_RULES)
    })

    it('refuses with conflict when the file changed between read and push', async () => {
      const read = await harness.forge.getFileContent(WIDGETS, RULES_PATH, 'main')
      await harness.changeFile(WIDGETS, 'main', RULES_PATH, `${RULES_TEXT}# someone else\n`)
      const commit = aRulesCommit({ sha: read?.sha ?? null })
      expect(await codeOf(harness.forge.forAccount(SERVICE_TOKEN).commitFile(WIDGETS, commit))).toBe('conflict')
      expect(await harness.forge.getBranchHead(WIDGETS, commit.branch)).toBeNull()
    })

    it('refuses with conflict when the file was removed between read and push', async () => {
      const read = await harness.forge.getFileContent(WIDGETS, RULES_PATH, 'main')
      await harness.changeFile(WIDGETS, 'main', RULES_PATH, null)
      expect(
        await codeOf(
          harness.forge.forAccount(SERVICE_TOKEN).commitFile(WIDGETS, aRulesCommit({ sha: read?.sha ?? null })),
        ),
      ).toBe('conflict')
    })

    it('refuses with conflict when a file read as absent appeared before the push', async () => {
      await harness.changeFile(WIDGETS, 'main', '.hyperhive/review-classifier.json', '{}')
      const commit = aRulesCommit({ path: '.hyperhive/review-classifier.json', sha: null })
      expect(await codeOf(harness.forge.forAccount(SERVICE_TOKEN).commitFile(WIDGETS, commit))).toBe('conflict')
    })

    it('refuses with conflict a branch that already exists', async () => {
      expect(
        await codeOf(
          harness.forge
            .forAccount(SERVICE_TOKEN)
            .commitFile(WIDGETS, aRulesCommit({ branch: 'develop', path: 'new.txt' })),
        ),
      ).toBe('conflict')
    })

    it.each([
      ['to an unknown repo', MISSING, aRulesCommit(), SERVICE_TOKEN, 'not_found'],
      ['from a missing base branch', WIDGETS, aRulesCommit({ from: 'no-such-branch' }), SERVICE_TOKEN, 'not_found'],
      ['to a repo the account only reads', BUSY, aRulesCommit({ path: 'x.txt' }), SERVICE_TOKEN, 'forbidden'],
      ['to a private repo the account only reads', WIDGETS, aRulesCommit({ path: 'x.txt' }), READER_TOKEN, 'forbidden'],
      ['with an unknown token', WIDGETS, aRulesCommit(), 'f'.repeat(40), 'unauthorized'],
    ] as const)('refuses a push: %s', async (_, repo, commit, token, code) => {
      expect(await codeOf(harness.forge.forAccount(token).commitFile(repo, commit))).toBe(code)
    })

    it("sets commit statuses on a PR's head that the forge keeps as the account's, in order", async () => {
      const writer = harness.forge.forAccount(SERVICE_TOKEN)
      const pull = await harness.forge.getPullRequest(WIDGETS, 42)
      await writer.setCommitStatus(WIDGETS, HEAD_42, aStatus({ targetUrl: pull.htmlUrl }))
      const review = `${pull.htmlUrl}#issuecomment-7`
      await writer.setCommitStatus(
        WIDGETS,
        HEAD_42,
        aStatus({ state: 'success', description: 'Approve', targetUrl: review }),
      )
      expect(await harness.statuses(WIDGETS, HEAD_42)).toEqual([
        {
          id: 1,
          sha: HEAD_42,
          state: 'pending',
          context: 'review-classifier',
          description: "Checking this commit against the repo's rules",
          targetUrl: pull.htmlUrl,
          creator: SERVICE_LOGIN,
        },
        {
          id: 2,
          sha: HEAD_42,
          state: 'success',
          context: 'review-classifier',
          description: 'Approve',
          targetUrl: review,
          creator: SERVICE_LOGIN,
        },
      ])
    })

    it.each(['failure', 'error'] as const)('sets a %s status on a branch commit, with no link', async (state) => {
      const main = (await harness.forge.getBranchHead(WIDGETS, 'main')) ?? ''
      await harness.forge.forAccount(SERVICE_TOKEN).setCommitStatus(WIDGETS, main, aStatus({ state }))
      expect(await harness.statuses(WIDGETS, main)).toMatchObject([{ sha: main, state, targetUrl: '' }])
    })

    it.each([
      ['on an unknown repo', MISSING, HEAD_42, SERVICE_TOKEN, 'not_found'],
      ['on a commit the repo lacks', WIDGETS, 'f'.repeat(40), SERVICE_TOKEN, 'not_found'],
      ['in a repo the account only reads', BUSY, null, SERVICE_TOKEN, 'forbidden'],
      ['in a private repo the account only reads', WIDGETS, HEAD_42, READER_TOKEN, 'forbidden'],
      ['with a token without write:repository', WIDGETS, HEAD_42, NARROW_TOKEN, 'forbidden'],
      ['with an unknown token', WIDGETS, HEAD_42, 'f'.repeat(40), 'unauthorized'],
    ] as const)('refuses a commit status %s, and stores none', async (_, repo, given, token, code) => {
      // `null`: the head of the repo's PR 2, a commit the repo has.
      const sha = given ?? (await harness.forge.getPullRequest(repo, 2)).headSha
      expect(await codeOf(harness.forge.forAccount(token).setCommitStatus(repo, sha, aStatus()))).toBe(code)
      if (repo !== MISSING) expect(await harness.statuses(repo, sha)).toEqual([])
    })
  })

  describe(`ForgeAdmin contract (${name})`, () => {
    let harness: ForgeHarness
    beforeEach(async () => {
      harness = await make(contractForgeSeed())
    })
    afterEach(async () => {
      await harness.cleanup()
    })

    it('creates a user the forge then knows', async () => {
      const created = await harness.forge.createUser({
        login: 'classifier-2',
        email: 'c2@services.hyperhive.local',
        fullName: 'Classifier Two',
      })
      expect(created).toEqual({
        login: 'classifier-2',
        fullName: 'Classifier Two',
        email: 'c2@services.hyperhive.local',
        active: true,
        prohibitLogin: false,
      })
      expect(await harness.forge.getUser('classifier-2')).toEqual(created)
    })

    it('creates the account active, with no password change due, and allowed no repo or organization', async () => {
      await harness.forge.createUser({
        login: 'classifier-2',
        email: 'c2@services.hyperhive.local',
        fullName: 'Classifier Two',
      })
      expect(await harness.accountFlags('classifier-2')).toEqual(LIMITED)
    })

    it('puts the limits on an existing account that lacks them, and a second call changes nothing', async () => {
      expect(await harness.accountFlags(SERVICE_LOGIN)).toEqual({
        active: true,
        prohibitLogin: false,
        mustChangePassword: false,
        maxRepoCreation: -1,
        allowCreateOrganization: true,
      })
      await harness.forge.ensureServiceAccountLimits(SERVICE_LOGIN)
      expect(await harness.accountFlags(SERVICE_LOGIN)).toEqual(LIMITED)
      await harness.forge.ensureServiceAccountLimits(SERVICE_LOGIN)
      expect(await harness.accountFlags(SERVICE_LOGIN)).toEqual(LIMITED)
      // Nothing else moved: the profile reads the same and the token still works.
      expect(await harness.forge.getUser(SERVICE_LOGIN)).toEqual({
        login: SERVICE_LOGIN,
        fullName: 'Review classifier',
        email: 'review-classifier@services.hyperhive.local',
        active: true,
        prohibitLogin: false,
      })
      await harness.forge
        .forAccount(SERVICE_TOKEN)
        .createReview(WIDGETS, 42, { event: 'COMMENT', body: 'still here', commitId: HEAD_42 })
      expect((await harness.reviews(WIDGETS, 42)).map((r) => r.user)).toEqual([SERVICE_LOGIN])
    })

    it('makes an account that must change its password usable again', async () => {
      await harness.cleanup()
      const seed = contractForgeSeed()
      const flags = { mustChangePassword: true }
      harness = await make({
        ...seed,
        users: (seed.users ?? []).map((u) => (u.login === SERVICE_LOGIN ? { ...u, flags } : u)),
      })
      const review = { event: 'COMMENT', body: 'x', commitId: HEAD_42 } as const
      expect(await codeOf(harness.forge.forAccount(SERVICE_TOKEN).createReview(WIDGETS, 42, review))).toBe('forbidden')
      await harness.forge.ensureServiceAccountLimits(SERVICE_LOGIN)
      expect(await harness.accountFlags(SERVICE_LOGIN)).toEqual(LIMITED)
      await harness.forge.forAccount(SERVICE_TOKEN).createReview(WIDGETS, 42, review)
      expect(await harness.reviews(WIDGETS, 42)).toHaveLength(1)
    })

    it.each([
      ['deactivated', { active: false }],
      ['prohibited from signing in', { prohibitLogin: true }],
    ] as const)('leaves an account an admin %s as it is, and the forge refuses its token', async (_, flags) => {
      await harness.cleanup()
      const seed = contractForgeSeed()
      harness = await make({
        ...seed,
        users: (seed.users ?? []).map((u) => (u.login === SERVICE_LOGIN ? { ...u, flags } : u)),
      })
      const review = { event: 'COMMENT', body: 'x', commitId: HEAD_42 } as const
      expect(await codeOf(harness.forge.forAccount(SERVICE_TOKEN).createReview(WIDGETS, 42, review))).toBe('forbidden')
      await harness.forge.ensureServiceAccountLimits(SERVICE_LOGIN)
      expect(await harness.accountFlags(SERVICE_LOGIN)).toEqual({ ...LIMITED, ...flags })
      expect(await codeOf(harness.forge.forAccount(SERVICE_TOKEN).createReview(WIDGETS, 42, review))).toBe('forbidden')
      expect(await harness.reviews(WIDGETS, 42)).toEqual([])
    })

    it('refuses to limit an unknown user with not_found', async () => {
      expect(await codeOf(harness.forge.ensureServiceAccountLimits('nobody'))).toBe('not_found')
    })

    it('refuses a taken login or email with conflict', async () => {
      expect(
        await codeOf(harness.forge.createUser({ login: SERVICE_LOGIN, email: 'other@example.org', fullName: '' })),
      ).toBe('conflict')
      expect(
        await codeOf(harness.forge.createUser({ login: 'someone-new', email: 'alice@example.org', fullName: '' })),
      ).toBe('conflict')
    })

    it('mints a token that lists by name and last eight, and works for writing', async () => {
      const minted = await harness.forge.mintToken('bob', {
        name: 'swarm-review-classifier',
        scopes: ['write:repository'],
      })
      expect(minted.lastEight).toBe(minted.token.slice(-8))
      expect(await harness.forge.listTokens('bob')).toContainEqual({
        id: minted.id,
        name: minted.name,
        lastEight: minted.lastEight,
        scopes: ['write:repository'],
      })
      const review = await harness.forge
        .forAccount(minted.token)
        .createReview(WIDGETS, 42, { event: 'COMMENT', body: 'hello', commitId: HEAD_42 })
      expect((await harness.reviews(WIDGETS, 42)).map((r) => [r.id, r.user])).toEqual([[review.id, 'bob']])
    })

    it('refuses a second token by the same name with conflict, and an unknown user with not_found', async () => {
      expect(
        await codeOf(
          harness.forge.mintToken(SERVICE_LOGIN, { name: 'swarm-review-classifier', scopes: ['write:repository'] }),
        ),
      ).toBe('conflict')
      expect(await codeOf(harness.forge.mintToken('nobody', { name: 't', scopes: ['write:repository'] }))).toBe(
        'not_found',
      )
      expect(await codeOf(harness.forge.listTokens('nobody'))).toBe('not_found')
    })

    it('deletes a token, after which the forge refuses it', async () => {
      const [token] = await harness.forge.listTokens(SERVICE_LOGIN)
      await harness.forge.deleteToken(SERVICE_LOGIN, token?.id ?? -1)
      expect(await harness.forge.listTokens(SERVICE_LOGIN)).toEqual([])
      expect(
        await codeOf(
          harness.forge
            .forAccount(SERVICE_TOKEN)
            .createReview(WIDGETS, 42, { event: 'COMMENT', body: 'x', commitId: HEAD_42 }),
        ),
      ).toBe('unauthorized')
      expect(await codeOf(harness.forge.deleteToken(SERVICE_LOGIN, token?.id ?? -1))).toBe('not_found')
    })
  })
}
