/**
 * "Open a PR" through the controller app, on the real Forgejo adapter against
 * the fake forge: the service account `review-classifier` is a collaborator
 * with write on most repos, its token sits in a memory secret store, and
 * every push is checked as the fake stored it.
 */

import { afterEach, describe, expect, it, setDefaultTimeout } from 'bun:test'
import type { ForgeSeed, SeedRepo } from '../../../../adapters/memory/forge.ts'
import { createSequenceIds } from '../../../../adapters/memory/ids.ts'
import { createRecordingLogger, type RecordingLogger } from '../../../../adapters/memory/logger.ts'
import { createMemorySecretStore, type MemorySecretStore } from '../../../../adapters/memory/secret-store.ts'
import { commitMessage, parseOpenPrBody } from '../../../../core/repo-files/open-pr.ts'
import { parseRulesFile, RULES_JSON_PATH, RULES_YML_PATH } from '../../../../core/repo-files/rules-file.ts'
import { SERVICE_ACCOUNT, SERVICE_TOKEN } from '../../../../core/settings/service-account.ts'
import type { Classification, RepoRef } from '../../../../core/wire/types.ts'
import { createControllerApp } from '../../../../entrypoints/controller/http/app.ts'
import { OPEN_PR_PATH, openPrRoutes } from '../../../../entrypoints/controller/http/routes/open-pr.ts'
import { createOpenPr, type OpenPrForge } from '../../../../entrypoints/controller/usecases/repo-files/open-pr.ts'
import type { ServiceAccountGate } from '../../../../entrypoints/controller/usecases/settings/service-token.ts'
import type { Ids } from '../../../../ports/ids.ts'
import type { SecretStore } from '../../../../ports/secret-store.ts'
import { aClassification } from '../../../support/builders.ts'
import { type ForgejoHarness, startForgejoHarness } from '../../../support/fake-forgejo/harness.ts'
import { aRequest, expectProblem as expectProblemAnswer } from './http-support.ts'

setDefaultTimeout(60_000)

const SVC_TOKEN = '7c3e9a1b5d7f9e1c3a5b7d9f1e3c5a7b9d1f3e5a'
const DOMAIN = 'forge.example'
const CONTENTS = '/repos/{owner}/{repo}/contents/{filepath}'

const repo = (name: string): RepoRef => ({ owner: 'acme', name })
const WIDGETS = repo('widgets')
const GADGETS = repo('gadgets')
const BLANK = repo('blank')

/** A commented YAML rules file, built from pieces so a test can look for each one's bytes. */
const YAML_HEAD = '# Rules for acme/widgets. Ask #platform before changing a threshold.\nclassifications:\n'
const YAML_DATETIME =
  '  # Naive datetimes broke billing twice.\n  - name: datetime\n    description: All datetimes carry time zone information.\n    polarity: positive   # wanted\n    threshold: 80\n'
const YAML_NO_ADS =
  '  - name: no-ads\n    description: >-\n      A commit message contains a co-authored-by line or other\n      advertising for an AI model.\n    polarity: negative\n    threshold: 90\n'
const YAML_DOCS =
  '\n  # Loosely held.\n  - name: docs-updated\n    description: The PR updates the docs where needed.\n    polarity: positive\n    threshold: 60\n'
const YAML_TEXT = YAML_HEAD + YAML_DATETIME + YAML_NO_ADS + YAML_DOCS

const BAO_FIRST: Classification = {
  name: 'bao-first',
  description: 'Any added secret reaches its reader through the bao store.',
  threshold: 70,
  polarity: 'positive',
}
const JSON_NO_ADS: Classification = {
  name: 'no-ads',
  description: 'No advertising for an AI model.',
  threshold: 90,
  polarity: 'negative',
}
const JSON_RULES = [BAO_FIRST, JSON_NO_ADS]
// Odd spacing and key order, so a re-serialised file is visibly new.
const JSON_TEXT = `{"classifications": [${JSON_RULES.map((c) => JSON.stringify({ polarity: c.polarity, name: c.name, threshold: c.threshold, description: c.description })).join(', ')}]}`

/** The rule this file adds to a repo's rules: the shared builder's, named and worded for a new one. */
function aNewRule(overrides: Partial<Classification> = {}): Classification {
  return aClassification({
    name: 'small-prs',
    description: 'The PR changes fewer than 400 lines.',
    threshold: 75,
    ...overrides,
  })
}

function ten(prefix: string): Classification[] {
  return Array.from({ length: 10 }, (_, i) => aNewRule({ name: `${prefix}-${i}` }))
}

function yamlOf(entries: Classification[]): string {
  return `classifications:\n${entries.map((c) => `  - name: ${c.name}\n    description: ${c.description}\n    polarity: ${c.polarity}\n    threshold: ${c.threshold}\n`).join('')}`
}

function seedRepo(name: string, overrides: Partial<SeedRepo> = {}): SeedRepo {
  return {
    owner: 'acme',
    name,
    files: { 'README.md': `# ${name}\n` },
    collaborators: { [SERVICE_ACCOUNT.login]: 'write' },
    ...overrides,
  }
}

function aSeed(): ForgeSeed {
  return {
    users: [
      { login: 'alice', fullName: 'Alice Example', email: 'alice@corp.example' },
      { login: 'bob', email: 'bob@corp.example' },
      { login: SERVICE_ACCOUNT.login, fullName: SERVICE_ACCOUNT.fullName, email: SERVICE_ACCOUNT.email },
    ],
    tokens: [
      { login: SERVICE_ACCOUNT.login, name: SERVICE_TOKEN.name, token: SVC_TOKEN, scopes: ['write:repository'] },
    ],
    repos: [
      seedRepo('widgets', { files: { [RULES_YML_PATH]: YAML_TEXT, 'README.md': '# widgets\n' } }),
      seedRepo('gadgets', { files: { [RULES_JSON_PATH]: JSON_TEXT } }),
      seedRepo('blank'),
      seedRepo('trunked', {
        defaultBranch: 'trunk',
        files: { [RULES_YML_PATH]: yamlOf([aNewRule({ name: 'old' })]) },
      }),
      seedRepo('readonly', { collaborators: { [SERVICE_ACCOUNT.login]: 'read' } }),
      seedRepo('hidden', { private: true, collaborators: {} }),
      seedRepo('empty', { empty: true }),
      seedRepo('both', { files: { [RULES_YML_PATH]: yamlOf([aNewRule()]), [RULES_JSON_PATH]: JSON_TEXT } }),
      seedRepo('broken', {
        files: {
          [RULES_YML_PATH]:
            'classifications:\n  - name: x\n    description: y\n    polarity: sideways\n    threshold: 80\n',
        },
      }),
      seedRepo('full', { files: { [RULES_YML_PATH]: yamlOf(ten('rule')) } }),
      seedRepo('crowded', { branches: { 'review-classifier/alice-00000001': { 'README.md': 'taken\n' } } }),
      seedRepo('jammed', {
        branches: {
          'review-classifier/alice-00000001': { 'README.md': 'taken\n' },
          'review-classifier/alice-00000002': { 'README.md': 'taken\n' },
        },
      }),
    ],
  }
}

type World = {
  harness: ForgejoHarness
  secrets: MemorySecretStore
  logger: RecordingLogger
  tokenReads: () => number
  app: ReturnType<typeof createControllerApp>
}

let harness: ForgejoHarness | null = null
afterEach(async () => {
  await harness?.cleanup()
  harness = null
})

type WorldOptions = {
  /** Runs inside the service account's `commitFile`, before the real push: the forge moving between read and push. */
  beforePush?: (h: ForgejoHarness) => void
  noForge?: boolean
  noControllerToken?: boolean
  token?: string | null
  ids?: Ids
  /** The adapter's per-request deadline; two minutes unless a test needs a hang to end sooner. */
  timeoutMs?: number
  /** What the provisioner says of the service account; none: nothing. */
  serviceAccount?: ServiceAccountGate
}

async function aWorld(options: WorldOptions = {}): Promise<World> {
  const h = await startForgejoHarness(
    aSeed(),
    {},
    {
      ...(options.noControllerToken === true ? { token: async () => null } : {}),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    },
  )
  harness = h
  const secrets = createMemorySecretStore()
  const token = options.token === undefined ? SVC_TOKEN : options.token
  if (token !== null) await secrets.write(SERVICE_TOKEN.secret.path, SERVICE_TOKEN.secret.field, token)
  let reads = 0
  const counted: SecretStore = {
    read: async (path, field) => {
      reads += 1
      return secrets.read(path, field)
    },
    write: (path, field, value) => secrets.write(path, field, value),
  }
  const { beforePush } = options
  const api: OpenPrForge['api'] = {
    ...h.forge,
    forAccount(accountToken) {
      const writer = h.forge.forAccount(accountToken)
      if (beforePush === undefined) return writer
      return {
        ...writer,
        async commitFile(target, commit) {
          beforePush(h)
          return writer.commitFile(target, commit)
        },
      }
    },
  }
  const forge: OpenPrForge | null = options.noForge === true ? null : { api, webUrl: h.fake.url, noreplyDomain: DOMAIN }
  const logger = createRecordingLogger()
  const app = createControllerApp({
    logger,
    routes: [
      openPrRoutes({
        openPr:
          forge === null
            ? null
            : createOpenPr({
                forge,
                secrets: counted,
                ids: options.ids ?? createSequenceIds(),
                logger,
                ...(options.serviceAccount === undefined ? {} : { serviceAccount: options.serviceAccount }),
              }),
      }),
    ],
  })
  return { harness: h, secrets, logger, tokenReads: () => reads, app }
}

function openPr(body: unknown, user: string | null = 'alice'): Request {
  return aRequest(OPEN_PR_PATH, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(user === null ? {} : { 'remote-user': user }) },
  })
}

function bodyFor(target: RepoRef, classifications: Classification[] = [aNewRule()]): unknown {
  return { repo: `${target.owner}/${target.name}`, classifications }
}

/** Every problem here must leave the token out. */
function expectProblem(
  response: Response,
  status: number,
  detail?: string | RegExp,
  secrets: readonly string[] = [],
): Promise<string> {
  return expectProblemAnswer(response, status, detail, [SVC_TOKEN, ...secrets])
}

type Answer = { branch: string; path: string; compare_url: string }

async function expectCreated(response: Response): Promise<Answer> {
  const text = await response.text()
  expect({ status: response.status, text }).toMatchObject({ status: 201 })
  expect(text).not.toContain(SVC_TOKEN)
  const body: unknown = JSON.parse(text)
  expect(body).toEqual({ branch: expect.any(String), path: expect.any(String), compare_url: expect.any(String) })
  const field = (key: keyof Answer): string =>
    typeof body === 'object' && body !== null && key in body ? String(Reflect.get(body, key)) : ''
  return { branch: field('branch'), path: field('path'), compare_url: field('compare_url') }
}

async function head(h: ForgejoHarness, target: RepoRef, branch: string): Promise<string | null> {
  return h.forge.getBranchHead(target, branch)
}

const BRANCH_SHAPE = /^review-classifier\/alice-[0-9a-f]{8}$/
const AUTHOR = { name: 'Alice Example', email: 'alice@noreply.forge.example' }
const COMMITTER = { name: SERVICE_ACCOUNT.fullName, email: 'review-classifier@noreply.forge.example' }

describe('POST /api/review-classifier/open-pr: 201', () => {
  it('creates the YAML rules file in a repo with none, on a new branch with one commit by the service account, authored by you', async () => {
    const { harness: h, app, tokenReads, logger } = await aWorld()
    const mainBefore = await head(h, BLANK, 'main')
    const answer = await expectCreated(await app.handle(openPr(bodyFor(BLANK))))

    expect(answer.branch).toMatch(BRANCH_SHAPE)
    expect(answer.branch).toBe('review-classifier/alice-00000001')
    expect(answer.path).toBe(RULES_YML_PATH)
    expect(answer.compare_url).toBe(`${h.fake.url}/acme/blank/compare/main...review-classifier/alice-00000001`)

    const pushed = h.fake.pushedCommits(BLANK)
    expect(pushed).toHaveLength(1)
    const [commit] = pushed
    expect(commit).toMatchObject({
      branch: answer.branch,
      from: 'main',
      path: RULES_YML_PATH,
      author: AUTHOR,
      committer: COMMITTER,
      pusher: SERVICE_ACCOUNT.login,
    })
    expect(parseRulesFile(RULES_YML_PATH, commit?.content ?? '')).toEqual({ ok: true, value: [aNewRule()] })
    expect(commit?.message).toMatch(
      /^Add review classifier rules: small-prs\n\nWritten by Alice Example \(alice\) on the swarm UI's try-out page/,
    )
    // A new file goes up with POST and no sha.
    const write = h.fake.requests.find((r) => r.template === CONTENTS && r.method !== 'GET')
    expect(write).toMatchObject({ method: 'POST', login: SERVICE_ACCOUNT.login })
    expect(write?.body).not.toHaveProperty('sha')

    // The branch holds the commit; the default branch is untouched.
    expect(await head(h, BLANK, answer.branch)).toBe(commit?.sha ?? '')
    expect(await head(h, BLANK, 'main')).toBe(mainBefore)
    expect(await h.forge.getFileContent(BLANK, RULES_YML_PATH, 'main')).toBeNull()
    expect(tokenReads()).toBe(1)
    expect(logger.withMessage('review classifier rules branch pushed')).toHaveLength(1)
  })

  it('merges into a commented YAML file by name, keeping the untouched entries byte for byte', async () => {
    const { harness: h, app } = await aWorld()
    const mainBefore = await head(h, WIDGETS, 'main')
    const sha = (await h.forge.getFileContent(WIDGETS, RULES_YML_PATH, 'main'))?.sha
    const changed = aNewRule({
      name: 'no-ads',
      description: 'No advertising for any AI model anywhere.',
      threshold: 95,
      polarity: 'negative',
    })
    const added = aNewRule()
    const answer = await expectCreated(await app.handle(openPr(bodyFor(WIDGETS, [changed, added]))))
    expect(answer.path).toBe(RULES_YML_PATH)

    const [commit] = h.fake.pushedCommits(WIDGETS)
    const content = commit?.content ?? ''
    expect(content.startsWith(YAML_HEAD + YAML_DATETIME)).toBe(true)
    expect(content).toContain(YAML_DOCS)
    expect(content).not.toContain(YAML_NO_ADS)
    expect(content.indexOf(YAML_DOCS)).toBeLessThan(content.indexOf('name: small-prs'))
    const parsed = parseRulesFile(RULES_YML_PATH, content)
    expect(parsed.ok && parsed.value.map((c) => c.name)).toEqual(['datetime', 'no-ads', 'docs-updated', 'small-prs'])
    expect(parsed.ok && parsed.value[1]).toEqual(changed)

    expect(commit?.message).toMatch(/^Add and update review classifier rules: small-prs, no-ads\n/)
    expect(commit?.message).toContain('\nAdded: small-prs\nUpdated: no-ads\n')
    expect(commit).toMatchObject({ author: AUTHOR, committer: COMMITTER })
    // An update names the blob sha it read, with PUT.
    const write = h.fake.requests.find((r) => r.template === CONTENTS && r.method !== 'GET')
    expect(write).toMatchObject({ method: 'PUT', body: { sha, branch: 'main', new_branch: answer.branch } })
    expect(await head(h, WIDGETS, 'main')).toBe(mainBefore)
    expect((await h.forge.getFileContent(WIDGETS, RULES_YML_PATH, 'main'))?.content).toBe(YAML_TEXT)
  })

  it('writes a JSON rules file out again, merged, and takes the login as the name of an author with none', async () => {
    const { harness: h, app } = await aWorld()
    const changed: Classification = { ...BAO_FIRST, threshold: 85 }
    const answer = await expectCreated(await app.handle(openPr(bodyFor(GADGETS, [changed]), 'bob')))
    expect(answer.path).toBe(RULES_JSON_PATH)
    expect(answer.branch).toMatch(/^review-classifier\/bob-[0-9a-f]{8}$/)
    const [commit] = h.fake.pushedCommits(GADGETS)
    const expected = {
      classifications: [changed, JSON_NO_ADS].map((c) => ({
        name: c.name,
        description: c.description,
        threshold: c.threshold,
        polarity: c.polarity,
      })),
    }
    expect(commit?.content).toBe(`${JSON.stringify(expected, null, 2)}\n`)
    expect(commit?.author).toEqual({ name: 'bob', email: 'bob@noreply.forge.example' })
    expect(commit?.message).toMatch(/^Update review classifier rules: bao-first\n\nWritten by bob on/)
    expect((await h.forge.getFileContent(GADGETS, RULES_JSON_PATH, 'main'))?.content).toBe(JSON_TEXT)
  })

  it('finds the forge account by the Remote-User whatever its case, and uses the login as the forge spells it', async () => {
    const { harness: h, app } = await aWorld()
    const answer = await expectCreated(await app.handle(openPr(bodyFor(BLANK), 'ALICE')))
    expect(answer.branch).toBe('review-classifier/alice-00000001')
    expect(h.fake.pushedCommits(BLANK)[0]?.author).toEqual(AUTHOR)
  })

  it('branches from a default branch that is not main, and the compare page compares against it', async () => {
    const { harness: h, app } = await aWorld()
    const trunked = repo('trunked')
    const answer = await expectCreated(await app.handle(openPr(bodyFor(trunked))))
    expect(answer.compare_url).toBe(`${h.fake.url}/acme/trunked/compare/trunk...${answer.branch}`)
    expect(h.fake.pushedCommits(trunked)[0]).toMatchObject({ from: 'trunk', branch: answer.branch })
  })

  it('tries new digits once when the branch name is taken, reading the token again for the second push', async () => {
    const { harness: h, app, tokenReads } = await aWorld()
    const crowded = repo('crowded')
    const answer = await expectCreated(await app.handle(openPr(bodyFor(crowded))))
    expect(answer.branch).toBe('review-classifier/alice-00000002')
    expect(h.fake.pushedCommits(crowded).map((c) => c.branch)).toEqual([answer.branch])
    expect(tokenReads()).toBe(2)
  })
})

describe('POST /api/review-classifier/open-pr: refusals', () => {
  it('answers 401 without the Remote-User header, before reading the body or calling the forge', async () => {
    const { harness: h, app } = await aWorld()
    await expectProblem(await app.handle(openPr(bodyFor(BLANK), null)), 401, /Remote-User/)
    await expectProblem(await app.handle(openPr('not json', '  ')), 401)
    expect(h.fake.requests).toEqual([])
  })

  it.each([
    ['a body that is not JSON', '{"repo": ', /isn't JSON/],
    ['a repo that is not owner/name', { repo: 'acme', classifications: [aNewRule()] }, /repo must be owner\/name/],
    ['a missing repo', { classifications: [aNewRule()] }, /missing field "repo"/],
    [
      'classifications breaking a rule',
      { repo: 'acme/blank', classifications: [aNewRule(), aNewRule({ threshold: 101 })] },
      /already used|threshold/,
    ],
    ['no classifications', { repo: 'acme/blank', classifications: [] }, /empty/],
    ['an array body', [], /JSON object/],
    [
      'a name with a zero-width space, which would go into the commit message',
      { repo: 'acme/blank', classifications: [aNewRule({ name: 'datetime\u200b' })] },
      /^the body: classifications\[0\] \(name "datetime\\u200b"\): name holds U\+200B \(a format character\) at character 9; a name is one line of visible characters/,
    ],
    [
      'a name of 200,000 characters',
      { repo: 'acme/blank', classifications: [aNewRule({ name: 'n'.repeat(200_000) })] },
      /name is 200000 characters long; at most 64 are allowed$/,
    ],
  ])('answers 400 for %s, without calling the forge', async (_, body, detail) => {
    const { harness: h, app } = await aWorld()
    await expectProblem(await app.handle(openPr(body)), 400, detail)
    expect(h.fake.requests).toEqual([])
  })

  it('answers 403 when the service account may only read the repo, naming the fix', async () => {
    const { harness: h, app } = await aWorld()
    const readonly = repo('readonly')
    await expectProblem(
      await app.handle(openPr(bodyFor(readonly))),
      403,
      /^the service account needs write access to acme\/readonly: add review-classifier as a collaborator with write$/,
    )
    expect(h.fake.pushedCommits(readonly)).toEqual([])
  })

  it('answers 403 for a private repo the service account is no collaborator of (the forge hides it behind a 404)', async () => {
    const { harness: h, app } = await aWorld()
    await expectProblem(await app.handle(openPr(bodyFor(repo('hidden')))), 403, /needs write access to acme\/hidden/)
    expect(h.fake.responses.some((r) => r.template === CONTENTS && r.method === 'POST' && r.status === 404)).toBe(true)
  })

  it.each([
    ['a repo the forge does not know', 'nope', /no repo acme\/nope/],
    ['an empty repo', 'empty', /empty/],
  ])('answers 404 for %s', async (_, name, detail) => {
    const { harness: h, app } = await aWorld()
    await expectProblem(await app.handle(openPr(bodyFor(repo(name)))), 404, detail)
    expect(h.fake.requests.some((r) => r.template === CONTENTS && r.method !== 'GET')).toBe(false)
  })

  it('answers 409 when the forge has no account named like you, before reading the repo', async () => {
    const { harness: h, app } = await aWorld()
    await expectProblem(
      await app.handle(openPr(bodyFor(BLANK), 'carol')),
      409,
      /no forge account named like you \(carol\) yet; log in to the forge once/,
    )
    expect(h.fake.requests.map((r) => r.path)).toEqual(['/users/carol'])
  })

  it('answers 409 when the rules file changes on the default branch between the read and the push', async () => {
    const moved = `${YAML_TEXT}  - name: late\n    description: Added by someone else meanwhile.\n    polarity: positive\n    threshold: 50\n`
    const { harness: h, app } = await aWorld({
      beforePush: (fake) => fake.fake.changeFile(WIDGETS, 'main', RULES_YML_PATH, moved),
    })
    await expectProblem(
      await app.handle(openPr(bodyFor(WIDGETS))),
      409,
      /^the rules file \.hyperhive\/review-classifier\.yml changed on main during the push; load the rules again$/,
    )
    // Forgejo's own answer: the sha named no longer matches.
    expect(h.fake.responses.some((r) => r.template === CONTENTS && r.method === 'PUT' && r.status === 409)).toBe(true)
    expect(h.fake.pushedCommits(WIDGETS)).toEqual([])
    expect((await h.forge.getFileContent(WIDGETS, RULES_YML_PATH, 'main'))?.content).toBe(moved)
  })

  it('answers 409 when a rules file appears on the default branch of a repo that had none during the push', async () => {
    const { harness: h, app } = await aWorld({
      beforePush: (fake) => fake.fake.changeFile(BLANK, 'main', RULES_YML_PATH, yamlOf([aNewRule({ name: 'theirs' })])),
    })
    await expectProblem(await app.handle(openPr(bodyFor(BLANK))), 409, /changed on main during the push/)
    expect(h.fake.pushedCommits(BLANK)).toEqual([])
  })

  it('answers 409 when the branch name is taken twice', async () => {
    const { harness: h, app, tokenReads } = await aWorld()
    const jammed = repo('jammed')
    await expectProblem(
      await app.handle(openPr(bodyFor(jammed))),
      409,
      /review-classifier\/alice-00000002 already exists/,
    )
    expect(h.fake.pushedCommits(jammed)).toEqual([])
    expect(tokenReads()).toBe(2)
  })

  it.each([
    ['both rules files', 'both', /both exist/],
    [
      'a rules file that breaks a rule',
      'broken',
      /\.hyperhive\/review-classifier\.yml.*polarity must be "positive" or "negative"/,
    ],
  ])('answers 422 for a default branch holding %s, naming the file and the problem', async (_, name, detail) => {
    const { harness: h, app } = await aWorld()
    await expectProblem(await app.handle(openPr(bodyFor(repo(name)))), 422, detail)
    expect(h.fake.pushedCommits(repo(name))).toEqual([])
  })

  it('answers 422 when the file already holds every classification unchanged', async () => {
    const { harness: h, app } = await aWorld()
    const same: Classification = { ...JSON_NO_ADS }
    await expectProblem(
      await app.handle(openPr(bodyFor(GADGETS, [same]))),
      422,
      /already holds every one of these classifications unchanged/,
    )
    expect(h.fake.pushedCommits(GADGETS)).toEqual([])
  })

  it('answers 422 for a merge that makes eleven classifications', async () => {
    const { harness: h, app } = await aWorld()
    await expectProblem(await app.handle(openPr(bodyFor(repo('full')))), 422, /has 11 classifications; at most 10/)
    expect(h.fake.pushedCommits(repo('full'))).toEqual([])
  })

  it("answers 503 when the service account's token isn't minted yet, and pushes nothing", async () => {
    const { harness: h, app } = await aWorld({ token: null })
    await expectProblem(await app.handle(openPr(bodyFor(BLANK))), 503, /the service account's token isn't minted yet/)
    expect(h.fake.pushedCommits(BLANK)).toEqual([])
  })

  it('answers 503 saying when to try again while the token is being minted, and starts or joins the mint', async () => {
    let mints = 0
    const serviceAccount: ServiceAccountGate = {
      whyStopped: async () => null,
      // A mint that never ends: the push doesn't wait for it.
      mintToken: () => {
        mints += 1
        return new Promise<string | null>(() => undefined)
      },
    }
    const { harness: h, app } = await aWorld({ token: null, serviceAccount })
    await expectProblem(
      await app.handle(openPr(bodyFor(BLANK))),
      503,
      /^the service account's token is being minted; try again in a minute \(the forge has up to 2 minutes to answer the mint\)$/,
    )
    expect(mints).toBe(1)
    expect(h.fake.pushedCommits(BLANK)).toEqual([])
  })

  it('answers 503 when an admin stopped the service account, and reads no token and pushes nothing', async () => {
    const reason = 'the forge account review-classifier is deactivated by an admin, so nothing is posted as it'
    const {
      harness: h,
      app,
      tokenReads,
    } = await aWorld({
      serviceAccount: { whyStopped: async () => reason, mintToken: async () => reason },
    })
    await expectProblem(await app.handle(openPr(bodyFor(BLANK))), 503, /is deactivated by an admin/)
    expect(tokenReads()).toBe(0)
    expect(h.fake.pushedCommits(BLANK)).toEqual([])
  })

  it('answers 503 when the secret store fails', async () => {
    const { harness: h, app, secrets } = await aWorld()
    secrets.forbid(SERVICE_TOKEN.secret.path)
    await expectProblem(await app.handle(openPr(bodyFor(BLANK))), 503, /token can't be read from the secret store/)
    expect(h.fake.pushedCommits(BLANK)).toEqual([])
  })

  it('answers 503 when this host has no forge', async () => {
    const { app } = await aWorld({ noForge: true })
    await expectProblem(await app.handle(openPr(bodyFor(BLANK))), 503, /no forge: set FORGE_URL/)
  })

  it('answers 503 when this host has no forge token of its own yet', async () => {
    const { harness: h, app } = await aWorld({ noControllerToken: true })
    await expectProblem(await app.handle(openPr(bodyFor(BLANK))), 503, /no forge token yet/)
    expect(h.fake.requests).toEqual([])
  })

  it('answers 503 when the forge is down', async () => {
    const { harness: h, app } = await aWorld()
    await h.fake.stop()
    await expectProblem(await app.handle(openPr(bodyFor(BLANK))), 503, /can't be reached/)
  })

  it('answers 503 when the forge fails the push', async () => {
    const { harness: h, app } = await aWorld()
    h.fake.failNext('POST', CONTENTS, { status: 503 })
    await expectProblem(await app.handle(openPr(bodyFor(BLANK))), 503, /couldn't take the push/)
    expect(h.fake.pushedCommits(BLANK)).toEqual([])
  })

  it('answers 503 when the forge does not answer the push in time', async () => {
    const { harness: h, app } = await aWorld({ timeoutMs: 500 })
    h.fake.failNext('POST', CONTENTS, 'hang')
    await expectProblem(await app.handle(openPr(bodyFor(BLANK))), 503, /couldn't take the push/)
    expect(h.fake.pushedCommits(BLANK)).toEqual([])
  })

  it('answers 503 when the forge refuses the service account token', async () => {
    const { harness: h, app } = await aWorld({ token: 'f'.repeat(40) })
    await expectProblem(await app.handle(openPr(bodyFor(BLANK))), 503, /refuses the service account's token/, [
      'f'.repeat(40),
    ])
    expect(h.fake.pushedCommits(BLANK)).toEqual([])
  })
})

describe('parseOpenPrBody', () => {
  it('takes the repo and checked classifications', () => {
    expect(parseOpenPrBody(JSON.stringify(bodyFor(WIDGETS)))).toEqual({
      ok: true,
      value: { repo: WIDGETS, classifications: [aNewRule()] },
    })
  })

  it.each(['acme/', '/widgets', 'acme/widgets/extra', 'acme/wid gets', 7])('refuses the repo %j', (value) => {
    expect(parseOpenPrBody(JSON.stringify({ repo: value, classifications: [aNewRule()] })).ok).toBe(false)
  })
})

describe('commitMessage', () => {
  it('lists the names in the subject while it fits, and counts them when it would not', () => {
    const author = { login: 'alice', name: 'Alice Example' }
    expect(commitMessage(['a'], [], author).split('\n')[0]).toBe('Add review classifier rules: a')
    const long = ten('a-rather-long-classification-name')
    const subject =
      commitMessage(
        long.map((c) => c.name),
        [],
        author,
      ).split('\n')[0] ?? ''
    expect(subject).toBe('Add 10 review classifier rules')
  })

  it('keeps a name on one line', () => {
    expect(commitMessage(['two\nlines'], [], { login: 'alice', name: 'alice' })).toStartWith(
      'Add review classifier rules: two lines\n\nWritten by alice on',
    )
  })
})
