/**
 * The fake forge checked against Forgejo's swagger file: every route it
 * serves exists there with that method, every JSON answer it gave while the
 * adapter (and a few direct calls) exercised it fits the response schema of
 * its status, and every request the adapter sent uses declared parameters and
 * fields. Where docs/forgejo.md documents that the real forge departs from the
 * spec, the departure is listed below with its section.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import {
  BUSY,
  codeOf,
  contractForgeSeed,
  EMPTY,
  HEAD_42,
  MISSING,
  NARROW_TOKEN,
  READER_TOKEN,
  RULES_PATH,
  SERVICE_LOGIN,
  SERVICE_TOKEN,
  WIDGETS,
} from '../../ports/forge.fixtures.ts'
import { ADMIN_TOKEN, type ForgejoHarness, startForgejoHarness } from '../../support/fake-forgejo/harness.ts'
import {
  checkDefinition,
  checkRequest,
  checkResponse,
  findOperation,
  loadSwagger,
} from '../../support/fake-forgejo/swagger.ts'

setDefaultTimeout(60_000)

const swagger = loadSwagger()

/** Statuses the spec leaves out that real Forgejo sends, with why (answers still checked against the error definitions). */
const UNDECLARED: Array<{ method: string; template: string; status: number; why: string }> = [
  { method: '*', template: '*', status: 401, why: 'bad or missing credentials, on any route (docs/forgejo.md §2.4)' },
  {
    method: '*',
    template: '*',
    status: 403,
    why: 'a token scope missing or an account that must change its password, on any route (§2.1, §2.2)',
  },
  {
    method: 'PATCH',
    template: '/admin/users/{username}',
    status: 404,
    why: 'unknown user, from the user lookup middleware',
  },
  {
    method: 'PUT',
    template: '/repos/{owner}/{repo}/contents/{filepath}',
    status: 500,
    why: 'PUT on a missing file (§6.10)',
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/pulls/{index}/reviews',
    status: 500,
    why: 'unknown commit_id on APPROVED (§6.6)',
  },
]

function conformance(h: ForgejoHarness): string[] {
  const problems: string[] = []
  for (const answer of h.fake.responses) {
    if (!answer.json) continue
    // A directory answers an array of entries, an empty repo `[]` (§6.4).
    if (
      answer.template === '/repos/{owner}/{repo}/contents/{filepath}' &&
      answer.method === 'GET' &&
      Array.isArray(answer.body)
    ) {
      for (const entry of answer.body) problems.push(...checkDefinition(swagger, 'ContentsResponse', entry))
      continue
    }
    const found = checkResponse(swagger, answer.method, answer.template, answer.status, answer.body)
    const undeclared = found.some((p) => p.endsWith(`undeclared status ${answer.status}`))
    const allowed = UNDECLARED.some(
      (u) =>
        (u.method === '*' || u.method === answer.method) &&
        (u.template === '*' || u.template === answer.template) &&
        u.status === answer.status,
    )
    if (undeclared && allowed)
      problems.push(...checkDefinition(swagger, answer.status === 404 ? 'APINotFound' : 'APIError', answer.body))
    else problems.push(...found)
  }
  for (const request of h.fake.requests) {
    if (request.template === null) {
      problems.push(`${request.method} ${request.path}: no route served it`)
      continue
    }
    // The v16 admin token routes are not in the v15 file.
    if (request.template.startsWith('/admin/users/{username}/tokens')) continue
    problems.push(...checkRequest(swagger, request.method, request.template, request.query, request.body))
  }
  return problems
}

async function post(h: ForgejoHarness, path: string, token: string, body: unknown): Promise<Response> {
  return fetch(`${h.fake.url}/api/v1${path}`, {
    method: 'POST',
    headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
}

describe('the fake Forgejo against swagger.v1.json', () => {
  let h: ForgejoHarness
  beforeAll(async () => {
    h = await startForgejoHarness(contractForgeSeed())
  })
  afterAll(async () => {
    await h.cleanup()
  })

  it('serves only routes the swagger file has, with that method; the v16 token routes only from v16 on', async () => {
    for (const route of h.fake.routes) expect(findOperation(swagger, route.method, route.template)).not.toBeNull()
    const v16 = await startForgejoHarness(contractForgeSeed(), { version: '16.0.0+gitea-1.22.0' })
    try {
      const added = v16.fake.routes.filter((r) => r.since !== undefined)
      expect(added.map((r) => `${r.method} ${r.template}`).sort()).toEqual([
        'DELETE /admin/users/{username}/tokens/{token}',
        'GET /admin/users/{username}/tokens',
        'POST /admin/users/{username}/tokens',
      ])
      for (const route of added) expect(findOperation(swagger, route.method, route.template)).toBeNull()
    } finally {
      await v16.cleanup()
    }
  })

  it('answers every call of the adapter in the shapes the swagger file gives, and the adapter asks in declared terms', async () => {
    const { forge } = h
    const writer = forge.forAccount(SERVICE_TOKEN)
    await forge.getRepository(WIDGETS)
    await forge.getRepository(EMPTY)
    await codeOf(forge.getRepository(MISSING))
    await forge.getPullRequest(WIDGETS, 42)
    await codeOf(forge.getPullRequest(WIDGETS, 999))
    await forge.listPullCommits(WIDGETS, 43)
    await forge.getPullDiff(WIDGETS, 42)
    await forge.getFileContent(WIDGETS, RULES_PATH, 'main')
    await forge.getFileContent(WIDGETS, 'nothing-here', 'main')
    await forge.getFileContent(EMPTY, RULES_PATH, 'main')
    await codeOf(forge.getFileContent(WIDGETS, 'docs', 'main'))
    await forge.getBranchHead(WIDGETS, 'main')
    await forge.getBranchHead(EMPTY, 'main')
    await forge.listReposWithOpenPulls()
    await forge.listOpenPulls(WIDGETS)
    await forge.listRecentPulls(BUSY, 40)
    await forge.getUser('alice')
    await forge.getUser('nobody')
    await forge.getRepoPermission(WIDGETS, 'bob')
    await codeOf(forge.getRepoPermission(WIDGETS, 'nobody'))
    await forge.createUser({ login: 'classifier-2', email: 'c2@example.org', fullName: 'C2' })
    await codeOf(forge.createUser({ login: 'classifier-2', email: 'c3@example.org', fullName: '' }))
    await codeOf(forge.createUser({ login: 'c4', email: '', fullName: '' }))
    await forge.ensureServiceAccountLimits('classifier-2')
    await codeOf(forge.ensureServiceAccountLimits('nobody'))
    const minted = await forge.mintToken('classifier-2', { name: 'swarm', scopes: ['write:repository'] })
    await codeOf(forge.mintToken('classifier-2', { name: 'swarm', scopes: ['write:repository'] }))
    await codeOf(forge.mintToken('nobody', { name: 'swarm', scopes: ['write:repository'] }))
    await forge.listTokens('classifier-2')
    await forge.deleteToken('classifier-2', minted.id)
    await codeOf(forge.deleteToken('classifier-2', minted.id))
    await writer.createReview(WIDGETS, 42, { event: 'APPROVED', body: 'ok', commitId: HEAD_42 })
    await codeOf(writer.createReview(WIDGETS, 42, { event: 'APPROVED', body: '', commitId: 'f'.repeat(40) }))
    await codeOf(writer.createReview(WIDGETS, 42, { event: 'COMMENT', body: ' ', commitId: HEAD_42 }))
    await codeOf(
      forge.forAccount(NARROW_TOKEN).createReview(WIDGETS, 42, { event: 'COMMENT', body: 'x', commitId: HEAD_42 }),
    )
    await codeOf(
      forge.forAccount('0'.repeat(40)).createReview(WIDGETS, 42, { event: 'COMMENT', body: 'x', commitId: HEAD_42 }),
    )
    const commit = {
      from: 'main',
      content: 'x',
      message: 'm',
      author: { name: 'A', email: 'a@example.org' },
      committer: { name: 'B', email: 'b@example.org' },
    }
    await writer.commitFile(WIDGETS, { ...commit, branch: 'b1', path: 'new.txt', sha: null })
    const read = await forge.getFileContent(WIDGETS, RULES_PATH, 'main')
    await writer.commitFile(WIDGETS, { ...commit, branch: 'b2', path: RULES_PATH, sha: read?.sha ?? null })
    await codeOf(writer.commitFile(WIDGETS, { ...commit, branch: 'b3', path: RULES_PATH, sha: '0'.repeat(40) }))
    await codeOf(writer.commitFile(WIDGETS, { ...commit, branch: 'b4', path: 'gone.txt', sha: '0'.repeat(40) }))
    await codeOf(writer.commitFile(WIDGETS, { ...commit, branch: 'b1', path: 'other.txt', sha: null }))
    await codeOf(writer.commitFile(WIDGETS, { ...commit, branch: 'b5', from: 'nope', path: 'x.txt', sha: null }))
    const status = { state: 'pending', context: 'review-classifier', description: 'Checking', targetUrl: null } as const
    await writer.setCommitStatus(WIDGETS, HEAD_42, status)
    await writer.setCommitStatus(WIDGETS, HEAD_42, { ...status, state: 'success', targetUrl: `${h.fake.url}/x` })
    await codeOf(writer.setCommitStatus(WIDGETS, 'f'.repeat(40), status))
    await codeOf(forge.forAccount(READER_TOKEN).setCommitStatus(WIDGETS, HEAD_42, status))
    await codeOf(forge.forAccount(NARROW_TOKEN).setCommitStatus(WIDGETS, HEAD_42, status))
    const comment = h.fake.addComment(WIDGETS, 42, 'alice', '@review-classifier label datetime match')
    await writer.reactToComment(WIDGETS, comment, '+1')
    await writer.reactToComment(WIDGETS, comment, '+1')
    await codeOf(writer.reactToComment(WIDGETS, comment + 1000, '+1'))
    await codeOf(forge.forAccount(READER_TOKEN).reactToComment(WIDGETS, comment, '+1'))
    await writer.createComment(WIDGETS, 42, 'Not waived: only people with write access to the repo may waive.')
    await codeOf(writer.createComment(WIDGETS, 999, 'x'))

    expect(h.fake.responses.length).toBeGreaterThan(40)
    expect(new Set(h.fake.responses.map((r) => r.status))).toEqual(
      new Set([200, 201, 204, 400, 401, 403, 404, 409, 422, 500]),
    )
    expect(conformance(h)).toEqual([])
  })

  it('answers a permission read only for a site admin, a repo admin or the user asked about (403 otherwise)', async () => {
    const read = (token: string, login: string) =>
      fetch(`${h.fake.url}/api/v1/repos/acme/widgets/collaborators/${login}/permission`, {
        headers: { Authorization: `token ${token}` },
      })
    const own = await read(READER_TOKEN, 'bob')
    expect(own.status).toBe(200)
    expect(await own.json()).toMatchObject({ permission: 'read', role_name: 'read', user: { login: 'bob' } })
    expect((await read(READER_TOKEN, SERVICE_LOGIN)).status).toBe(403)
    expect((await read(ADMIN_TOKEN, SERVICE_LOGIN)).status).toBe(200)
    expect(conformance(h)).toEqual([])
  })

  it('behaves as Forgejo on what the adapter never sends: an unknown event makes a pending review, a token cannot mint', async () => {
    const draft = await post(h, '/repos/acme/widgets/pulls/42/reviews', SERVICE_TOKEN, {
      event: 'APPROVE',
      body: 'draft',
    })
    expect(draft.status).toBe(200)
    expect(await draft.json()).toMatchObject({ state: 'PENDING', html_url: '' })
    expect((await post(h, '/repos/acme/widgets/pulls/42/reviews', SERVICE_TOKEN, { event: 'APPROVE' })).status).toBe(
      422,
    )
    const byToken = await post(h, `/users/${SERVICE_LOGIN}/tokens`, ADMIN_TOKEN, { name: 'n', scopes: ['all'] })
    expect(byToken.status).toBe(401)
    expect(await byToken.json()).toMatchObject({ message: 'auth method not allowed' })
    const noScope = await post(h, '/admin/users', SERVICE_TOKEN, {
      username: 'x',
      email: 'x@example.org',
      password: 'long enough',
    })
    expect(noScope.status).toBe(403)
    expect(await noScope.json()).toMatchObject({
      message: 'token does not have at least one of required scope(s): [write:admin]',
    })
    const halfSource = await fetch(`${h.fake.url}/api/v1/admin/users/${SERVICE_LOGIN}`, {
      method: 'PATCH',
      headers: { Authorization: `token ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ login_name: SERVICE_LOGIN, max_repo_creation: 0 }),
    })
    // `login_name` without `source_id` (or the reverse) is refused whole: nothing of the edit is applied.
    expect(halfSource.status).toBe(422)
    expect(h.fake.flags(SERVICE_LOGIN)?.maxRepoCreation).toBe(-1)
    const allStates = await fetch(`${h.fake.url}/api/v1/repos/acme/widgets/pulls`, {
      headers: { Authorization: `token ${ADMIN_TOKEN}` },
    })
    const listed: unknown = await allStates.json()
    // Left out, `state` lists every state, closed and merged too (docs/forgejo.md §6.1).
    expect(Array.isArray(listed) ? listed.length : -1).toBe(4)
    expect(conformance(h)).toEqual([])
  })

  it('stores a commit status as Forgejo does: any state as sent, text trimmed, a short sha completed, an unknown one a 404 naming it', async () => {
    const path = `/repos/acme/widgets/statuses/${HEAD_42.slice(0, 10)}`
    const odd = await post(h, path, SERVICE_TOKEN, {
      state: 'bogus',
      context: ' review-classifier ',
      description: ' x ',
    })
    expect(odd.status).toBe(201)
    expect(await odd.json()).toMatchObject({
      status: 'bogus',
      context: 'review-classifier',
      description: 'x',
      target_url: '',
      url: `${h.fake.url}/api/v1/repos/acme/widgets/statuses/${HEAD_42}`,
      creator: { login: SERVICE_LOGIN },
    })
    const unknown = await post(h, `/repos/acme/widgets/statuses/${'e'.repeat(40)}`, SERVICE_TOKEN, { state: 'pending' })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ message: 'e'.repeat(40), errors: [] })
    expect(conformance(h)).toEqual([])
  })

  it('has a checker that catches what does not fit', () => {
    expect(checkResponse(swagger, 'GET', '/repos/{owner}/{repo}', 200, { name: 7, invented: true })).toEqual([
      'GET /repos/{owner}/{repo} 200: $.name: expected a string',
      'GET /repos/{owner}/{repo} 200: $.invented: not in the schema Repository',
    ])
    expect(checkResponse(swagger, 'GET', '/repos/{owner}/{repo}', 418, {})).toEqual([
      'GET /repos/{owner}/{repo}: undeclared status 418',
    ])
    expect(checkResponse(swagger, 'GET', '/repos/{owner}/{repo}/nothing', 200, {})).toHaveLength(1)
    expect(checkRequest(swagger, 'POST', '/admin/users', { page: '1' }, { email: 'x' })).toEqual([
      'POST /admin/users request: query parameter page is not declared',
      'POST /admin/users request: $.username: required but missing',
    ])
    expect(checkResponse(swagger, 'GET', '/users/{username}', 200, { login: 'a', username: 'a' })).toEqual([])
  })
})
