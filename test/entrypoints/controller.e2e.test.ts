/**
 * A review request end to end: the service world (test/support/service-world.ts:
 * a fake Forgejo checked against the swagger file, a real nats-server, the
 * controller and the classifier as real processes), the classifier on the
 * scripted model: the test decides each answer, hang and hold. A signed
 * webhook goes in; a review comes out on the forge, and the run is in the
 * run store. The real runtimes' own reviews are review-runtimes.e2e.test.ts.
 */

import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { RULES_YML_PATH } from '../../core/repo-files/rules-file.ts'
import { SERVICE_TOKEN } from '../../core/settings/service-account.ts'
import { aNumberedPull, headOf, TWO_RULES_YAML } from '../support/builders.ts'
import { cleanUp } from '../support/cleanup.ts'
import type { FakeForgejo } from '../support/fake-forgejo.ts'
import { type Asked, type ModelReply, PASSING } from '../support/scripted-model.ts'
import { aSecretPr, leaksSecret } from '../support/secret-pr.ts'
import { type ServiceWorld, startServiceWorld } from '../support/service-world.ts'

setDefaultTimeout(120_000)

const REPO = { owner: 'acme', name: 'widgets' }
const NO_MATCH: ModelReply = { verdict: 'no-match', certainty: 95, reason: 'A timestamp has no zone.' }

/** PASSING, except for `pr`'s questions (about `rule`, when given), which get `change`. */
function exceptFor(pr: number, change: ModelReply, rule?: string) {
  return (asked: Asked) => (asked.pr === pr && (rule === undefined || asked.rule === rule) ? change : PASSING(asked))
}

/** PR 1 of acme/vault holds secrets in its title, a commit and its diff. */
const VAULT = { owner: 'acme', name: 'vault' }
const SECRET_PR = aSecretPr()

let world: ServiceWorld
let forge: FakeForgejo
let base = ''

const deliver = (pr: number, options?: Parameters<ServiceWorld['deliver']>[1]) => world.deliver(pr, options)
const reviewsOf = (pr: number, count = 1, repo = REPO.name) => world.reviewsOf(pr, { count, repo })
const runOf = (pr: number, outcome?: string, repo = REPO.name) =>
  world.runOf(pr, { repo, ...(outcome === undefined ? {} : { outcome }) })
const putSettings = (body: Record<string, unknown>) => world.putSettings(body)

/** The try-out's answer once it is no longer running. */
async function tryOutEnded<T extends { status: string } = { status: string }>(id: string): Promise<T> {
  const until = Date.now() + 60_000
  for (;;) {
    const result = (await (await fetch(`${base}/api/review-classifier/try-out/${id}`)).json()) as T
    if (result.status !== 'running' || Date.now() > until) return result
    await Bun.sleep(50)
  }
}

/** What admission decided for each delivery of a PR, from the controller's `review requested` log lines. */
function admissionsOf(pr: number): string[] {
  return world
    .logged('review requested')
    .filter((entry) => entry.pr === pr)
    .map((entry) => String(entry.admission))
}

beforeAll(async () => {
  world = await startServiceWorld({
    swarm: 'e2e',
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
    controllerEnv: { RUN_TIMEOUT_S: '30' },
  })
  base = world.base
  forge = world.forge
  // The first provisioning pass creates the account and stores its token.
  await world.controller.waitForLine('review classifier service account token minted')
  expect(existsSync(join(world.secretsDir, SERVICE_TOKEN.secret.path, SERVICE_TOKEN.secret.field))).toBe(true)
})

afterAll(async () => {
  await cleanUp(world === undefined ? null : () => world.stop())
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
    world.model.script(exceptFor(2, NO_MATCH, 'datetime'))
    await deliver(2)
    const [review] = await reviewsOf(2)
    world.model.script(PASSING)
    expect(review).toMatchObject({ state: 'REQUEST_CHANGES', commitId: headOf(2) })
    expect(review?.body).toContain('yes ❌')
    expect(review?.body).toContain('**Overall: request changes.**')
    expect((await runOf(2)).outcome).toBe('changes-requested')
  })

  it('posts a no-verdict comment when the classifications time out', async () => {
    // What the runtime answers at a question's deadline (the model runtime contract's timeout case).
    world.model.script(exceptFor(3, { failure: 'timeout', detail: 'no answer within 180000 ms' }))
    await deliver(3)
    const [review] = await reviewsOf(3)
    world.model.script(PASSING)
    expect(review).toMatchObject({ state: 'COMMENT', commitId: headOf(3) })
    expect(review?.body).toStartWith('**No verdict:**')
    expect(review?.body).toContain('request its review again')
    expect((await runOf(3)).outcome).toBe('no-verdict')
  })

  it('starts one run for duplicate deliveries of one PR and head', async () => {
    // The run's answers are held until both deliveries are answered, so the second meets the first
    // still running however the two are scheduled.
    const released = world.model.hold(() => true)
    const [first, second] = await Promise.all([deliver(4), deliver(4)]).finally(released)
    expect([first.status, second.status].sort()).toEqual([200, 202])
    // Admission decides before the delivery is answered and logs what it decided: one run, one duplicate.
    await world.waitFor(() => admissionsOf(4).length === 2, "both deliveries' admission lines")
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
    await world.waitFor(() => world.logged('review request delivery refused').length > 0, 'the refusal')
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
    const released = world.model.hold(() => true)
    const prs = Array.from({ length: 10 }, (_, i) => 11 + i)
    const answers = await Promise.all(prs.map((pr) => deliver(pr))).finally(released)
    expect(answers.every((r) => r.status === 202)).toBe(true)
    // Nine runs one after another, then the tenth's comment.
    const reviews = () => prs.flatMap((pr) => forge.reviews(REPO, pr))
    await world.waitFor(() => reviews().length >= 10, 'ten reviews', 60_000)
    expect(reviews()).toHaveLength(10)
    const turnedAway = reviews().filter((r) => r.body.includes('waiting places'))
    expect(turnedAway).toHaveLength(1)
    expect(turnedAway[0]).toMatchObject({ state: 'COMMENT' })
    expect(turnedAway[0]?.body).toStartWith('**No verdict:**')
    expect(reviews().filter((r) => r.state === 'APPROVED')).toHaveLength(9)
    await runOf(turnedAway[0]?.pr ?? 0, 'queue-full')
    expect((await putSettings({ max_concurrent_reviews: 2 })).status).toBe(200)
  })

  it('posts no verdict when no classifier is running, and reviews again once one is back', async () => {
    const classifier = world.classifier
    classifier?.kill('SIGTERM')
    expect(await classifier?.exited).toBe(0)
    await deliver(7)
    const [review] = await reviewsOf(7)
    expect(review).toMatchObject({ state: 'COMMENT' })
    expect(review?.body).toContain("the classifier isn't running")
    await world.startClassifier()
    await deliver(8)
    expect((await reviewsOf(8))[0]?.state).toBe('APPROVED')
  })

  it('notices a classifier killed with the run in hand by its silence, well before RUN_TIMEOUT_S', async () => {
    world.model.script(exceptFor(25, 'hang'))
    await deliver(25)
    // The classifier has taken the run once its first question reached the model.
    await world.waitFor(() => world.model.asked.some((asked) => asked.pr === 25), 'the first question of PR 25', 30_000)
    const classifier = world.classifier
    classifier?.kill('SIGKILL')
    await classifier?.exited
    const [review] = await reviewsOf(25)
    world.model.script(PASSING)
    expect(review).toMatchObject({ state: 'COMMENT', commitId: headOf(25) })
    // RUN_TIMEOUT_S is 30 here: its no-verdict would say "didn't answer within 30 s".
    expect(review?.body).toContain('the classifier stopped answering')
    expect((await runOf(25, 'no-verdict')).detail).toContain('it took the run, then sent nothing for 8 s')
    await world.startClassifier()
  })

  it("counts the answers' cost, and once the day's budget is spent refuses a review and a try-out without a model call", async () => {
    const spent = (await (await fetch(`${base}/api/review-classifier/spend`)).json()) as {
      spent_usd: number
      budget_usd: number | null
      by_repo: Record<string, number>
    }
    // The reviews above, at the cost each answer reported (claude's own total_cost_usd: review-runtimes.e2e).
    expect(spent.budget_usd).toBeNull()
    expect(spent.by_repo['acme/widgets']).toBeGreaterThan(0)
    expect((await putSettings({ budget: { daily_usd: spent.spent_usd / 2 } })).status).toBe(200)
    const asked = world.model.asked.length
    await deliver(26)
    const [review] = await reviewsOf(26)
    expect(review).toMatchObject({ state: 'COMMENT', commitId: headOf(26) })
    expect(review?.body).toStartWith('**No verdict:**')
    expect(review?.body).toContain('is spent')
    expect(review?.body).toContain('after 00:00 UTC')
    // Recorded once the review and its status are set.
    expect((await runOf(26, 'no-verdict')).detail).toContain('(UTC) is spent')
    // The PR and its rules are read first (a PR with no rule in scope would need no run): pending, then the error.
    expect(forge.statuses(REPO, headOf(26)).map((s) => s.state)).toEqual(['pending', 'error'])
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
    expect(world.model.asked.length).toBe(asked)
    expect((await putSettings({ budget: null })).status).toBe(200)
  })
})

describe('a PR that holds secrets', () => {
  /** What the model was asked about the vault's PR: each question's shared block and question, as text. */
  function sentForVault(): string[] {
    return world.model.asked
      .filter((asked) => asked.repo === 'acme/vault')
      .map((asked) => JSON.stringify([asked.context, asked.question]))
  }

  it('asks the model with placeholders only, and the review and the record count what was redacted', async () => {
    await deliver(1, { repo: VAULT.name })
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
    const run = await runOf(1, undefined, VAULT.name)
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
    const result = await tryOutEnded<{ status: string; redaction?: { redacted: number; findings: unknown[] } }>(id)
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
    expect(await runOf(1, 'done', VAULT.name)).toMatchObject({ id, trigger: 'try-out', redacted: SECRET_PR.distinct })
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
    const result = await tryOutEnded(id)
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
