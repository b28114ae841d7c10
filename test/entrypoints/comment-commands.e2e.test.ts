/**
 * Waivers and labels from PR comments end to end (docs/behaviour.md,
 * "Waivers and labels"): the service world (a fake Forgejo checked against
 * the swagger file, a real nats-server, the controller and the scripted
 * classifier as processes), signed `pull_request_comment` deliveries to
 * `POST /webhook/forge`, and a hostile commenter who can change nothing.
 *
 * Comments of one PR are handled one at a time, in order: a test that
 * expects nothing from a comment sends a harmless label after it and waits
 * for that one's +1, so "nothing happened" is waited for, not slept on.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { RULES_YML_PATH } from '../../core/repo-files/rules-file.ts'
import { aNumberedPull, headOf, TWO_RULES_YAML } from '../support/builders.ts'
import { cleanUp } from '../support/cleanup.ts'
import { type CommentDeliveryOptions, signedCommentDelivery } from '../support/comment-webhook.ts'
import type { FakeForgejo } from '../support/fake-forgejo.ts'
import { type Asked, type ModelReply, PASSING } from '../support/scripted-model.ts'
import { type ServiceWorld, startServiceWorld, WEBHOOK_SECRET } from '../support/service-world.ts'
import { signedDelivery } from '../support/webhook.ts'

setDefaultTimeout(120_000)

const REPO = { owner: 'acme', name: 'widgets' }
const NO_ZONE: ModelReply = { verdict: 'no-match', certainty: 95, reason: 'A timestamp has no zone.' }
const WAIVE = '@review-classifier waive datetime: the timestamps here are parsed from logs, not made'

let world: ServiceWorld
let forge: FakeForgejo

/** `datetime` fails on every PR; `no-ads` passes. */
function datetimeFails(asked: Asked): ModelReply | Promise<ModelReply> {
  return asked.rule === 'datetime' ? NO_ZONE : PASSING(asked)
}

/** Writes the comment on the fake forge (so it has an id to react to) and delivers it, signed, to `/webhook/forge`. */
async function comment(
  pr: number,
  commenter: string,
  body: string,
  options: Partial<CommentDeliveryOptions> & { signature?: string; eventType?: string } = {},
): Promise<{ response: Response; id: number }> {
  const id = forge.addComment(REPO, pr, commenter, body)
  const { signature, eventType, ...payload } = options
  const request = signedCommentDelivery(
    {
      secret: WEBHOOK_SECRET,
      url: `${world.base}/webhook/forge`,
      ...(signature === undefined ? {} : { signature }),
      ...(eventType === undefined ? {} : { eventType }),
    },
    { pr, commenter, body, commentId: id, forgeUrl: forge.url, ...payload },
  )
  return { response: await fetch(request), id }
}

function reactionsOn(pr: number, id: number): string[] {
  const found = forge.comments(REPO, pr).find((c) => c.id === id)
  return (found?.reactions ?? []).map((r) => `${r.user} ${r.content}`)
}

/** The service account's comments on `pr`, but those the test wrote as it (`notIds`). */
function repliesOn(pr: number, notIds: readonly number[] = []): string[] {
  return forge
    .comments(REPO, pr)
    .filter((c) => c.user === 'review-classifier' && !notIds.includes(c.id))
    .map((c) => c.body)
}

async function plusOne(pr: number, id: number): Promise<void> {
  await world.waitFor(() => reactionsOn(pr, id).includes('review-classifier +1'), `the +1 on comment ${id}`)
}

async function replies(pr: number, count: number): Promise<string[]> {
  await world.waitFor(() => repliesOn(pr).length >= count, `${count} replies on PR ${pr}`)
  return repliesOn(pr)
}

/** A label by the write collaborator after everything sent before it, and its +1: the PR's earlier comments are done. */
async function settled(pr: number): Promise<void> {
  const { id } = await comment(pr, 'maria', '@review-classifier label no-ads no-match')
  await plusOne(pr, id)
}

/** The datetime rule's counts on the rule health route. */
async function datetimeHealth(): Promise<{ failed: number; waived: number }> {
  const response = await fetch(`${world.base}/api/review-classifier/rules/health?repo=acme/widgets`)
  expect(response.status).toBe(200)
  const body = (await response.json()) as { rules: { name: string; failed: number; waived: number }[] }
  const rule = body.rules.find((r) => r.name === 'datetime')
  if (rule === undefined) throw new Error('no datetime rule on the health route')
  return rule
}

async function reviewedWithFailure(pr: number): Promise<void> {
  expect((await world.deliver(pr)).status).toBe(202)
  const [review] = await world.reviewsOf(pr)
  expect(review?.state).toBe('REQUEST_CHANGES')
}

beforeAll(async () => {
  world = await startServiceWorld({
    swarm: 'e2e-comments',
    repos: [
      {
        ...REPO,
        files: { [RULES_YML_PATH]: TWO_RULES_YAML },
        pulls: Array.from({ length: 9 }, (_, i) => aNumberedPull(i + 1)),
        collaborators: { 'review-classifier': 'write', maria: 'write' },
      },
    ],
    users: [{ login: 'alice' }, { login: 'maria' }, { login: 'mallory' }],
  })
  forge = world.forge
  await world.controller.waitForLine('review classifier service account token minted')
  world.model.script(datetimeFails)
})

afterAll(async () => {
  await cleanUp(world === undefined ? null : () => world.stop())
})

describe('a waiver from a PR comment', () => {
  it('re-posts the review at once without asking the model: the rule waived, approve, the status following', async () => {
    await reviewedWithFailure(1)
    const asked = world.model.asked.length
    const { response, id } = await comment(1, 'maria', `Looked at it.\n${WAIVE}`)
    expect(response.status).toBe(202)
    const reviews = await world.reviewsOf(1, { count: 2 })
    const waived = reviews[1]
    expect(waived).toMatchObject({ user: 'review-classifier', state: 'APPROVED', commitId: headOf(1) })
    expect(waived?.body).toContain('| datetime | positive | no match | 95 | 80 | waived by &#64;\u200Bmaria |')
    expect(waived?.body).toContain('**Overall: approve.**')
    expect(waived?.body).toContain('> **datetime** waived by &#64;\u200Bmaria: the timestamps here are parsed')
    expect(waived?.body).toContain('```\n@review-classifier label datetime match\n```')
    await plusOne(1, id)
    // The +1 comes when the waiver is taken, which may be while the first review still sets its status;
    // the re-post logs once its own status is set.
    await world.controller.waitForLine('review classifier waiver applied')
    // No model call: the classifier was asked nothing more.
    expect(world.model.asked.length).toBe(asked)
    expect(forge.statuses(REPO, headOf(1)).at(-1)).toMatchObject({
      state: 'success',
      description: 'Approve: 1 failing rule waived, no other rule fails',
      targetUrl: waived?.htmlUrl,
    })
    const run = await world.runOf(1, { outcome: 'approved' })
    expect(run).toMatchObject({ trigger: 'waiver', head_sha: headOf(1), review_url: waived?.htmlUrl })
    expect((run as unknown as { waived: unknown }).waived).toEqual([
      {
        rule: 'datetime',
        by: 'maria',
        reason: 'the timestamps here are parsed from logs, not made',
        head_sha: headOf(1),
      },
    ])
    expect(world.logged('review classifier waiver applied')).toHaveLength(1)
    expect(repliesOn(1)).toEqual([])
    // The rule's health counts the waiver (written just after the re-post; each read a round trip).
    let health = await datetimeHealth()
    while (health.waived < 1) health = await datetimeHealth()
    expect(health).toMatchObject({ failed: 1, waived: 1 })
  })

  it('never carries to a new head: the later review counts the rule again and lists the waiver as a reminder', async () => {
    const newHead = 'ab'.repeat(20)
    forge.upsertPull(REPO, aNumberedPull(1, { headSha: newHead }))
    expect((await world.deliver(1, { headSha: newHead })).status).toBe(202)
    const reviews = await world.reviewsOf(1, { count: 3 })
    expect(reviews[2]).toMatchObject({ state: 'REQUEST_CHANGES', commitId: newHead })
    expect(reviews[2]?.body).toContain('| datetime | positive | no match | 95 | 80 | yes ❌ |')
    expect(reviews[2]?.body).toContain('**Earlier waivers on this PR**')
    expect(reviews[2]?.body).toContain(`- **datetime** on ${headOf(1).slice(0, 12)}, by &#64;\u200Bmaria`)
  })

  it("waits for the head's review still running, and applies once it finishes", async () => {
    const release = world.model.hold((asked) => asked.pr === 2)
    expect((await world.deliver(2)).status).toBe(202)
    await world.waitFor(() => world.model.asked.some((asked) => asked.pr === 2), 'the question of PR 2')
    const { id } = await comment(2, 'maria', WAIVE)
    await plusOne(2, id)
    expect(forge.reviews(REPO, 2)).toEqual([])
    release()
    const reviews = await world.reviewsOf(2, { count: 2 })
    expect(reviews.map((r) => r.state)).toEqual(['REQUEST_CHANGES', 'APPROVED'])
  })
})

describe('POST /webhook/forge', () => {
  it('takes a review request too, dispatched on the event type, and ignores other events', async () => {
    const sign = { secret: WEBHOOK_SECRET, url: `${world.base}/webhook/forge` }
    const response = await fetch(signedDelivery(sign, { pr: 9, headSha: headOf(9), forgeUrl: forge.url }))
    expect(response.status).toBe(202)
    const [review] = await world.reviewsOf(9)
    expect(review).toMatchObject({ state: 'REQUEST_CHANGES', commitId: headOf(9) })
    const push = await fetch(signedDelivery({ ...sign, eventType: 'push' }, { pr: 9, forgeUrl: forge.url }))
    expect(await push.json()).toEqual({
      status: 'ignored',
      reason: 'event type "push" is neither pull_request_review_request nor pull_request_comment',
    })
  })
})

describe('a hostile commenter', () => {
  it('without write access can neither waive nor label: one reply says why, nothing else changes', async () => {
    await reviewedWithFailure(3)
    const { id } = await comment(3, 'mallory', `${WAIVE}\n@review-classifier label datetime match`)
    const [reply] = await replies(3, 1)
    expect(reply).toBe(
      [
        'Not done: &#64;\u200Breview-classifier waive datetime: the timestamps here are parsed from logs, not made: only people with write access to the repo may waive.',
        "Not done: &#64;\u200Breview-classifier label datetime match: only the PR's author and people with write access to the repo may label.",
      ].join('\n'),
    )
    expect(reactionsOn(3, id)).toEqual([])
    expect(forge.reviews(REPO, 3)).toHaveLength(1)
    const labels = await (await fetch(`${world.base}/api/review-classifier/labels?repo=acme/widgets`)).json()
    expect((labels as { labels: { pr: number }[] }).labels.filter((l) => l.pr === 3)).toEqual([])
  })

  it("as the PR's author may label but not waive, unless waivers_by_author says so", async () => {
    await reviewedWithFailure(4)
    const { id } = await comment(4, 'alice', `${WAIVE}\n@review-classifier label datetime match`)
    await plusOne(4, id)
    const [reply] = await replies(4, 1)
    expect(reply).toContain("only people with write access to the repo may waive &#40;this forge doesn't let")
    const listed = await (await fetch(`${world.base}/api/review-classifier/labels?repo=acme/widgets`)).json()
    expect((listed as { labels: unknown[] }).labels).toContainEqual({
      pr: 4,
      rule: 'datetime',
      label: 'match',
      by: 'alice',
      at_unix: expect.any(Number),
    })
    expect(forge.reviews(REPO, 4)).toHaveLength(1)
    expect((await world.putSettings({ waivers_by_author: true })).status).toBe(200)
    try {
      await comment(4, 'alice', WAIVE)
      const reviews = await world.reviewsOf(4, { count: 2 })
      expect(reviews[1]?.state).toBe('APPROVED')
    } finally {
      expect((await world.putSettings({ waivers_by_author: false })).status).toBe(200)
    }
  })

  it('changes nothing with a forged signature, an issue comment, an edit, a deletion or its own account', async () => {
    await reviewedWithFailure(5)
    const forged = await comment(5, 'maria', WAIVE, { signature: 'f'.repeat(64) })
    expect(forged.response.status).toBe(401)
    const onIssue = await comment(5, 'maria', WAIVE, { isPull: false })
    expect(onIssue.response.status).toBe(200)
    for (const action of ['edited', 'deleted']) {
      const changed = await comment(5, 'maria', WAIVE, { action })
      expect(changed.response.status).toBe(200)
    }
    const own = await comment(5, 'review-classifier', WAIVE)
    expect(await own.response.json()).toEqual({ status: 'ignored', reason: 'a comment by review-classifier itself' })
    const midLine = await comment(5, 'maria', `as I said, ${WAIVE}`)
    expect(midLine.response.status).toBe(202)
    await settled(5)
    expect(forge.reviews(REPO, 5)).toHaveLength(1)
    expect(repliesOn(5, [own.id])).toEqual([])
    for (const sent of [forged, onIssue, own, midLine]) expect(reactionsOn(5, sent.id)).toEqual([])
  })

  it('is told, escaped, about an unknown rule, a short or long reason, and a comment with hundreds of commands', async () => {
    await reviewedWithFailure(6)
    const body = [
      '@review-classifier waive <img src=x onerror=alert(1)> [[x|https://evil.example]]: @everyone see #1 now please',
      '@review-classifier waive datetime: too short',
      `@review-classifier waive datetime: ${'x'.repeat(501)}`,
      ...Array.from({ length: 300 }, (_, i) => `@review-classifier label rule-${i} match`),
    ].join('\n')
    await comment(6, 'maria', body)
    const [reply] = await replies(6, 1)
    const lines = reply?.split('\n') ?? []
    expect(lines).toHaveLength(11)
    expect(lines[0]).toContain('&lt;img src=x onerror=alert&#40;1&#41;&gt;')
    expect(lines[0]).toContain('there is no rule by that name')
    expect(reply).not.toContain('<img')
    expect(reply).not.toContain('@everyone')
    expect(reply).not.toContain('[[')
    expect(lines[1]).toContain("a waiver's reason is 10 to 500 characters, and this one has 9")
    expect(lines[2]).toContain('and this one has 501')
    expect(lines[10]).toBe('Not read: 293 more command lines; a comment gives at most 10.')
    expect(forge.reviews(REPO, 6)).toHaveLength(1)
  })

  it('cannot waive a rule that passes, or one on a head with no review', async () => {
    await reviewedWithFailure(7)
    await comment(7, 'maria', '@review-classifier waive no-ads: it passed, so there is nothing to waive')
    const [reply] = await replies(7, 1)
    expect(reply).toContain("nothing to waive: the rule doesn't fail on")
    await comment(8, 'maria', WAIVE)
    const [none] = await replies(8, 1)
    expect(none).toContain('there is no review of this PR with a table to waive a rule of')
    expect(forge.reviews(REPO, 8)).toEqual([])
  })
})
