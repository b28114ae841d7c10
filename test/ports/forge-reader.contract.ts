/** The forge contract, part one: what the controller reads with its own token. */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { isAppError } from '../../core/base/errors.ts'
import { DIFF_READ_MAX_BYTES, diffOverReadCapMessage, utf8Length } from '../../core/run/budget.ts'
import {
  BUSY,
  codeOf,
  contractForgeSeed,
  DIFF_42,
  EMPTY,
  type ForgeHarness,
  fullName,
  HEAD_42,
  HUGE_DIFF_BYTES,
  HUGE_PR,
  LARGE_DIFF_BYTES,
  LARGE_PR,
  MANY,
  type MakeForge,
  MISSING,
  QUIET,
  RULES_PATH,
  RULES_TEXT,
  SERVICE_LOGIN,
  SPREAD,
  WIDGETS,
} from './forge.fixtures.ts'

export function forgeReaderContract(name: string, make: MakeForge): void {
  describe(`ForgeReader contract (${name})`, () => {
    let harness: ForgeHarness
    beforeEach(async () => {
      harness = await make(contractForgeSeed())
    })
    afterEach(async () => {
      await harness.cleanup()
    })

    it('reads a repository', async () => {
      const repo = await harness.forge.getRepository(WIDGETS)
      expect(repo).toMatchObject({
        owner: 'acme',
        name: 'widgets',
        fullName: 'acme/widgets',
        defaultBranch: 'main',
        empty: false,
        private: true,
      })
      expect(repo.htmlUrl).toEndWith('/acme/widgets')
    })

    it('flags an empty repository', async () => {
      expect((await harness.forge.getRepository(EMPTY)).empty).toBe(true)
    })

    it.each([
      ['getRepository', (h: ForgeHarness) => h.forge.getRepository(MISSING)],
      ['getPullRequest of an unknown repo', (h: ForgeHarness) => h.forge.getPullRequest(MISSING, 1)],
      ['getPullRequest of an unknown PR', (h: ForgeHarness) => h.forge.getPullRequest(WIDGETS, 999)],
      ['listPullCommits', (h: ForgeHarness) => h.forge.listPullCommits(WIDGETS, 999)],
      ['getPullDiff', (h: ForgeHarness) => h.forge.getPullDiff(WIDGETS, 999)],
      ['listOpenPulls', (h: ForgeHarness) => h.forge.listOpenPulls(MISSING)],
      ['listRecentPulls', (h: ForgeHarness) => h.forge.listRecentPulls(MISSING, 5)],
    ])('answers not_found from %s', async (_, callIt) => {
      expect(await codeOf(callIt(harness))).toBe('not_found')
    })

    it('reads a PR with its head', async () => {
      const pr = await harness.forge.getPullRequest(WIDGETS, 42)
      expect(pr).toMatchObject({
        number: 42,
        title: 'Add timezone to timestamps',
        state: 'open',
        merged: false,
        headSha: HEAD_42,
        headRef: 'tz-fix',
        baseRef: 'main',
      })
      expect(pr.htmlUrl).toEndWith('/acme/widgets/pulls/42')
    })

    it('reads a merged PR too', async () => {
      expect(await harness.forge.getPullRequest(WIDGETS, 7)).toMatchObject({ state: 'closed', merged: true })
    })

    it('lists a PR commits oldest first with full messages', async () => {
      expect(await harness.forge.listPullCommits(WIDGETS, 42)).toEqual([
        { message: 'First: add zone\n\nBody line.' },
        { message: 'Second: tests' },
        { message: 'Third: docs' },
      ])
    })

    it('lists every commit of a PR longer than a page', async () => {
      const commits = await harness.forge.listPullCommits(WIDGETS, 43)
      expect(commits.map((c) => c.message)).toEqual(Array.from({ length: MANY }, (_, i) => `commit ${i + 1}`))
    })

    it('reads a PR diff as the forge gives it', async () => {
      expect(await harness.forge.getPullDiff(WIDGETS, 42)).toBe(DIFF_42)
    })

    it('reads a diff up to the cap whole, and refuses a longer one as unprocessable naming the cap', async () => {
      const whole = await harness.forge.getPullDiff(QUIET, LARGE_PR, LARGE_DIFF_BYTES)
      expect(utf8Length(whole)).toBe(LARGE_DIFF_BYTES)
      expect(whole).toStartWith('diff --git a/huge.txt b/huge.txt\n')
      const failure = await harness.forge.getPullDiff(QUIET, LARGE_PR, LARGE_DIFF_BYTES - 1).catch((e: unknown) => e)
      expect(isAppError(failure, 'unprocessable') ? failure.message : failure).toBe(
        diffOverReadCapMessage(LARGE_DIFF_BYTES - 1),
      )
    })

    it(`refuses a diff over the default cap (${DIFF_READ_MAX_BYTES} bytes) without reading it all`, async () => {
      expect(HUGE_DIFF_BYTES).toBeGreaterThan(DIFF_READ_MAX_BYTES)
      const failure = await harness.forge.getPullDiff(QUIET, HUGE_PR).catch((e: unknown) => e)
      expect(isAppError(failure, 'unprocessable') ? failure.message : failure).toBe(
        "the PR's diff is larger than 10 MB, the most the controller reads of a diff, so it was read no further",
      )
    })

    it('reads a file at a branch with its blob sha', async () => {
      const file = await harness.forge.getFileContent(WIDGETS, RULES_PATH, 'main')
      expect(file?.content).toBe(RULES_TEXT)
      expect(file?.sha).toMatch(/^[0-9a-f]{40}$/)
      expect((await harness.forge.getFileContent(WIDGETS, 'README.md', 'develop'))?.content).toBe(
        '# Widgets (develop)\n',
      )
    })

    it('reads a file at a commit sha', async () => {
      const head = await harness.forge.getBranchHead(WIDGETS, 'main')
      expect((await harness.forge.getFileContent(WIDGETS, RULES_PATH, head ?? ''))?.content).toBe(RULES_TEXT)
    })

    it.each([
      ['a path that does not exist', WIDGETS, '.hyperhive/review-classifier.json', 'main'],
      ['a branch that does not exist', WIDGETS, RULES_PATH, 'no-such-branch'],
      ['an empty repository', EMPTY, RULES_PATH, 'main'],
      ['an unknown repository', MISSING, RULES_PATH, 'main'],
    ])('answers null for a file in %s', async (_, repo, path, ref) => {
      expect(await harness.forge.getFileContent(repo, path, ref)).toBeNull()
    })

    it('refuses a directory path as invalid', async () => {
      expect(await codeOf(harness.forge.getFileContent(WIDGETS, 'docs', 'main'))).toBe('invalid')
    })

    it('gives a file a new sha when it changes', async () => {
      const before = await harness.forge.getFileContent(WIDGETS, RULES_PATH, 'main')
      await harness.changeFile(WIDGETS, 'main', RULES_PATH, `${RULES_TEXT}# changed\n`)
      const after = await harness.forge.getFileContent(WIDGETS, RULES_PATH, 'main')
      expect(after?.content).toBe(`${RULES_TEXT}# changed\n`)
      expect(after?.sha).not.toBe(before?.sha ?? '')
    })

    it('reads a branch head, and null for a missing branch or an empty repo', async () => {
      expect(await harness.forge.getBranchHead(WIDGETS, 'main')).toMatch(/^[0-9a-f]{40}$/)
      expect(await harness.forge.getBranchHead(WIDGETS, 'no-such-branch')).toBeNull()
      expect(await harness.forge.getBranchHead(EMPTY, 'main')).toBeNull()
    })

    it('lists every repo with an open PR across pages, and none without', async () => {
      const listed = (await harness.forge.listReposWithOpenPulls()).map(fullName).sort()
      expect(listed).toEqual([WIDGETS, BUSY, ...SPREAD].map(fullName).sort())
      expect(listed).not.toContain(fullName(QUIET))
    })

    it('lists every open PR of a repo across pages, highest number first', async () => {
      const pulls = await harness.forge.listOpenPulls(BUSY)
      const expected = Array.from({ length: MANY }, (_, i) => i + 1)
        .filter((n) => (n - 1) % 3 !== 0)
        .reverse()
      expect(pulls.map((p) => p.number)).toEqual(expected)
      expect(pulls[0]).toMatchObject({ number: MANY, title: `Busy ${MANY}` })
      expect(pulls[0]?.headSha).toMatch(/^[0-9a-f]{40}$/)
    })

    it('lists the newest open or merged PRs, newest first, each as getPullRequest reads it', async () => {
      const pulls = await harness.forge.listRecentPulls(WIDGETS, 20)
      expect(pulls.map((p) => p.number)).toEqual([44, 43, 42, 7])
      expect(pulls[2]).toEqual(await harness.forge.getPullRequest(WIDGETS, 42))
      expect(pulls[3]).toMatchObject({ number: 7, title: 'Old and merged', state: 'closed', merged: true })
      expect((await harness.forge.listRecentPulls(WIDGETS, 2)).map((p) => p.number)).toEqual([44, 43])
    })

    it('skips PRs closed without merging, across pages, and lists none for a repo with only those', async () => {
      // Every third of BUSY's PRs is closed and unmerged: 1, 4, 7, …, 118.
      const open = Array.from({ length: MANY }, (_, i) => MANY - i).filter((n) => (n - 1) % 3 !== 0)
      expect((await harness.forge.listRecentPulls(BUSY, 5)).map((p) => p.number)).toEqual([120, 119, 117, 116, 114])
      expect((await harness.forge.listRecentPulls(BUSY, 70)).map((p) => p.number)).toEqual(open.slice(0, 70))
      expect(await harness.forge.listRecentPulls(QUIET, 20)).toEqual([])
    })

    it('reads a user with the real email, and null for an unknown login', async () => {
      expect(await harness.forge.getUser('alice')).toEqual({
        login: 'alice',
        fullName: 'Alice Example',
        email: 'alice@example.org',
        active: true,
        prohibitLogin: false,
      })
      expect(await harness.forge.getUser('nobody')).toBeNull()
    })

    it('reads a user’s effective access to a repo, owners and site admins as owner', async () => {
      const permission = (repo: typeof WIDGETS, login: string) => harness.forge.getRepoPermission(repo, login)
      expect(await permission(WIDGETS, SERVICE_LOGIN)).toBe('write')
      expect(await permission(WIDGETS, 'bob')).toBe('read')
      // Private: a user who isn't a collaborator has no access; on a public repo anyone reads.
      expect(await permission(WIDGETS, 'alice')).toBe('none')
      expect(await permission(BUSY, 'alice')).toBe('read')
      expect(await permission(WIDGETS, 'swarm-controller')).toBe('owner')
      // Names compare without regard to case, as the forge's do.
      expect(await permission(WIDGETS, 'BOB')).toBe('read')
      expect(await codeOf(permission(WIDGETS, 'nobody'))).toBe('not_found')
      expect(await codeOf(permission(MISSING, 'bob'))).toBe('not_found')
    })

    it.each([
      ['deactivated', { active: false }, { active: false, prohibitLogin: false }],
      ['prohibited from signing in', { prohibitLogin: true }, { active: true, prohibitLogin: true }],
    ] as const)('reads an account an admin %s as such', async (_, flags, expected) => {
      await harness.cleanup()
      const seed = contractForgeSeed()
      harness = await make({
        ...seed,
        users: (seed.users ?? []).map((u) => (u.login === 'alice' ? { ...u, flags } : u)),
      })
      expect(await harness.forge.getUser('alice')).toMatchObject(expected)
    })
  })
}
