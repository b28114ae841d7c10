/**
 * `GET /api/review-classifier/examples` in the controller app, reading through
 * the real Forgejo adapter from the fake forge, answered like the rules route:
 * 200 with the file's entries, 400, 404, 422 and 503 on the same terms.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createForgejoForge } from '../../../../adapters/forgejo/forge.ts'
import { EXAMPLES_JSON_PATH, EXAMPLES_YML_PATH } from '../../../../core/repo-files/examples-file.ts'
import { examplesRoutes } from '../../../../entrypoints/controller/http/routes/examples.ts'
import type { ForgeReader } from '../../../../ports/forge.ts'
import { ADMIN_TOKEN, type ForgejoHarness, startForgejoHarness } from '../../../support/fake-forgejo/harness.ts'
import { aRequest, aRouteApp, expectProblem as expectProblemAnswer } from './http-support.ts'

setDefaultTimeout(30_000)

const YML = `examples:
  - pr: 12
    expect:
      datetime: no-match
      no-ads: not-applicable # a comment the route doesn't care about
    note: Drops tzinfo from the scheduler's timestamps.
  - pr: 31
    expect:
      datetime: match
`
const JSON_EXAMPLES = JSON.stringify({ examples: [{ pr: 7, expect: { only: 'match' } }] })
const escaped = (text: string) => text.replaceAll('.', '\\.')

let h: ForgejoHarness

beforeAll(async () => {
  h = await startForgejoHarness({
    repos: [
      { owner: 'acme', name: 'widgets', defaultBranch: 'trunk', files: { [EXAMPLES_YML_PATH]: YML } },
      { owner: 'acme', name: 'json', files: { [EXAMPLES_JSON_PATH]: JSON_EXAMPLES } },
      { owner: 'acme', name: 'plain', files: { 'README.md': 'no examples here' } },
      { owner: 'acme', name: 'both', files: { [EXAMPLES_YML_PATH]: YML, [EXAMPLES_JSON_PATH]: JSON_EXAMPLES } },
      { owner: 'acme', name: 'broken', files: { [EXAMPLES_YML_PATH]: YML.replace('pr: 31', 'pr: 12') } },
      { owner: 'acme', name: 'folder', files: { [`${EXAMPLES_JSON_PATH}/x.json`]: '{}' } },
      { owner: 'acme', name: 'empty', empty: true },
    ],
  })
})

afterAll(async () => {
  await h.cleanup()
})

function anApp(forge: ForgeReader | null) {
  return aRouteApp((logger) => [examplesRoutes({ forge, logger })])
}

async function getExamples(forge: ForgeReader | null, query: string): Promise<Response> {
  return anApp(forge).app.handle(aRequest(`/api/review-classifier/examples${query}`))
}

function expectProblem(response: Response, status: number, detail?: string | RegExp): Promise<string> {
  return expectProblemAnswer(response, status, detail, [ADMIN_TOKEN])
}

describe('GET /api/review-classifier/examples: 200', () => {
  it("answers the default branch's entries in file order, with the commit they were read at", async () => {
    const response = await getExamples(h.forge, '?repo=acme/widgets')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      path: EXAMPLES_YML_PATH,
      branch: 'trunk',
      commit: (await h.forge.getBranchHead({ owner: 'acme', name: 'widgets' }, 'trunk')) ?? 'no head',
      examples: [
        {
          pr: 12,
          expect: { datetime: 'no-match', 'no-ads': 'not-applicable' },
          note: "Drops tzinfo from the scheduler's timestamps.",
        },
        { pr: 31, expect: { datetime: 'match' } },
      ],
    })
  })

  it('answers the JSON file, and a change to the default branch from the next request on', async () => {
    const json = { owner: 'acme', name: 'json' }
    expect(await (await getExamples(h.forge, '?repo=acme/json')).json()).toMatchObject({
      path: EXAMPLES_JSON_PATH,
      examples: [{ pr: 7 }],
    })
    h.fake.changeFile(json, 'main', EXAMPLES_JSON_PATH, JSON_EXAMPLES.replace('"pr":7', '"pr":8'))
    expect(await (await getExamples(h.forge, '?repo=acme/json')).json()).toMatchObject({ examples: [{ pr: 8 }] })
  })
})

describe('GET /api/review-classifier/examples: 400, 404, 422, 503', () => {
  it('answers 400 for a missing repo or one that is not owner/name, without asking the forge', async () => {
    h.fake.requests.length = 0
    await expectProblem(await getExamples(h.forge, ''), 400, 'the query needs repo=owner/name')
    await expectProblem(await getExamples(h.forge, '?repo=acme'), 400, /^repo must be owner\/name/)
    expect(h.fake.requests).toEqual([])
  })

  it('answers 404 for an unknown repo, an empty one, and one with neither file', async () => {
    await expectProblem(
      await getExamples(h.forge, '?repo=acme/nowhere'),
      404,
      'the forge has no repo acme/nowhere that this host can read',
    )
    await expectProblem(
      await getExamples(h.forge, '?repo=acme/empty'),
      404,
      'acme/empty is empty: its default branch main has no commit',
    )
    await expectProblem(
      await getExamples(h.forge, '?repo=acme/plain'),
      404,
      `acme/plain has no examples file on its default branch main: add ${EXAMPLES_YML_PATH} (or ${EXAMPLES_JSON_PATH}) there to label PRs`,
    )
  })

  it('answers 422 for both files, a file that breaks a rule naming the entry, and a directory', async () => {
    await expectProblem(
      await getExamples(h.forge, '?repo=acme/both'),
      422,
      `the examples don't load: ${EXAMPLES_YML_PATH} and ${EXAMPLES_JSON_PATH}: both exist; a repo holds one of the two, so neither is loaded`,
    )
    const detail = await expectProblem(
      await getExamples(h.forge, '?repo=acme/broken'),
      422,
      new RegExp(`^the examples file ${escaped(EXAMPLES_YML_PATH)} doesn't load: `),
    )
    expect(detail).toContain('examples[1] (pr 12): pr 12 is already labelled by examples[0]; PRs must be unique')
    await expectProblem(
      await getExamples(h.forge, '?repo=acme/folder'),
      422,
      new RegExp(
        `^the examples file ${escaped(EXAMPLES_JSON_PATH)} doesn't load: ${escaped(EXAMPLES_JSON_PATH)}: is a directory`,
      ),
    )
  })

  it('answers 503 with no forge, no token yet, or a failing forge', async () => {
    await expectProblem(
      await getExamples(null, '?repo=acme/widgets'),
      503,
      'this host has no forge: FORGE_URL is not set',
    )
    const tokenless = createForgejoForge({ baseUrl: h.fake.url, token: async () => null })
    await expectProblem(
      await getExamples(tokenless, '?repo=acme/widgets'),
      503,
      /^the examples can't be read from the forge: no forge token yet/,
    )
    h.fake.failNext('GET', '/repos/{owner}/{repo}/contents/{filepath}', { status: 500 })
    await expectProblem(
      await getExamples(h.forge, '?repo=acme/widgets'),
      503,
      /^the examples can't be read from the forge: the forge answered GET \/repos\/acme\/widgets\S* with 500$/,
    )
  })
})

describe('the OpenAPI document', () => {
  it('documents the route with its statuses', async () => {
    const document = await (await anApp(h.forge).app.handle(aRequest('/openapi/json'))).json()
    const operation = (document as { paths: Record<string, { get?: { responses: Record<string, unknown> } }> }).paths[
      '/api/review-classifier/examples'
    ]?.get
    expect(Object.keys(operation?.responses ?? {}).sort()).toEqual(['200', '400', '404', '422', '503'])
  })
})
