/**
 * Hostile content from a forge user's own repo, against the controller as a
 * real process (test/support/service-world.ts: a fake Forgejo, a real
 * nats-server, no classifier: nothing here gets as far as a run). A rules file of 40,000 keys, a 900 KB bad
 * value and a name with a bidi override each get a bounded answer, from the
 * rules route and from a review, and the controller keeps answering
 * `/healthz` meanwhile.
 */

import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { RULES_MAX_ITEMS, RULES_YML_PATH } from '../../core/repo-files/rules-file.ts'
import { renderNoVerdictBody } from '../../core/review/review-body.ts'
import { MODEL_MAX_CHARS } from '../../core/settings/settings.ts'
import { aNumberedPull } from '../support/builders.ts'
import { cleanUp } from '../support/cleanup.ts'
import type { FakeForgejo } from '../support/fake-forgejo.ts'
import { type ListedRun, type ServiceWorld, startServiceWorld } from '../support/service-world.ts'

setDefaultTimeout(90_000)

/** The bound the issue asks of the 40,000-key file; the controller answers in tens of milliseconds. */
const ANSWER_WITHIN_MS = 2_000

const ITEMS_DETAIL = `the file holds more than ${RULES_MAX_ITEMS} keys and list entries, so it isn't read`

function rulesWith(polarity: string, name = 'no-ads'): string {
  return `classifications:\n  - name: "${name}"\n    description: A commit advertises a model.\n    threshold: 90\n    polarity: ${polarity}\n`
}

const REPOS = {
  // 40,000 keys in 580 KB: reading it with the YAML library's own duplicate-key check took ~20 s.
  huge: `classifications:\n${Array.from({ length: 40_000 }, (_, i) => `  key${i}: v\n`).join('')}`,
  bigvalue: rulesWith('x'.repeat(900_000)),
  bidi: rulesWith('negative', 'no-ads\\u202e'),
}
type RepoName = keyof typeof REPOS

const HEAD = 'ab'.repeat(20)

let world: ServiceWorld
let forge: FakeForgejo
let base = ''

async function deliver(repo: RepoName): Promise<Response> {
  return world.deliver(1, { repo, headSha: HEAD })
}

/** A request and how long its answer took, body read. */
async function timed(url: string): Promise<{ status: number; body: unknown; ms: number }> {
  const started = performance.now()
  const response = await fetch(url)
  const body: unknown = await response.json()
  return { status: response.status, body, ms: performance.now() - started }
}

function detailOf(body: unknown): string {
  return typeof body === 'object' && body !== null && 'detail' in body ? String(body.detail) : ''
}

/** The review's run as the run store lists it, once recorded. */
function runOf(repo: RepoName): Promise<ListedRun> {
  return world.runOf(1, { repo })
}

beforeAll(async () => {
  world = await startServiceWorld({
    swarm: 'forge-input',
    classifier: null,
    repos: Object.entries(REPOS).map(([name, rules]) => ({
      owner: 'acme',
      name,
      files: { [RULES_YML_PATH]: rules },
      pulls: [aNumberedPull(1, { headSha: HEAD })],
      collaborators: { 'review-classifier': 'write', alice: 'write' },
    })),
    controllerEnv: {},
  })
  forge = world.forge
  base = world.base
  await world.controller.waitForLine('review classifier service account token minted')
})

afterAll(async () => {
  await cleanUp(world === undefined ? null : () => world.stop())
})

describe('a rules file of 40,000 keys', () => {
  it('is answered 422 naming the limit within 2 s, and /healthz answers while it is read', async () => {
    const contentsRead = () =>
      forge.requests.filter((request) => request.path.startsWith('/repos/acme/huge/contents/')).length
    const before = contentsRead()
    const rules = timed(`${base}/api/review-classifier/rules?repo=acme/huge`)
    // Once the forge has been asked for the file, the controller is about to read it.
    await world.waitFor(() => contentsRead() > before, 'the controller asking the forge for the rules file')
    const health = await timed(`${base}/healthz`)
    const refused = await rules
    expect(refused.status).toBe(422)
    expect(detailOf(refused.body)).toStartWith(
      `the rules file ${RULES_YML_PATH} doesn't load: ${RULES_YML_PATH}: line ${RULES_MAX_ITEMS + 1}, column 9: ${ITEMS_DETAIL}`,
    )
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } })
    expect(refused.ms).toBeLessThan(ANSWER_WITHIN_MS)
    expect(health.ms).toBeLessThan(ANSWER_WITHIN_MS)
  })

  it('makes a review post a no-verdict comment naming the limit, and records it', async () => {
    expect((await deliver('huge')).status).toBe(202)
    const run = await runOf('huge')
    expect(run).toMatchObject({ outcome: 'no-verdict', head_sha: HEAD })
    expect(run.detail).toContain(ITEMS_DETAIL)
    const [comment] = forge.reviews({ owner: 'acme', name: 'huge' }, 1)
    expect(comment).toMatchObject({ state: 'COMMENT', commitId: HEAD })
    expect(comment?.body).toBe(renderNoVerdictBody(run.detail ?? '', null))
  })
})

describe('a 900 KB bad value', () => {
  it('is quoted in a few hundred characters by the rules route, the review and the run record', async () => {
    const refused = await timed(`${base}/api/review-classifier/rules?repo=acme/bigvalue`)
    expect(refused.status).toBe(422)
    const detail = detailOf(refused.body)
    expect(detail).toContain(`polarity must be "positive" or "negative", got "${'x'.repeat(99)}…" (a string)`)
    expect(detail.length).toBeLessThan(400)

    expect((await deliver('bigvalue')).status).toBe(202)
    const run = await runOf('bigvalue')
    expect(run.detail).toBe(detail)
    const [comment] = forge.reviews({ owner: 'acme', name: 'bigvalue' }, 1)
    expect(comment?.body.length).toBeLessThan(1_000)
  })
})

describe('a name with a bidi override', () => {
  it('is refused naming the entry, the name shown escaped', async () => {
    const refused = await timed(`${base}/api/review-classifier/rules?repo=acme/bidi`)
    expect(refused.status).toBe(422)
    expect(detailOf(refused.body)).toBe(
      `the rules file ${RULES_YML_PATH} doesn't load: ${RULES_YML_PATH}: classifications[0] (name "no-ads\\u202e"): ` +
        'name holds U+202E (a format character) at character 7; a name is one line of visible characters, with no control or format characters',
    )
    expect(detailOf(refused.body)).not.toContain('\u202e')
  })
})

describe('a model name of 300 KB', () => {
  it('is refused with 400 naming the field, and not stored', async () => {
    const put = await fetch(`${base}/api/review-classifier/settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'Remote-User': 'admin' },
      body: JSON.stringify({ model: 'm'.repeat(300_000) }),
    })
    expect(put.status).toBe(400)
    expect(detailOf(await put.json())).toBe(`model is 300000 characters long; at most ${MODEL_MAX_CHARS} are allowed`)
    const settings = (await (await fetch(`${base}/api/review-classifier/settings`)).json()) as { model: string }
    expect(settings.model).toBe('haiku')
  })
})
