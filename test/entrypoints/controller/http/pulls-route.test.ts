/**
 * `GET /api/pulls/repos` and `GET /api/pulls` in the controller app, reading
 * through the real Forgejo adapter from the fake forge, with more repos and
 * more PRs than one page holds (the forge clamps a page to 50, docs/forgejo.md §2.5).
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createForgejoForge } from '../../../../adapters/forgejo/forge.ts'
import type { SeedPull, SeedRepo } from '../../../../adapters/memory/forge-state.ts'
import { pullsRoutes } from '../../../../entrypoints/controller/http/routes/pulls.ts'
import type { ForgeReader } from '../../../../ports/forge.ts'
import { ADMIN_TOKEN, type ForgejoHarness, startForgejoHarness } from '../../../support/fake-forgejo/harness.ts'
import { aRequest, aRouteApp, expectProblem as expectProblemAnswer } from './http-support.ts'

setDefaultTimeout(30_000)

const BOB_TOKEN = 'b0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb'
const BUSY_OPEN = 120

function headOf(repo: string, n: number): string {
  return Bun.hash(`${repo}#${n}`).toString(16).padStart(16, '0').repeat(3).slice(0, 40)
}

function pulls(repo: string, numbers: number[], state: 'open' | 'closed'): SeedPull[] {
  return numbers.map((number) => ({ number, title: `${state} change ${number}`, state, headSha: headOf(repo, number) }))
}

/** 130 PRs on acme/busy: every 13th closed, the rest open, numbered 1 to 130. */
const BUSY_NUMBERS = Array.from({ length: BUSY_OPEN + 10 }, (_, i) => i + 1)
const BUSY_CLOSED = BUSY_NUMBERS.filter((n) => n % 13 === 0)
const BUSY_OPEN_NUMBERS = BUSY_NUMBERS.filter((n) => n % 13 !== 0)

/** 70 repos, so listing them takes two pages: every third has an open PR, every fifth only a closed one. */
const SPREAD: SeedRepo[] = Array.from({ length: 70 }, (_, i) => {
  const name = `repo-${String(i).padStart(2, '0')}`
  const open = i % 3 === 0
  return {
    owner: 'spread',
    name,
    pulls: open ? pulls(name, [1, 2], 'open') : i % 5 === 0 ? pulls(name, [1], 'closed') : [],
  }
})

const SEED_REPOS: SeedRepo[] = [
  {
    owner: 'acme',
    name: 'busy',
    pulls: [...pulls('busy', BUSY_OPEN_NUMBERS, 'open'), ...pulls('busy', BUSY_CLOSED, 'closed')],
  },
  { owner: 'acme', name: 'closed-only', pulls: pulls('closed-only', [1, 2], 'closed') },
  { owner: 'acme', name: 'none' },
  { owner: 'acme', name: 'empty', empty: true },
  { owner: 'acme', name: 'hidden', private: true, pulls: pulls('hidden', [4], 'open') },
  { owner: 'Zeta', name: 'app', pulls: pulls('app', [9], 'open') },
  { owner: 'alpha', name: 'Lib', pulls: pulls('Lib', [3], 'open') },
  { owner: 'Beta', name: 'x', pulls: pulls('x', [1], 'open') },
  ...SPREAD,
]

const EXPECTED_REPOS = [
  'acme/busy',
  'acme/hidden',
  'alpha/Lib',
  'Beta/x',
  ...SPREAD.filter((_, i) => i % 3 === 0).map((r) => `spread/${r.name}`),
  'Zeta/app',
]

const SEED = {
  users: [{ login: 'bob' }],
  tokens: [{ login: 'bob', name: 'bob', token: BOB_TOKEN, scopes: ['read:repository'] }],
  repos: SEED_REPOS,
}

let h: ForgejoHarness

beforeAll(async () => {
  h = await startForgejoHarness(SEED)
})

afterAll(async () => {
  await h.cleanup()
})

function anApp(forge: ForgeReader | null) {
  return aRouteApp((logger) => [pullsRoutes({ forge, logger })])
}

async function get(forge: ForgeReader | null, path: string): Promise<Response> {
  return anApp(forge).app.handle(aRequest(path))
}

/** Every problem here must leave the token out. */
function expectProblem(
  response: Response,
  status: number,
  detail?: string | RegExp,
  secrets: readonly string[] = [],
): Promise<string> {
  return expectProblemAnswer(response, status, detail, [ADMIN_TOKEN, ...secrets])
}

describe('GET /api/pulls/repos', () => {
  it('lists every repo with an open PR as owner/name, sorted ignoring case, reading every page of repos', async () => {
    h.fake.requests.length = 0
    const response = await get(h.forge, '/api/pulls/repos')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(EXPECTED_REPOS)
    const pages = h.fake.requests.filter((r) => r.template === '/repos/search').map((r) => r.query.page)
    expect(pages.sort()).toEqual(['1', '2'])
  })

  it('answers the same from a forge that sends no open PR count, asking each repo', async () => {
    const uncounted = await startForgejoHarness(SEED, { openPrCounter: false })
    try {
      expect(await (await get(uncounted.forge, '/api/pulls/repos')).json()).toEqual(EXPECTED_REPOS)
      expect(
        uncounted.fake.requests.filter((r) => r.template === '/repos/{owner}/{repo}/pulls').length,
      ).toBeGreaterThanOrEqual(70)
    } finally {
      await uncounted.cleanup()
    }
  })

  it('answers 503 without a forge, without a token, when the forge fails, and when it does not answer in time', async () => {
    await expectProblem(await get(null, '/api/pulls/repos'), 503, 'this host has no forge: FORGE_URL is not set')
    const tokenless = createForgejoForge({ baseUrl: h.fake.url, token: async () => null })
    await expectProblem(
      await get(tokenless, '/api/pulls/repos'),
      503,
      "the repos with open pull requests can't be read from the forge: no forge token yet: the controller has no site-admin token for the forge",
    )
    h.fake.failNext('GET', '/repos/search', { status: 500 })
    await expectProblem(
      await get(h.forge, '/api/pulls/repos'),
      503,
      /^the repos with open pull requests can't be read from the forge: the forge answered GET \/repos\/search with 500$/,
    )

    const impatient = await startForgejoHarness(
      { repos: [{ owner: 'acme', name: 'busy', pulls: pulls('busy', [1], 'open') }] },
      {},
      { timeoutMs: 200 },
    )
    try {
      impatient.fake.failNext('GET', '/repos/search', 'hang')
      await expectProblem(
        await get(impatient.forge, '/api/pulls/repos'),
        503,
        /did not answer GET \/repos\/search within 200 ms$/,
      )
    } finally {
      await impatient.cleanup()
    }
  })
})

describe('GET /api/pulls', () => {
  it('lists every open PR of the repo across pages, highest number first, as number, title and head_sha', async () => {
    h.fake.requests.length = 0
    const response = await get(h.forge, '/api/pulls?repo=acme/busy')
    expect(response.status).toBe(200)
    const expected = [...BUSY_OPEN_NUMBERS]
      .reverse()
      .map((number) => ({ number, title: `open change ${number}`, head_sha: headOf('busy', number) }))
    expect(expected).toHaveLength(BUSY_OPEN)
    expect(await response.json()).toEqual(expected)
    const listed = h.fake.requests.filter((r) => r.template === '/repos/{owner}/{repo}/pulls')
    expect(listed.map((r) => r.query.page).sort()).toEqual(['1', '2', '3'])
    expect(new Set(listed.map((r) => r.query.state))).toEqual(new Set(['open']))
  })

  it('answers an empty list for a repo with no open PR, an empty repo included', async () => {
    for (const repo of ['acme/closed-only', 'acme/none', 'acme/empty']) {
      const response = await get(h.forge, `/api/pulls?repo=${repo}`)
      expect({ repo, status: response.status, body: await response.json() }).toEqual({ repo, status: 200, body: [] })
    }
  })

  it('answers 400 for a missing repo or one that is not owner/name, without asking the forge', async () => {
    h.fake.requests.length = 0
    await expectProblem(await get(h.forge, '/api/pulls'), 400, 'the query needs repo=owner/name')
    for (const bad of ['busy', 'acme/busy/pulls', '../acme', 'acme/bu%20sy']) {
      await expectProblem(await get(h.forge, `/api/pulls?repo=${bad}`), 400, /^repo must be owner\/name/)
    }
    expect(h.fake.requests).toEqual([])
  })

  it("answers 404 for a repo the forge doesn't know, and for a private one the token can't read", async () => {
    await expectProblem(
      await get(h.forge, '/api/pulls?repo=acme/nowhere'),
      404,
      'the forge has no repo acme/nowhere that this host can read',
    )
    const asBob = createForgejoForge({ baseUrl: h.fake.url, token: async () => BOB_TOKEN })
    await expectProblem(
      await get(asBob, '/api/pulls?repo=acme/hidden'),
      404,
      'the forge has no repo acme/hidden that this host can read',
    )
    // The site admin sees it.
    expect(await (await get(h.forge, '/api/pulls?repo=acme/hidden')).json()).toEqual([
      { number: 4, title: 'open change 4', head_sha: headOf('hidden', 4) },
    ])
  })

  it('answers 503 without a forge, without a token, when the forge fails, and when it does not answer in time', async () => {
    await expectProblem(
      await get(null, '/api/pulls?repo=acme/busy'),
      503,
      'this host has no forge: FORGE_URL is not set',
    )
    const tokenless = createForgejoForge({ baseUrl: h.fake.url, token: async () => null })
    await expectProblem(
      await get(tokenless, '/api/pulls?repo=acme/busy'),
      503,
      /^the open pull requests of acme\/busy can't be read from the forge: no forge token yet/,
    )
    h.fake.failNext('GET', '/repos/{owner}/{repo}/pulls', { status: 502, body: 'Bad Gateway' })
    const { app, logger } = anApp(h.forge)
    await expectProblem(
      await app.handle(aRequest('/api/pulls?repo=acme/busy')),
      503,
      /^the open pull requests of acme\/busy can't be read from the forge: the forge answered GET \/repos\/acme\/busy\/pulls with 502/,
    )
    expect(logger.entries).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'forge read failed' }))

    const impatient = await startForgejoHarness(
      { repos: [{ owner: 'acme', name: 'busy', pulls: pulls('busy', [1], 'open') }] },
      {},
      { timeoutMs: 200 },
    )
    try {
      impatient.fake.failNext('GET', '/repos/{owner}/{repo}/pulls', 'hang')
      await expectProblem(
        await get(impatient.forge, '/api/pulls?repo=acme/busy'),
        503,
        /did not answer GET \/repos\/acme\/busy\/pulls within 200 ms$/,
      )
    } finally {
      await impatient.cleanup()
    }
  })
})
