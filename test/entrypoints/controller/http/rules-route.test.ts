/**
 * `GET /api/review-classifier/rules` in the controller app, reading through
 * the real Forgejo adapter from the fake forge, which answers as docs/forgejo.md
 * says: 404 for a repo the token can't read, `[]` for any path of an empty
 * repo, an empty 500 message for a non-admin.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createForgejoForge } from '../../../../adapters/forgejo/forge.ts'
import { RULES_JSON_PATH, RULES_YML_PATH } from '../../../../core/repo-files/rules-file.ts'
import { PROBLEM_CONTENT_TYPE } from '../../../../entrypoints/controller/http/problem.ts'
import { rulesRoutes } from '../../../../entrypoints/controller/http/routes/rules.ts'
import type { ForgeReader } from '../../../../ports/forge.ts'
import { ADMIN_TOKEN, type ForgejoHarness, startForgejoHarness } from '../../../support/fake-forgejo/harness.ts'
import { aRequest, aRouteApp, expectProblem as expectProblemAnswer } from './http-support.ts'

setDefaultTimeout(30_000)

const BOB_TOKEN = 'b0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb'
const YML = `classifications:
  - name: datetime
    description: All datetimes carry time zone information.
    polarity: positive
    threshold: 80
  - name: bao-first # a comment the route doesn't care about
    description: Any added secret reaches its reader through the bao store.
    polarity: positive
    threshold: 70
`
const SCOPED_YML = `classifications:
  - name: migrations
    description: Every new migration has a working down step.
    polarity: positive
    threshold: 80
    paths: ["db/migrations/**", "!db/migrations/legacy/**"]
    mode: advisory
`
const JSON_RULES = JSON.stringify({
  classifications: [{ name: 'only', description: 'The one rule.', threshold: 50, polarity: 'negative' }],
})

let h: ForgejoHarness

beforeAll(async () => {
  h = await startForgejoHarness({
    users: [{ login: 'bob' }],
    tokens: [{ login: 'bob', name: 'bob', token: BOB_TOKEN, scopes: ['read:repository'] }],
    repos: [
      {
        owner: 'acme',
        name: 'widgets',
        defaultBranch: 'trunk',
        files: { [RULES_YML_PATH]: YML },
        branches: { main: { [RULES_JSON_PATH]: JSON_RULES } },
      },
      { owner: 'acme', name: 'json', files: { [RULES_JSON_PATH]: JSON_RULES } },
      { owner: 'acme', name: 'scoped', files: { [RULES_YML_PATH]: SCOPED_YML } },
      { owner: 'acme', name: 'plain', files: { 'README.md': 'no rules here' } },
      { owner: 'acme', name: 'both', files: { [RULES_YML_PATH]: YML, [RULES_JSON_PATH]: JSON_RULES } },
      {
        owner: 'acme',
        name: 'broken',
        files: { [RULES_YML_PATH]: YML.replace('threshold: 70', 'threshold: 170').replace('bao-first', 'datetime') },
      },
      { owner: 'acme', name: 'garbled', files: { [RULES_YML_PATH]: 'classifications: [\n' } },
      { owner: 'acme', name: 'folder', files: { [`${RULES_JSON_PATH}/x.json`]: '{}' } },
      { owner: 'acme', name: 'empty', empty: true },
      { owner: 'acme', name: 'lost-default', defaultBranch: 'trunk', branches: { main: { [RULES_YML_PATH]: YML } } },
      { owner: 'acme', name: 'private', private: true, files: { [RULES_YML_PATH]: YML } },
    ],
  })
  h.fake.deleteBranch({ owner: 'acme', name: 'lost-default' }, 'trunk')
})

afterAll(async () => {
  await h.cleanup()
})

function anApp(forge: ForgeReader | null) {
  return aRouteApp((logger) => [rulesRoutes({ forge, logger })])
}

async function getRules(forge: ForgeReader | null, query: string): Promise<Response> {
  return anApp(forge).app.handle(aRequest(`/api/review-classifier/rules${query}`))
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

describe('GET /api/review-classifier/rules: 200', () => {
  it("answers paths and mode in the POST's shape", async () => {
    const response = await getRules(h.forge, '?repo=acme/scoped')
    expect(response.status).toBe(200)
    const body = (await response.json()) as { classifications: unknown[] }
    expect(body.classifications).toEqual([
      {
        name: 'migrations',
        description: 'Every new migration has a working down step.',
        threshold: 80,
        polarity: 'positive',
        paths: ['db/migrations/**', '!db/migrations/legacy/**'],
        mode: 'advisory',
      },
    ])
  })

  it("answers the default branch's YAML rules in file order and the POST's shape, with the commit they were read at", async () => {
    const response = await getRules(h.forge, '?repo=acme/widgets')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      path: RULES_YML_PATH,
      branch: 'trunk',
      commit: (await h.forge.getBranchHead({ owner: 'acme', name: 'widgets' }, 'trunk')) ?? 'no head',
      classifications: [
        {
          name: 'datetime',
          description: 'All datetimes carry time zone information.',
          threshold: 80,
          polarity: 'positive',
        },
        {
          name: 'bao-first',
          description: 'Any added secret reaches its reader through the bao store.',
          threshold: 70,
          polarity: 'positive',
        },
      ],
    })
  })

  it('answers the JSON file, and a rule merged to the default branch from the next request on', async () => {
    const json = { owner: 'acme', name: 'json' }
    const first = await (await getRules(h.forge, '?repo=acme/json')).json()
    expect(first).toMatchObject({ path: RULES_JSON_PATH, branch: 'main', classifications: [{ name: 'only' }] })
    h.fake.changeFile(json, 'main', RULES_JSON_PATH, JSON_RULES.replaceAll('only', 'merged'))
    const second = await (await getRules(h.forge, '?repo=acme/json')).json()
    expect(second).toMatchObject({ classifications: [{ name: 'merged' }] })
    expect(second).not.toMatchObject({ commit: (first as { commit: string }).commit })
  })
})

describe('GET /api/review-classifier/rules: 400', () => {
  it('refuses a missing repo, and one that is not owner/name, without asking the forge', async () => {
    h.fake.requests.length = 0
    await expectProblem(await getRules(h.forge, ''), 400, 'the query needs repo=owner/name')
    await expectProblem(await getRules(h.forge, '?repo='), 400, 'the query needs repo=owner/name')
    for (const bad of [
      'acme',
      'acme/',
      '/widgets',
      'acme/widgets/extra',
      'acme/..',
      'acme/wid gets',
      'acme%2Fwidgets%3Fx',
      '..%2F..',
    ]) {
      await expectProblem(
        await getRules(h.forge, `?repo=${bad}`),
        400,
        /^repo must be owner\/name \(letters, digits, '-', '_' and '\.'\), got "/,
      )
    }
    expect(h.fake.requests).toEqual([])
  })
})

describe('GET /api/review-classifier/rules: 404', () => {
  it("answers 404 for a repo the forge doesn't know", async () => {
    await expectProblem(
      await getRules(h.forge, '?repo=acme/nowhere'),
      404,
      'the forge has no repo acme/nowhere that this host can read',
    )
  })

  it('answers 404 for a private repo the token may not read, which Forgejo hides behind its 404', async () => {
    const asBob = createForgejoForge({ baseUrl: h.fake.url, token: async () => BOB_TOKEN })
    const detail = await expectProblem(
      await getRules(asBob, '?repo=acme/private'),
      404,
      'the forge has no repo acme/private that this host can read',
    )
    expect(detail).not.toContain(BOB_TOKEN)
    expect(h.fake.responses.at(-1)).toMatchObject({ template: '/repos/{owner}/{repo}', status: 404 })
  })

  it('answers 404 for an empty repo (the forge answers [] for its files) and for a default branch that does not exist', async () => {
    await expectProblem(
      await getRules(h.forge, '?repo=acme/empty'),
      404,
      'acme/empty is empty: its default branch main has no commit',
    )
    await expectProblem(
      await getRules(h.forge, '?repo=acme/lost-default'),
      404,
      "the default branch trunk of acme/lost-default doesn't exist",
    )
  })

  it('answers 404 naming the file to add when the default branch has neither file', async () => {
    await expectProblem(
      await getRules(h.forge, '?repo=acme/plain'),
      404,
      `acme/plain has no rules file on its default branch main: add ${RULES_YML_PATH} (or ${RULES_JSON_PATH}) there to give it rules`,
    )
  })
})

describe('GET /api/review-classifier/rules: 422', () => {
  it('answers 422 for both files on the default branch', async () => {
    await expectProblem(
      await getRules(h.forge, '?repo=acme/both'),
      422,
      `the rules don't load: ${RULES_YML_PATH} and ${RULES_JSON_PATH}: both exist; a repo holds one of the two, so neither is loaded`,
    )
  })

  it('answers 422 naming the file and every problem of a file that breaks a rule', async () => {
    const detail = await expectProblem(
      await getRules(h.forge, '?repo=acme/broken'),
      422,
      new RegExp(`^the rules file ${RULES_YML_PATH.replaceAll('.', '\\.')} doesn't load: `),
    )
    expect(detail).toContain(
      `${RULES_YML_PATH}: classifications[1] (name "datetime"): threshold must be a whole number 0–100, got 170 (a number)`,
    )
    expect(detail).toContain('the name is already used by classifications[0]; names must be unique')
  })

  it("answers 422 for a file that doesn't parse, and for a directory where the file goes", async () => {
    await expectProblem(
      await getRules(h.forge, '?repo=acme/garbled'),
      422,
      new RegExp(
        `^the rules file ${RULES_YML_PATH.replaceAll('.', '\\.')} doesn't load: ${RULES_YML_PATH.replaceAll('.', '\\.')}: line \\d+, column \\d+: `,
      ),
    )
    await expectProblem(
      await getRules(h.forge, '?repo=acme/folder'),
      422,
      new RegExp(
        `^the rules file ${RULES_JSON_PATH.replaceAll('.', '\\.')} doesn't load: ${RULES_JSON_PATH.replaceAll('.', '\\.')}: is a directory`,
      ),
    )
  })
})

describe('GET /api/review-classifier/rules: 503', () => {
  it('answers 503 on a host with no forge configured', async () => {
    await expectProblem(await getRules(null, '?repo=acme/widgets'), 503, 'this host has no forge: FORGE_URL is not set')
  })

  it('answers 503 while the controller has no forge token yet', async () => {
    const tokenless = createForgejoForge({ baseUrl: h.fake.url, token: async () => null })
    await expectProblem(
      await getRules(tokenless, '?repo=acme/widgets'),
      503,
      "the rules can't be read from the forge: no forge token yet: the controller has no site-admin token for the forge",
    )
  })

  it('answers 503 when the forge fails, at any of its reads, and logs it', async () => {
    for (const template of [
      '/repos/{owner}/{repo}',
      '/repos/{owner}/{repo}/branches/{branch}',
      '/repos/{owner}/{repo}/contents/{filepath}',
    ]) {
      h.fake.failNext('GET', template, { status: 500 })
      const { app, logger } = anApp(h.forge)
      const response = await app.handle(aRequest('/api/review-classifier/rules?repo=acme/widgets'))
      await expectProblem(
        response,
        503,
        /^the rules can't be read from the forge: the forge answered GET \/repos\/acme\/widgets\S* with 500$/,
      )
      expect(logger.entries).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'forge read failed' }))
    }
  })

  it("answers 503 when the forge doesn't answer within the adapter's deadline", async () => {
    const impatient = await startForgejoHarness(
      { repos: [{ owner: 'acme', name: 'widgets', files: { [RULES_YML_PATH]: YML } }] },
      {},
      { timeoutMs: 200 },
    )
    try {
      impatient.fake.failNext('GET', '/repos/{owner}/{repo}/contents/{filepath}', 'hang')
      await expectProblem(
        await getRules(impatient.forge, '?repo=acme/widgets'),
        503,
        /^the rules can't be read from the forge: the forge at 127\.0\.0\.1:\d+ did not answer GET \S+ within 200 ms$/,
      )
    } finally {
      await impatient.cleanup()
    }
  })

  it("answers 503 when the forge refuses the controller's token", async () => {
    const revoked = createForgejoForge({
      baseUrl: h.fake.url,
      token: async () => 'dead0dead0dead0dead0dead0dead0dead0dead0',
    })
    const detail = await expectProblem(
      await getRules(revoked, '?repo=acme/widgets'),
      503,
      /^the rules can't be read from the forge: the forge answered GET \/repos\/acme\/widgets with 401/,
    )
    expect(detail).not.toContain('dead0dead0')
  })
})

describe('the OpenAPI document', () => {
  it('documents the route with its statuses, the errors as problem+json', async () => {
    const document = await (await anApp(h.forge).app.handle(aRequest('/openapi/json'))).json()
    const operation = (
      document as {
        paths: Record<string, { get?: { responses: Record<string, { content: Record<string, unknown> }> } }>
      }
    ).paths['/api/review-classifier/rules']?.get
    expect(Object.keys(operation?.responses ?? {}).sort()).toEqual(['200', '400', '404', '422', '503'])
    expect(Object.keys(operation?.responses['422']?.content ?? {})).toEqual([PROBLEM_CONTENT_TYPE])
  })
})
