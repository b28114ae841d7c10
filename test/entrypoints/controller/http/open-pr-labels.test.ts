/**
 * "Open a PR" with the page's labels, through the controller app, on the
 * real Forgejo adapter against the fake forge: the labels go into the
 * examples file in the same commit as the rules, merged by PR number.
 */

import { afterEach, describe, expect, it, setDefaultTimeout } from 'bun:test'
import type { ForgeSeed, SeedRepo } from '../../../../adapters/memory/forge.ts'
import { createSequenceIds } from '../../../../adapters/memory/ids.ts'
import { createRecordingLogger } from '../../../../adapters/memory/logger.ts'
import { createMemorySecretStore } from '../../../../adapters/memory/secret-store.ts'
import { EXAMPLES_JSON_PATH, EXAMPLES_YML_PATH, parseExamplesFile } from '../../../../core/repo-files/examples-file.ts'
import { parseRulesFile, RULES_YML_PATH } from '../../../../core/repo-files/rules-file.ts'
import { SERVICE_ACCOUNT, SERVICE_TOKEN } from '../../../../core/settings/service-account.ts'
import type { Classification, RepoRef } from '../../../../core/wire/types.ts'
import { createControllerApp } from '../../../../entrypoints/controller/http/app.ts'
import { OPEN_PR_PATH, openPrRoutes } from '../../../../entrypoints/controller/http/routes/open-pr.ts'
import { createOpenPr } from '../../../../entrypoints/controller/usecases/repo-files/open-pr.ts'
import { aClassification } from '../../../support/builders.ts'
import { type ForgejoHarness, startForgejoHarness } from '../../../support/fake-forgejo/harness.ts'
import { aRequest, expectProblem } from './http-support.ts'

setDefaultTimeout(60_000)

const SVC_TOKEN = '5b2d8f0a4c6e8a0b2d4f6a8c0e2b4d6f8a0c2e4b'
const MULTI = '/repos/{owner}/{repo}/contents'

const repo = (name: string): RepoRef => ({ owner: 'acme', name })

const RULES =
  'classifications:\n  - name: datetime\n    description: All datetimes carry time zone information.\n    polarity: positive\n    threshold: 80\n'
const EXAMPLES = `# Labelled by the team.
examples:
  # The scheduler PR.
  - pr: 12
    expect:
      datetime: no-match # naive timestamps
    note: Drops tzinfo.
  - pr: 31
    expect:
      datetime: match
`

const RULE: Classification = {
  name: 'datetime',
  description: 'All datetimes carry time zone information.',
  polarity: 'positive',
  threshold: 80,
}
const NEW_RULE = aClassification({
  name: 'small-prs',
  description: 'The PR changes fewer than 400 lines.',
  threshold: 75,
})

function seedRepo(name: string, files: Record<string, string>): SeedRepo {
  return { owner: 'acme', name, files, collaborators: { [SERVICE_ACCOUNT.login]: 'write' } }
}

function aSeed(): ForgeSeed {
  return {
    users: [
      { login: 'alice', fullName: 'Alice Example', email: 'alice@corp.example' },
      { login: SERVICE_ACCOUNT.login, fullName: SERVICE_ACCOUNT.fullName, email: SERVICE_ACCOUNT.email },
    ],
    tokens: [
      { login: SERVICE_ACCOUNT.login, name: SERVICE_TOKEN.name, token: SVC_TOKEN, scopes: ['write:repository'] },
    ],
    repos: [
      seedRepo('labelled', { [RULES_YML_PATH]: RULES, [EXAMPLES_YML_PATH]: EXAMPLES }),
      seedRepo('unlabelled', { [RULES_YML_PATH]: RULES }),
      seedRepo('jsonlabels', {
        [RULES_YML_PATH]: RULES,
        [EXAMPLES_JSON_PATH]: JSON.stringify({ examples: [{ pr: 4, expect: { datetime: 'match' } }] }),
      }),
      seedRepo('twofiles', {
        [RULES_YML_PATH]: RULES,
        [EXAMPLES_YML_PATH]: EXAMPLES,
        [EXAMPLES_JSON_PATH]: '{"examples": []}',
      }),
      seedRepo('dirlabels', { [RULES_YML_PATH]: RULES, [`${EXAMPLES_YML_PATH}/inside.yml`]: EXAMPLES }),
    ],
  }
}

let harness: ForgejoHarness | null = null
afterEach(async () => {
  await harness?.cleanup()
  harness = null
})

async function aWorld() {
  const h = await startForgejoHarness(aSeed())
  harness = h
  const secrets = createMemorySecretStore()
  await secrets.write(SERVICE_TOKEN.secret.path, SERVICE_TOKEN.secret.field, SVC_TOKEN)
  const logger = createRecordingLogger()
  const openPr = createOpenPr({
    forge: { api: h.forge, webUrl: h.fake.url, noreplyDomain: 'forge.example' },
    secrets,
    ids: createSequenceIds(),
    logger,
  })
  const app = createControllerApp({
    logger,
    routes: [openPrRoutes({ openPr })],
  })
  return { h, app }
}

function post(name: string, classifications: Classification[], labels?: unknown): Request {
  const body = { repo: `acme/${name}`, classifications, ...(labels === undefined ? {} : { labels }) }
  return aRequest(OPEN_PR_PATH, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', 'remote-user': 'alice' },
  })
}

function examplesOf(path: string, text: string) {
  const parsed = parseExamplesFile(path, text)
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error))
  return parsed.value
}

describe('POST /api/review-classifier/open-pr with labels', () => {
  it('writes the rules and the examples in one commit, merged by PR, comments kept', async () => {
    const { h, app } = await aWorld()
    const mainBefore = await h.forge.getBranchHead(repo('labelled'), 'main')
    const response = await app.handle(
      post(
        'labelled',
        [NEW_RULE],
        [
          { pr: 12, expect: { datetime: 'match', 'small-prs': 'no-match' } },
          { pr: 40, expect: { 'small-prs': 'match' } },
        ],
      ),
    )
    expect(response.status).toBe(201)
    const answer = { branch: String(Reflect.get(Object(await response.json()), 'branch')) }
    const pushed = h.fake.pushedCommits(repo('labelled'))
    expect(pushed).toHaveLength(1)
    const [commit] = pushed
    expect(commit?.path).toBe(RULES_YML_PATH)
    expect(parseRulesFile(RULES_YML_PATH, commit?.content ?? '')).toEqual({ ok: true, value: [RULE, NEW_RULE] })
    expect(commit?.moreFiles?.map((file) => file.path)).toEqual([EXAMPLES_YML_PATH])
    const examples = commit?.moreFiles?.[0]?.content ?? ''
    for (const comment of ['# Labelled by the team.', '# The scheduler PR.']) expect(examples).toContain(comment)
    expect(examplesOf(EXAMPLES_YML_PATH, examples)).toEqual([
      { pr: 12, expect: { datetime: 'match', 'small-prs': 'no-match' }, note: 'Drops tzinfo.' },
      { pr: 31, expect: { datetime: 'match' } },
      { pr: 40, expect: { 'small-prs': 'match' } },
    ])
    expect(commit).toMatchObject({ branch: answer.branch, pusher: SERVICE_ACCOUNT.login })
    expect(commit?.author).toEqual({ name: 'Alice Example', email: 'alice@noreply.forge.example' })
    expect(commit?.message).toContain('\nLabelled: PR #12, PR #40\n')
    // One call of the multi-file route: an update of the rules, an update of the examples, each with the sha read.
    const writes = h.fake.requests.filter((r) => r.method !== 'GET' && (r.template ?? '').startsWith(MULTI))
    expect(writes.map((w) => w.template)).toEqual([MULTI])
    const rulesSha = (await h.forge.getFileContent(repo('labelled'), RULES_YML_PATH, 'main'))?.sha
    const examplesSha = (await h.forge.getFileContent(repo('labelled'), EXAMPLES_YML_PATH, 'main'))?.sha
    expect(writes[0]?.body).toMatchObject({
      branch: 'main',
      new_branch: answer.branch,
      files: [
        { operation: 'update', path: RULES_YML_PATH, sha: rulesSha },
        { operation: 'update', path: EXAMPLES_YML_PATH, sha: examplesSha },
      ],
    })
    // The branch holds both files; main is untouched.
    const branchExamples = await h.forge.getFileContent(repo('labelled'), EXAMPLES_YML_PATH, answer.branch)
    expect(branchExamples?.content).toBe(examples)
    expect(await h.forge.getBranchHead(repo('labelled'), 'main')).toBe(mainBefore)
  })

  it('creates the examples file in a repo with none, and keeps a JSON one JSON', async () => {
    const { h, app } = await aWorld()
    expect((await app.handle(post('unlabelled', [NEW_RULE], [{ pr: 3, expect: { datetime: 'match' } }]))).status).toBe(
      201,
    )
    const [created] = h.fake.pushedCommits(repo('unlabelled'))
    expect(created?.moreFiles?.[0]?.path).toBe(EXAMPLES_YML_PATH)
    expect(examplesOf(EXAMPLES_YML_PATH, created?.moreFiles?.[0]?.content ?? '')).toEqual([
      { pr: 3, expect: { datetime: 'match' } },
    ])
    const create = h.fake.requests.find((r) => r.template === MULTI)
    expect(create?.body).toMatchObject({ files: [{ operation: 'update' }, { operation: 'create' }] })

    expect(
      (await app.handle(post('jsonlabels', [NEW_RULE], [{ pr: 4, expect: { datetime: 'no-match' } }]))).status,
    ).toBe(201)
    const [json] = h.fake.pushedCommits(repo('jsonlabels'))
    expect(json?.moreFiles?.[0]?.path).toBe(EXAMPLES_JSON_PATH)
    expect(examplesOf(EXAMPLES_JSON_PATH, json?.moreFiles?.[0]?.content ?? '')).toEqual([
      { pr: 4, expect: { datetime: 'no-match' } },
    ])
  })

  it('commits the labels alone when the rules are unchanged', async () => {
    const { h, app } = await aWorld()
    const response = await app.handle(post('labelled', [RULE], [{ pr: 31, expect: { datetime: 'no-match' } }]))
    expect(response.status).toBe(201)
    expect(Reflect.get(Object(await response.json()), 'path')).toBe(EXAMPLES_YML_PATH)
    const [commit] = h.fake.pushedCommits(repo('labelled'))
    expect(commit?.path).toBe(EXAMPLES_YML_PATH)
    expect(commit?.moreFiles).toBeUndefined()
    expect(commit?.message).toMatch(/^Label PR #31 for the review classifier\n/)
  })

  it('answers 400 for a bad label, naming it, and pushes nothing', async () => {
    const { h, app } = await aWorld()
    await expectProblem(
      await app.handle(post('labelled', [NEW_RULE], [{ pr: 12, expect: { datetime: 'maybe' } }])),
      400,
      /labels: examples\[0\] \(pr 12\): expect "datetime" must be "match", "no-match" or "not-applicable"/,
    )
    await expectProblem(
      await app.handle(post('labelled', [NEW_RULE], [{ pr: 0, expect: { datetime: 'match' } }])),
      400,
      /pr must be a PR number/,
    )
    expect(h.fake.pushedCommits(repo('labelled'))).toEqual([])
  })

  it('answers 422 when the merged file would break its rules, or the repo has both examples files, and pushes nothing', async () => {
    const { h, app } = await aWorld()
    const many = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`rule-${i}`, 'match']))
    await expectProblem(
      await app.handle(post('labelled', [NEW_RULE], [{ pr: 12, expect: many }])),
      422,
      /expect has 11 labels; at most 10 are allowed/,
    )
    await expectProblem(
      await app.handle(post('twofiles', [NEW_RULE], [{ pr: 1, expect: { datetime: 'match' } }])),
      422,
      /has both .*review-classifier\.examples\.yml and .*review-classifier\.examples\.json/,
    )
    expect(h.fake.pushedCommits(repo('labelled'))).toEqual([])
    expect(h.fake.pushedCommits(repo('twofiles'))).toEqual([])
  })

  it('answers 422 when the examples file is not a file the forge hands over, and pushes nothing', async () => {
    const { h, app } = await aWorld()
    await expectProblem(
      await app.handle(post('dirlabels', [NEW_RULE], [{ pr: 1, expect: { datetime: 'match' } }])),
      422,
      /review-classifier\.examples\.yml .*; fix the examples file first$/,
    )
    expect(h.fake.pushedCommits(repo('dirlabels'))).toEqual([])
  })

  it('documents labels in the OpenAPI document', async () => {
    const { app } = await aWorld()
    const document: unknown = JSON.parse(await (await app.handle(aRequest('/openapi/json'))).text())
    const schema = Object(Object(Object(document).components).schemas).OpenPrRequest
    expect(Object.keys(Object(schema).properties)).toEqual(['repo', 'classifications', 'labels'])
    expect(Object(schema).required).toEqual(['repo', 'classifications'])
  })
})
