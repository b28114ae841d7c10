/**
 * A review request end to end: a fake Forgejo (checked against the swagger
 * file), a real nats-server, the controller and the classifier as real
 * processes, and the real `claude` binary against a fake Messages API. A
 * signed webhook goes in; a review comes out on the forge, and the run is in
 * the run store.
 */

import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { RULES_YML_PATH } from '../../core/rules-file.ts'
import { RUNTIME_KEY_SECRETS, SERVICE_TOKEN } from '../../core/service-account.ts'
import { aNumberedPull, headOf, TWO_RULES_YAML } from '../support/builders.ts'
import { cleanUp } from '../support/cleanup.ts'
import { type FakeAnthropic, startFakeAnthropic } from '../support/fake-anthropic.ts'
import { ADMIN_LOGIN, ADMIN_TOKEN } from '../support/fake-forgejo/harness.ts'
import { createFakeForgejo, type FakeForgejo, type FakeReview } from '../support/fake-forgejo.ts'
import { type NatsServer, startNatsServer } from '../support/nats-server.ts'
import { aSecretPr, leaksSecret } from '../support/secret-pr.ts'
import { makeSecretsDir, type ServiceProcess, startServiceProcess, stopStep } from '../support/service-process.ts'
import { waitFor } from '../support/waits.ts'
import { signedDelivery } from '../support/webhook.ts'

setDefaultTimeout(120_000)

const SECRET = 'e2e-webhook-secret-3b9f'
const API_KEY = 'sk-ant-e2e-controller-81cc'
const SWARM = 'e2e'
const REPO = { owner: 'acme', name: 'widgets' }
const MATCH = '{"verdict":"match","certainty":95,"reason":"The rule holds."}'
const NO_MATCH = '{"verdict":"no-match","certainty":95,"reason":"A timestamp has no zone."}'
const NO_ADS = '{"verdict":"no-match","certainty":97,"reason":"No commit advertises anything."}'

/** A clean PR: datetimes hold (positive rule matches), no ads (negative rule does not). */
function passing(body: unknown): { text: string } | null {
  return JSON.stringify(body).includes('Name: no-ads') ? { text: NO_ADS } : null
}

/** `passing`, except for the PR whose shared block names `#pr`, which gets `change`. */
function exceptFor(pr: number, change: { mode?: 'hang'; text?: string }, rule?: string) {
  return (body: unknown) => {
    const text = JSON.stringify(body)
    if (text.includes(`#${pr} in`) && (rule === undefined || text.includes(`Name: ${rule}`))) return change
    return passing(body)
  }
}

/** PR 1 of acme/vault holds secrets in its title, a commit and its diff. */
const VAULT = { owner: 'acme', name: 'vault' }
const SECRET_PR = aSecretPr()

let nats: NatsServer
let ai: FakeAnthropic
let forge: FakeForgejo
let secretsDir: string
let classifier: ServiceProcess
let controller: ServiceProcess
let base = ''

function startClassifier(): ServiceProcess {
  return startServiceProcess('classifier', {
    NATS_URL: nats.url,
    SWARM,
    SECRETS_DIR: secretsDir,
    ANTHROPIC_BASE_URL: ai.url,
    // Room for a slow spawn on a loaded machine; the timeout test waits this out twice.
    CLASSIFICATION_TIMEOUT_S: '8',
  })
}

async function deliver(
  pr: number,
  options: { signature?: string; repo?: string; headSha?: string } = {},
): Promise<Response> {
  const sign = {
    secret: SECRET,
    url: `${base}/webhook/forge/review-request`,
    ...(options.signature === undefined ? {} : { signature: options.signature }),
  }
  const payload = {
    owner: REPO.owner,
    repo: options.repo ?? REPO.name,
    pr,
    headSha: options.headSha ?? headOf(pr),
    forgeUrl: forge.url,
  }
  return fetch(signedDelivery(sign, payload))
}

async function reviewsOf(pr: number, count = 1, repo = REPO.name, timeoutMs = 60_000): Promise<FakeReview[]> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const reviews = forge.reviews({ owner: REPO.owner, name: repo }, pr)
    if (reviews.length >= count) return reviews
    if (Date.now() > until) throw new Error(`PR ${pr}: ${reviews.length} of ${count} reviews after ${timeoutMs} ms`)
    await Bun.sleep(100)
  }
}

/** Holds every answer of the fake provider until the returned release is called. */
function hold(): () => void {
  let release = () => {}
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  ai.setHold(() => released)
  return () => {
    ai.setHold(null)
    release()
  }
}

/** What admission decided for each delivery of a PR, from the controller's `review requested` log lines. */
function admissionsOf(pr: number): string[] {
  return controller.lines
    .filter((line) => line.includes('"review requested"'))
    .map((line): unknown => JSON.parse(line))
    .filter(
      (entry): entry is { pr: number; admission: string } =>
        typeof entry === 'object' && entry !== null && 'pr' in entry && entry.pr === pr && 'admission' in entry,
    )
    .map((entry) => entry.admission)
}

type RecordedRun = {
  id: string
  trigger: string
  pr: number
  repo: string
  outcome: string
  detail?: string
  head_sha?: string
  review_url?: string
  redacted?: number
}

async function runOf(pr: number, outcome?: string, repo = `${REPO.owner}/${REPO.name}`): Promise<RecordedRun> {
  const until = Date.now() + 30_000
  for (;;) {
    const response = await fetch(`${base}/api/review-classifier/runs`)
    if (response.ok) {
      const runs = (await response.json()) as RecordedRun[]
      const found = runs.find(
        (run) => run.pr === pr && run.repo === repo && (outcome === undefined || run.outcome === outcome),
      )
      if (found !== undefined) return found
    }
    if (Date.now() > until) throw new Error(`no recorded run for PR ${pr} (${outcome ?? 'any outcome'})`)
    await Bun.sleep(100)
  }
}

async function putSettings(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${base}/api/review-classifier/settings`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'Remote-User': 'admin' },
    body: JSON.stringify(body),
  })
}

beforeAll(async () => {
  nats = await startNatsServer()
  ai = startFakeAnthropic({ text: MATCH, responder: passing })
  forge = createFakeForgejo({
    seed: {
      users: [{ login: ADMIN_LOGIN, admin: true }, { login: 'alice' }],
      tokens: [{ login: ADMIN_LOGIN, name: 'controller', token: ADMIN_TOKEN, scopes: ['all'] }],
      repos: [
        {
          ...REPO,
          files: { [RULES_YML_PATH]: TWO_RULES_YAML },
          pulls: Array.from({ length: 30 }, (_, i) => aNumberedPull(i + 1)),
          collaborators: { 'review-classifier': 'write', alice: 'write' },
        },
        { owner: 'acme', name: 'bare', pulls: [aNumberedPull(1)], collaborators: { 'review-classifier': 'write' } },
        {
          ...VAULT,
          files: { [RULES_YML_PATH]: TWO_RULES_YAML },
          pulls: [
            aNumberedPull(1, {
              title: SECRET_PR.title,
              commits: SECRET_PR.commits.map((commit) => commit.message),
              diff: SECRET_PR.diff,
            }),
          ],
          collaborators: { 'review-classifier': 'write' },
        },
      ],
    },
  })
  secretsDir = makeSecretsDir({
    'swarm/services/swarm-controller/forge/token': { token: ADMIN_TOKEN },
    [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: API_KEY },
  })
  classifier = startClassifier()
  controller = startServiceProcess('controller', {
    PORT: '0',
    NATS_URL: nats.url,
    SWARM,
    SECRETS_DIR: secretsDir,
    FORGE_URL: forge.url,
    FORGE_WEBHOOK_SECRET: SECRET,
    RUN_TIMEOUT_S: '30',
  })
  await classifier.waitForLine('review classifier listening')
  const listening = JSON.parse(await controller.waitForLine('controller listening')) as { port: number }
  base = `http://127.0.0.1:${listening.port}`
  // The first provisioning pass creates the account and stores its token.
  await controller.waitForLine('review classifier service account token minted')
  expect(existsSync(join(secretsDir, SERVICE_TOKEN.secret.path, SERVICE_TOKEN.secret.field))).toBe(true)
})

afterAll(async () => {
  await cleanUp(
    stopStep(controller),
    stopStep(classifier),
    ai === undefined ? null : () => ai.stop(),
    forge === undefined ? null : () => forge.stop(),
    nats === undefined ? null : () => nats.cleanup(),
    secretsDir === undefined ? null : () => rmSync(secretsDir, { recursive: true, force: true }),
  )
})

describe('a review request end to end', () => {
  it('is ready once the queue, the forge and the secret store answer', async () => {
    const response = await fetch(`${base}/readyz`)
    expect(response.status).toBe(200)
  })

  it('approves a PR that passes every rule, on the commit it read, as the service account', async () => {
    const response = await deliver(1)
    expect(response.status).toBe(202)
    const [review] = await reviewsOf(1)
    expect(review).toMatchObject({ user: 'review-classifier', state: 'APPROVED', commitId: headOf(1), official: true })
    expect(review?.body).toContain('| datetime | positive | match | 95 | 80 | yes ✅ |')
    expect(review?.body).toContain('| no-ads | negative | no match | 97 | 90 | yes ✅ |')
    expect(review?.body).toContain('**Overall: approve.**')
    const run = await runOf(1)
    expect(run).toMatchObject({ trigger: 'review', outcome: 'approved', head_sha: headOf(1) })
    expect(run.review_url).toBe(review?.htmlUrl)
    // The handoff: pending, then success on the commit read, linking to the review.
    expect(forge.statuses(REPO, headOf(1)).map((s) => [s.state, s.context, s.creator, s.targetUrl])).toEqual([
      ['pending', 'review-classifier', 'review-classifier', `${forge.url}/acme/widgets/pulls/1`],
      ['success', 'review-classifier', 'review-classifier', review?.htmlUrl ?? 'no review'],
    ])
  })

  it('requests changes when a counted rule fails', async () => {
    ai.setResponder(exceptFor(2, { text: NO_MATCH }, 'datetime'))
    await deliver(2)
    const [review] = await reviewsOf(2)
    ai.setResponder(passing)
    expect(review).toMatchObject({ state: 'REQUEST_CHANGES', commitId: headOf(2) })
    expect(review?.body).toContain('yes ❌')
    expect(review?.body).toContain('**Overall: request changes.**')
    expect((await runOf(2)).outcome).toBe('changes-requested')
  })

  it('posts a no-verdict comment when the classifications time out', async () => {
    ai.setResponder(exceptFor(3, { mode: 'hang' }))
    await deliver(3)
    const [review] = await reviewsOf(3)
    ai.setResponder(passing)
    expect(review).toMatchObject({ state: 'COMMENT', commitId: headOf(3) })
    expect(review?.body).toStartWith('**No verdict:**')
    expect(review?.body).toContain('request its review again')
    expect((await runOf(3)).outcome).toBe('no-verdict')
  })

  it('starts one run for duplicate deliveries of one PR and head', async () => {
    // The run's answers are held until both deliveries are answered, so the second meets the first
    // still running however the two are scheduled.
    const released = hold()
    const [first, second] = await Promise.all([deliver(4), deliver(4)]).finally(released)
    expect([first.status, second.status].sort()).toEqual([200, 202])
    // Admission decides before the delivery is answered and logs what it decided: one run, one duplicate.
    await waitFor(() => admissionsOf(4).length === 2, "both deliveries' admission lines")
    expect(admissionsOf(4).sort()).toEqual(['duplicate', 'started'])
    await reviewsOf(4)
    const run = await runOf(4)
    expect(forge.reviews(REPO, 4)).toHaveLength(1)
    expect(run.head_sha).toBe(headOf(4))
  })

  it('refuses a forged signature with 401 and starts nothing', async () => {
    const response = await deliver(5, { signature: 'f'.repeat(64) })
    expect(response.status).toBe(401)
    expect(response.headers.get('content-type')).toContain('application/problem+json')
    // Refused before admission: nothing was taken in, so nothing can be posted later.
    await waitFor(
      () => controller.lines.some((line) => line.includes('review request delivery refused')),
      'the refusal',
    )
    expect(admissionsOf(5)).toEqual([])
    expect(forge.reviews(REPO, 5)).toHaveLength(0)
  })

  it('comments that a repo has no rules file', async () => {
    await deliver(1, { repo: 'bare' })
    const [review] = await reviewsOf(1, 1, 'bare')
    expect(review?.state).toBe('COMMENT')
    expect(review?.body).toContain(RULES_YML_PATH)
  })

  it('records post-failed when the forge fails the post', async () => {
    forge.failNext('POST', '/repos/{owner}/{repo}/pulls/{index}/reviews', { status: 500 })
    await deliver(6)
    const run = await runOf(6, 'post-failed')
    expect(run.detail).toBeDefined()
    expect(forge.reviews(REPO, 6)).toHaveLength(0)
  })

  it('with concurrency 1, runs one, queues eight and turns the tenth away with a comment', async () => {
    expect((await putSettings({ max_concurrent_reviews: 1 })).status).toBe(200)
    // Every answer is held until all ten deliveries are answered: the first run is still running
    // when the tenth is admitted, however the machine schedules them.
    const released = hold()
    const prs = Array.from({ length: 10 }, (_, i) => 11 + i)
    const answers = await Promise.all(prs.map((pr) => deliver(pr))).finally(released)
    expect(answers.every((r) => r.status === 202)).toBe(true)
    // Nine runs one after another, two claude processes each: over a minute on a loaded machine.
    const until = Date.now() + 240_000
    let reviews: FakeReview[] = []
    while (Date.now() < until) {
      reviews = prs.flatMap((pr) => forge.reviews(REPO, pr))
      if (reviews.length >= 10) break
      await Bun.sleep(200)
    }
    expect(reviews).toHaveLength(10)
    const turnedAway = reviews.filter((r) => r.body.includes('waiting places'))
    expect(turnedAway).toHaveLength(1)
    expect(turnedAway[0]).toMatchObject({ state: 'COMMENT' })
    expect(turnedAway[0]?.body).toStartWith('**No verdict:**')
    expect(reviews.filter((r) => r.state === 'APPROVED')).toHaveLength(9)
    await runOf(turnedAway[0]?.pr ?? 0, 'queue-full')
    expect((await putSettings({ max_concurrent_reviews: 2 })).status).toBe(200)
  }, 300_000)

  it('posts no verdict when no classifier is running, and reviews again once one is back', async () => {
    classifier.kill('SIGTERM')
    expect(await classifier.exited).toBe(0)
    await deliver(7)
    const [review] = await reviewsOf(7)
    expect(review).toMatchObject({ state: 'COMMENT' })
    expect(review?.body).toContain("the classifier isn't running")
    classifier = startClassifier()
    await classifier.waitForLine('review classifier listening')
    await deliver(8)
    expect((await reviewsOf(8))[0]?.state).toBe('APPROVED')
  })

  it('notices a classifier killed with the run in hand by its silence, well before RUN_TIMEOUT_S', async () => {
    ai.setResponder(exceptFor(25, { mode: 'hang' }))
    const asked = ai.requests().length
    await deliver(25)
    // The classifier has taken the run once its first question reached the provider.
    await waitFor(
      () =>
        ai
          .requests()
          .slice(asked)
          .some((request) => JSON.stringify(request.body).includes('#25 in')),
      'the first question of PR 25 at the provider',
      30_000,
    )
    classifier.kill('SIGKILL')
    await classifier.exited
    const [review] = await reviewsOf(25)
    ai.setResponder(passing)
    expect(review).toMatchObject({ state: 'COMMENT', commitId: headOf(25) })
    // RUN_TIMEOUT_S is 30 here: its no-verdict would say "didn't answer within 30 s".
    expect(review?.body).toContain('the classifier stopped answering')
    expect((await runOf(25, 'no-verdict')).detail).toContain('it took the run, then sent nothing for 8 s')
    classifier = startClassifier()
    await classifier.waitForLine('review classifier listening')
  })

  it("counts claude's cost, and once the day's budget is spent refuses a review and a try-out without a model call", async () => {
    const spent = (await (await fetch(`${base}/api/review-classifier/spend`)).json()) as {
      spent_usd: number
      budget_usd: number | null
      by_repo: Record<string, number>
    }
    // The reviews above, at claude's own total_cost_usd for what the fake provider reported.
    expect(spent.budget_usd).toBeNull()
    expect(spent.by_repo['acme/widgets']).toBeGreaterThan(0)
    expect((await putSettings({ budget: { daily_usd: spent.spent_usd / 2 } })).status).toBe(200)
    const asked = ai.requests().length
    await deliver(26)
    const [review] = await reviewsOf(26)
    expect(review).toMatchObject({ state: 'COMMENT', commitId: headOf(26) })
    expect(review?.body).toStartWith('**No verdict:**')
    expect(review?.body).toContain('is spent')
    expect(review?.body).toContain('after 00:00 UTC')
    expect(forge.statuses(REPO, headOf(26)).map((s) => s.state)).toEqual(['error'])
    expect((await runOf(26, 'no-verdict')).detail).toContain('(UTC) is spent')
    const tryOut = await fetch(`${base}/api/review-classifier/try-out`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Remote-User': 'alice' },
      body: JSON.stringify({
        repo: 'acme/widgets',
        pr: 26,
        classifications: [
          { name: 'datetime', description: 'All datetimes carry a zone.', threshold: 80, polarity: 'positive' },
        ],
      }),
    })
    expect(tryOut.status).toBe(429)
    expect(((await tryOut.json()) as { detail: string }).detail).toContain('(UTC) is spent')
    expect(ai.requests().length).toBe(asked)
    expect((await putSettings({ budget: null })).status).toBe(200)
  })
})

describe('a PR that holds secrets', () => {
  /** What the fake provider received for the vault's PR: every request body naming it, as text. */
  function sentForVault(): string[] {
    return ai
      .requests()
      .map((request) => JSON.stringify(request.body))
      .filter((text) => text.includes('#1 in acme/vault'))
  }

  it('sends the provider placeholders only, and the review and the record count what was redacted', async () => {
    await deliver(1, { repo: VAULT.name })
    // Approved unless a loaded machine let a question time out: either review says what was redacted.
    const [review] = await reviewsOf(1, 1, VAULT.name)
    const sent = sentForVault()
    expect(sent.length).toBeGreaterThanOrEqual(2)
    for (const text of sent) {
      expect(leaksSecret(SECRET_PR, text)).toBe(false)
      expect(text).toContain('[redacted private-key #4]')
    }
    const body = review?.body ?? ''
    expect(leaksSecret(SECRET_PR, body)).toBe(false)
    expect(body).toContain('**Secrets redacted:** 4 secrets redacted')
    expect(body).toContain('- private-key &#35;\u200B4: deploy/key.pem, line 1')
    expect(body).toContain('- aws-access-token &#35;\u200B1: the title')
    expect(body.indexOf('**Secrets redacted:**')).toBeGreaterThan(body.indexOf('**Overall: '))
    const run = await runOf(1, undefined, 'acme/vault')
    expect(run).toMatchObject({ redacted: SECRET_PR.distinct })
    expect(leaksSecret(SECRET_PR, JSON.stringify(run))).toBe(false)
  })

  it('says it in a try-out, run after run of a repeat', async () => {
    const post = await fetch(`${base}/api/review-classifier/try-out`, {
      method: 'POST',
      headers: { 'Remote-User': 'alice', 'content-type': 'application/json' },
      body: JSON.stringify({
        repo: 'acme/vault',
        pr: 1,
        repeat: 2,
        classifications: [
          { name: 'datetime', description: 'Datetimes are aware.', threshold: 70, polarity: 'positive' },
        ],
      }),
    })
    expect(post.status).toBe(202)
    const { id } = (await post.json()) as { id: string }
    type Result = { status: string; redaction?: { redacted: number; findings: unknown[] } }
    let result: Result | null = null
    for (let i = 0; i < 300; i += 1) {
      result = (await (await fetch(`${base}/api/review-classifier/try-out/${id}`)).json()) as Result
      if (result?.status !== 'running') break
      await Bun.sleep(100)
    }
    expect(result?.status).toBe('done')
    expect(result?.redaction?.redacted).toBe(SECRET_PR.distinct)
    expect(result?.redaction?.findings).toContainEqual({
      kind: 'private-key',
      n: 4,
      part: 'diff',
      path: 'deploy/key.pem',
      line: 1,
      side: 'new',
    })
    expect(leaksSecret(SECRET_PR, JSON.stringify(result))).toBe(false)
    expect(await runOf(1, 'done', 'acme/vault')).toMatchObject({ id, trigger: 'try-out', redacted: SECRET_PR.distinct })
    for (const text of sentForVault()) expect(leaksSecret(SECRET_PR, text)).toBe(false)
  })
})

describe('writing a rule: try it out, then open a PR', () => {
  const admin = { 'Remote-User': 'alice', 'content-type': 'application/json' }
  const edited = {
    name: 'datetime',
    description: 'Every new datetime is timezone-aware.',
    threshold: 70,
    polarity: 'positive',
  }
  const added = {
    name: 'changelog',
    description: 'The PR adds a line to CHANGELOG.md.',
    threshold: 60,
    polarity: 'positive',
  }

  it('offers the repos with open PRs, their PRs and the repo rules to start from', async () => {
    const repos = (await (await fetch(`${base}/api/pulls/repos`)).json()) as string[]
    expect(repos).toContain('acme/widgets')
    const pulls = (await (await fetch(`${base}/api/pulls?repo=acme/widgets`)).json()) as {
      number: number
      head_sha: string
    }[]
    expect(pulls[0]).toMatchObject({ number: 30, head_sha: headOf(30) })
    const rules = await fetch(`${base}/api/review-classifier/rules?repo=acme/widgets`)
    expect(rules.status).toBe(200)
    expect(await rules.json()).toMatchObject({
      path: RULES_YML_PATH,
      branch: 'main',
      classifications: [{ name: 'datetime' }, { name: 'no-ads' }],
    })
    expect((await fetch(`${base}/api/review-classifier/rules?repo=acme/bare`)).status).toBe(404)
  })

  it('runs a try-out against a real PR without writing anything to the forge', async () => {
    const post = await fetch(`${base}/api/review-classifier/try-out`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ repo: 'acme/widgets', pr: 9, classifications: [edited] }),
    })
    expect(post.status).toBe(202)
    const { id } = (await post.json()) as { id: string }
    type TryOutResult = { status: string; rows: { name: string; verdict: string }[]; overall: string; head_sha: string }
    let result: TryOutResult | null = null
    for (let i = 0; i < 300; i += 1) {
      result = (await (await fetch(`${base}/api/review-classifier/try-out/${id}`)).json()) as TryOutResult
      if (result.status !== 'running') break
      await Bun.sleep(100)
    }
    expect(result).toMatchObject({
      status: 'done',
      overall: 'approve',
      head_sha: headOf(9),
      rows: [{ name: 'datetime', verdict: 'match' }],
    })
    expect(forge.reviews(REPO, 9)).toHaveLength(0)
    expect(await runOf(9)).toMatchObject({ id, trigger: 'try-out', outcome: 'done' })
  })

  it('opens a PR: a branch with one commit merging the rules by name, authored by the admin', async () => {
    const response = await fetch(`${base}/api/review-classifier/open-pr`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ repo: 'acme/widgets', classifications: [edited, added] }),
    })
    expect(response.status).toBe(201)
    const answer = (await response.json()) as { branch: string; path: string; compare_url: string }
    expect(answer.branch).toMatch(/^review-classifier\/alice-[0-9a-f]{8}$/)
    expect(answer.path).toBe(RULES_YML_PATH)
    expect(answer.compare_url).toBe(`${forge.url}/acme/widgets/compare/main...${answer.branch}`)
    const [commit] = forge.pushedCommits(REPO)
    expect(commit).toMatchObject({
      branch: answer.branch,
      from: 'main',
      path: RULES_YML_PATH,
      pusher: 'review-classifier',
    })
    expect(commit?.author.email).toBe(`alice@noreply.${new URL(forge.url).hostname}`)
    expect(commit?.content).toContain('    description: A commit message advertises an AI model.')
    expect(commit?.content).toContain('Every new datetime is timezone-aware.')
    expect(commit?.content).toContain('name: changelog')
    // The same classifications again: nothing to change.
    const again = await fetch(`${base}/api/review-classifier/open-pr`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        repo: 'acme/widgets',
        classifications: [
          {
            ...added,
            name: 'no-ads',
            description: 'A commit message advertises an AI model.',
            threshold: 90,
            polarity: 'negative',
          },
        ],
      }),
    })
    expect(again.status).toBe(422)
  })
})
