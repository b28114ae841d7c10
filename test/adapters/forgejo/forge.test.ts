import { afterEach, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createForgejoForge } from '../../../adapters/forgejo/forge.ts'
import { FORGE_LOG_MESSAGES } from '../../../adapters/forgejo/http.ts'
import type { ForgeSeed, SeedRepo } from '../../../adapters/memory/forge.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { isAppError } from '../../../core/base/errors.ts'
import {
  BUSY,
  codeOf,
  contractForgeSeed,
  DIFF_42,
  fullName,
  HUGE_DIFF_BYTES,
  HUGE_PR,
  MANY,
  QUIET,
  WIDGETS,
} from '../../ports/forge.fixtures.ts'
import { ADMIN_TOKEN, type ForgejoHarness, startForgejoHarness } from '../../support/fake-forgejo/harness.ts'
import { waitFor } from '../../support/waits.ts'

setDefaultTimeout(60_000)

const REPO_TEMPLATE = '/repos/{owner}/{repo}'

let harness: ForgejoHarness | null = null
afterEach(async () => {
  await harness?.cleanup()
  harness = null
})

async function start(...args: Parameters<typeof startForgejoHarness>): Promise<ForgejoHarness> {
  harness = await startForgejoHarness(...args)
  return harness
}

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected the call to fail')
}

/** Everything an error shows: message, cause chain, own properties. */
function everythingIn(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth += 1) {
    parts.push(String(current), JSON.stringify(current) ?? '', current instanceof Error ? (current.stack ?? '') : '')
    current = current instanceof Error ? current.cause : undefined
  }
  return parts.join('\n')
}

describe('createForgejoForge: statuses and failures', () => {
  it.each([
    [400, 'invalid'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [409, 'conflict'],
    [422, 'invalid'],
    [423, 'forbidden'],
    [429, 'unavailable'],
    [500, 'unavailable'],
    [502, 'unavailable'],
    [503, 'unavailable'],
    [302, 'unavailable'],
  ])('maps %d to %s', async (status, code) => {
    const { fake, forge } = await start(contractForgeSeed())
    fake.failNext('GET', REPO_TEMPLATE, { status, body: { message: 'refused', url: `${fake.url}/api/swagger` } })
    expect(await codeOf(forge.getRepository(WIDGETS))).toBe(code)
  })

  it('sends the token in the Authorization header as `token <t>`, never in the URL', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    await forge.getRepository(WIDGETS)
    expect(fake.requests.at(-1)).toMatchObject({ auth: 'token', login: 'swarm-controller' })
    expect(JSON.stringify(fake.requests)).not.toContain(ADMIN_TOKEN)
  })

  it('times out a forge that does not answer', async () => {
    const { fake } = await start(contractForgeSeed())
    const forge = createForgejoForge({ baseUrl: fake.url, token: async () => ADMIN_TOKEN, timeoutMs: 300 })
    fake.failNext('GET', REPO_TEMPLATE, 'hang')
    const error = await errorOf(forge.getRepository(WIDGETS))
    expect(isAppError(error, 'timeout')).toBe(true)
    expect(everythingIn(error)).not.toContain(ADMIN_TOKEN)
  })

  it('logs a request still unanswered after slowMs, then its timeout, naming the forge and the request', async () => {
    const { fake } = await start(contractForgeSeed())
    const logger = createRecordingLogger()
    const forge = createForgejoForge({
      baseUrl: fake.url,
      token: async () => ADMIN_TOKEN,
      timeoutMs: 300,
      slowMs: 20,
      logger,
    })
    fake.failNext('GET', REPO_TEMPLATE, 'hang')
    expect(isAppError(await errorOf(forge.getRepository(WIDGETS)), 'timeout')).toBe(true)
    const host = new URL(fake.url).host
    expect(logger.entries.map(({ level, msg, fields }) => ({ level, msg, fields }))).toEqual([
      {
        level: 'warn',
        msg: FORGE_LOG_MESSAGES.slow,
        fields: { forge: host, request: 'GET /repos/acme/widgets', waited_ms: 20, timeout_ms: 300 },
      },
      {
        level: 'warn',
        msg: FORGE_LOG_MESSAGES.timedOut,
        fields: { forge: host, request: 'GET /repos/acme/widgets', timeout_ms: 300 },
      },
    ])
    expect(JSON.stringify(logger.entries)).not.toContain(ADMIN_TOKEN)
  })

  it('logs a slow request that is answered after all, and nothing for one answered in time', async () => {
    const { fake } = await start(contractForgeSeed(), { latencyMs: 100 })
    const logger = createRecordingLogger()
    const slow = createForgejoForge({ baseUrl: fake.url, token: async () => ADMIN_TOKEN, slowMs: 20, logger })
    await slow.getRepository(WIDGETS)
    expect(logger.entries.map((entry) => entry.msg)).toEqual([
      FORGE_LOG_MESSAGES.slow,
      FORGE_LOG_MESSAGES.answeredSlowly,
    ])
    expect(logger.entries[1]?.fields).toMatchObject({ request: 'GET /repos/acme/widgets', status: 200 })

    const quiet = createRecordingLogger()
    const patient = createForgejoForge({ baseUrl: fake.url, token: async () => ADMIN_TOKEN, logger: quiet })
    await patient.getRepository(WIDGETS)
    // Answered: its watch is cleared, so nothing can be logged for it any more.
    expect(quiet.entries).toEqual([])
  })

  it('is unavailable with "no forge token yet" while the token provider has none, and calls nothing', async () => {
    const { fake } = await start(contractForgeSeed())
    const forge = createForgejoForge({ baseUrl: fake.url, token: async () => null })
    const error = await errorOf(forge.getRepository(WIDGETS))
    expect(isAppError(error, 'unavailable')).toBe(true)
    expect(String(error)).toContain('no forge token yet')
    expect(await codeOf(forge.listReposWithOpenPulls())).toBe('unavailable')
    expect(await codeOf(forge.mintToken('bob', { name: 'x', scopes: ['write:repository'] }))).toBe('unavailable')
    expect(fake.requests).toEqual([])
  })

  it('asks the token provider on every call, so a rotated token is used at once', async () => {
    const { fake } = await start(contractForgeSeed())
    fake.addToken('swarm-controller', { name: 'rotated', token: 'e'.repeat(40), scopes: ['all'] })
    const tokens = [ADMIN_TOKEN, 'e'.repeat(40)]
    let calls = 0
    const forge = createForgejoForge({ baseUrl: fake.url, token: async () => tokens[calls++ % 2] ?? null })
    await forge.getRepository(WIDGETS)
    await forge.getRepository(WIDGETS)
    expect(calls).toBe(2)
  })

  it('is unavailable when the forge is not listening', async () => {
    const { fake } = await start(contractForgeSeed())
    const url = fake.url
    await fake.stop()
    const forge = createForgejoForge({ baseUrl: url, token: async () => ADMIN_TOKEN })
    expect(await codeOf(forge.getRepository(WIDGETS))).toBe('unavailable')
  })

  it('refuses an answer of the wrong shape as unavailable, naming the field', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    fake.failNext('GET', REPO_TEMPLATE, {
      status: 200,
      body: {
        name: 'widgets',
        full_name: 'acme/widgets',
        owner: { login: 'acme' },
        default_branch: 7,
        empty: false,
        private: true,
        html_url: 'x',
      },
    })
    const error = await errorOf(forge.getRepository(WIDGETS))
    expect(isAppError(error, 'unavailable')).toBe(true)
    expect(String(error)).toContain('the forge answered with an unexpected shape: /default_branch')
  })

  it('keeps the token out of every error, even when the forge or the network echoes it', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    fake.failNext('GET', REPO_TEMPLATE, { status: 401, body: { message: `token ${ADMIN_TOKEN} is not valid` } })
    const echoed = await errorOf(forge.getRepository(WIDGETS))
    expect(isAppError(echoed, 'unauthorized')).toBe(true)
    expect(everythingIn(echoed)).not.toContain(ADMIN_TOKEN)

    const leaky = createForgejoForge({ baseUrl: fake.url, token: async () => ADMIN_TOKEN }, async (_, init) => {
      throw new Error(`connect refused; headers were ${JSON.stringify(init.headers)}`)
    })
    const network = await errorOf(leaky.getRepository(WIDGETS))
    expect(isAppError(network, 'unavailable')).toBe(true)
    expect(everythingIn(network)).not.toContain(ADMIN_TOKEN)
    const minting = await errorOf(
      leaky.forAccount(ADMIN_TOKEN).createReview(WIDGETS, 42, { event: 'COMMENT', body: 'x', commitId: 'a' }),
    )
    expect(everythingIn(minting)).not.toContain(ADMIN_TOKEN)
  })
})

describe('createForgejoForge: reads', () => {
  it('lists open PRs with state=open on every page, across pages', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    const pulls = await forge.listOpenPulls(BUSY)
    expect(pulls).toHaveLength(MANY - MANY / 3)
    const calls = fake.requests.filter((r) => r.template === '/repos/{owner}/{repo}/pulls')
    expect(calls.length).toBe(2)
    expect(calls.every((r) => r.query.state === 'open' && r.query.limit === '50')).toBe(true)
  })

  it('lists recent PRs with state=all and no sort (newest created first), and stops paging once it has enough', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    expect(await forge.listRecentPulls(BUSY, 20)).toHaveLength(20)
    const calls = fake.requests.filter((r) => r.template === '/repos/{owner}/{repo}/pulls')
    expect(calls.map((r) => r.query)).toEqual([{ state: 'all', page: '1', limit: '50' }])
    expect(await forge.listRecentPulls(BUSY, 60)).toHaveLength(60)
    expect(fake.requests.filter((r) => r.template === '/repos/{owner}/{repo}/pulls')).toHaveLength(1 + 2)
  })

  it.each([
    ['Link and X-Total-Count', 'both'],
    ['X-Total-Count only', 'count'],
    ['no paging headers', 'none'],
  ] as const)('pages through a forge that clamps the page size to 20, with %s', async (_, pagingHeaders) => {
    const { fake, forge } = await start(contractForgeSeed(), { maxResponseItems: 20, pagingHeaders })
    const pulls = await forge.listOpenPulls(BUSY)
    expect(pulls.map((p) => p.number)).toEqual(
      Array.from({ length: MANY }, (_, i) => MANY - i).filter((n) => (n - 1) % 3 !== 0),
    )
    const commits = await forge.listPullCommits(WIDGETS, 43)
    expect(commits.map((c) => c.message)).toEqual(Array.from({ length: MANY }, (_, i) => `commit ${i + 1}`))
    expect(
      fake.requests.filter((r) => r.template === '/repos/{owner}/{repo}/pulls/{index}/commits').length,
    ).toBeGreaterThanOrEqual(MANY / 20)
  })

  it('reads commits without signature checks or file lists, and the diff from the API route', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    await forge.listPullCommits(WIDGETS, 42)
    expect(fake.requests.at(-1)?.query).toMatchObject({ verification: 'false', files: 'false' })
    await forge.getPullDiff(WIDGETS, 42)
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: '/repos/acme/widgets/pulls/42.diff',
      template: '/repos/{owner}/{repo}/pulls/{index}.{diffType}',
    })
  })

  it('stops reading a diff at the cap: the stream is cancelled, not read to its end', async () => {
    const { fake, forge } = await start(contractForgeSeed())
    expect(await codeOf(forge.getPullDiff(QUIET, HUGE_PR))).toBe('unprocessable')
    await waitFor(() => fake.diffStreams().cancelled === 1, 'the fake forge to see its diff stream cancelled')
    // What the socket buffers took on top of the cap, not the other 40 MB.
    expect(fake.diffStreams().bytesSent).toBeLessThan(HUGE_DIFF_BYTES / 2)
  })

  it('refuses a diff one byte over the cap, and reads one exactly at it', async () => {
    const { forge } = await start(contractForgeSeed())
    // The fake states DIFF_42's length, so this is the Content-Length path.
    expect(await codeOf(forge.getPullDiff(WIDGETS, 42, DIFF_42.length - 1))).toBe('unprocessable')
    expect(await forge.getPullDiff(WIDGETS, 42, DIFF_42.length)).toBe(DIFF_42)
  })

  it('reads a file under a path with spaces and a branch with a slash', async () => {
    const seed: ForgeSeed = {
      repos: [{ owner: 'acme', name: 'widgets', branches: { 'feature/x y': { 'docs/a b.md': 'spaced\n' } } }],
    }
    const { forge } = await start(seed)
    expect((await forge.getFileContent(WIDGETS, 'docs/a b.md', 'feature/x y'))?.content).toBe('spaced\n')
    expect(await forge.getBranchHead(WIDGETS, 'feature/x y')).toMatch(/^[0-9a-f]{40}$/)
  })
})

function manyRepos(count: number): SeedRepo[] {
  return Array.from({ length: count }, (_, i) => ({
    owner: `org-${i % 10}`,
    name: `repo-${i}`,
    private: i % 2 === 0,
    empty: i % 13 === 0,
    pulls:
      i % 13 === 0
        ? []
        : i % 7 === 0
          ? [{ number: 1 }, { number: 2, state: 'closed' }]
          : i % 5 === 0
            ? [{ number: 1, state: 'closed' }]
            : [],
  }))
}

function expectedOpen(repos: SeedRepo[]): string[] {
  return repos
    .filter((r) => (r.pulls ?? []).some((p) => (p.state ?? 'open') === 'open'))
    .map((r) => `${r.owner}/${r.name}`)
    .sort()
}

describe('createForgejoForge: listReposWithOpenPulls on a forge with 2,000 repos', () => {
  it('reads the open PR counter from the repo search, at most 8 requests at once', async () => {
    const repos = manyRepos(2000)
    const { fake, forge } = await start({ repos }, { latencyMs: 5 })
    const listed = await forge.listReposWithOpenPulls()
    expect(listed.map(fullName).sort()).toEqual(expectedOpen(repos))
    const searches = fake.requests.filter((r) => r.template === '/repos/search')
    expect(searches.length).toBe(40)
    expect(fake.requests.length).toBe(40)
    expect(fake.maxInFlight()).toBeLessThanOrEqual(8)
    expect(fake.maxInFlight()).toBeGreaterThan(1)
  })

  it('asks each repo for one open PR when the forge sends no counter, still at most 8 at once', async () => {
    const repos = manyRepos(2000)
    const { fake, forge } = await start({ repos }, { latencyMs: 2, openPrCounter: false })
    const listed = await forge.listReposWithOpenPulls()
    expect(listed.map(fullName).sort()).toEqual(expectedOpen(repos))
    const perRepo = fake.requests.filter((r) => r.template === '/repos/{owner}/{repo}/pulls')
    // Empty repos can hold no PR, so they are not asked.
    expect(perRepo.length).toBe(repos.filter((r) => r.empty !== true).length)
    expect(perRepo.every((r) => r.query.state === 'open' && r.query.limit === '1')).toBe(true)
    expect(fake.maxInFlight()).toBeLessThanOrEqual(8)
    expect(fake.maxInFlight()).toBeGreaterThan(1)
  })

  it('honours a smaller concurrency bound', async () => {
    const repos = manyRepos(300)
    const { fake } = await start({ repos }, { latencyMs: 2, openPrCounter: false })
    const forge = createForgejoForge({ baseUrl: fake.url, token: async () => ADMIN_TOKEN, concurrency: 3 })
    expect((await forge.listReposWithOpenPulls()).map(fullName).sort()).toEqual(expectedOpen(repos))
    expect(fake.maxInFlight()).toBeLessThanOrEqual(3)
  })

  it('fails as a whole when one page fails, rather than answer a partial list', async () => {
    const { fake, forge } = await start({ repos: manyRepos(500) })
    fake.failNext('GET', '/repos/search', { status: 200, body: { ok: true, data: [] } })
    fake.failNext('GET', '/repos/search', { status: 502 }, 1)
    // The first page answered empty: nothing to list, no more pages asked.
    expect(await forge.listReposWithOpenPulls()).toEqual([])
    expect(await codeOf(forge.listReposWithOpenPulls())).toBe('unavailable')
  })
})
