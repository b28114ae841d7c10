/**
 * The comment commands' use case on the memory forge: what the end-to-end
 * test (test/entrypoints/comment-commands.e2e.test.ts) can't easily make
 * happen: a forge that fails the permission read, two waivers of one PR at
 * once, and the point where a waiver is counted.
 */
import { describe, expect, it } from 'bun:test'
import { createMemoryKv } from '../../../../../adapters/memory/kv.ts'
import { appError } from '../../../../../core/base/errors.ts'
import type { Waiver } from '../../../../../core/review/waiver.ts'
import type { RunRecord } from '../../../../../core/run/run-record.ts'
import { createKvPrLabelStore } from '../../../../../entrypoints/controller/usecases/repo-files/pr-labels.ts'
import { createCommentCommands } from '../../../../../entrypoints/controller/usecases/review/comment-commands.ts'
import { createWaivers } from '../../../../../entrypoints/controller/usecases/review/waivers.ts'
import { aRow, aRunRecord, aSeedPull, aSeedRepo } from '../../../../support/builders.ts'
import { createWorld, REPO, SERVICE_ACCOUNT_TOKEN } from '../../review-world.ts'

const HEAD = '4b7e2f0c9d1a3b5c7e9f1a2b3c4d5e6f7a8b9c0d'

function aWorld(options: { failPermission?: boolean } = {}) {
  const world = createWorld({
    seed: {
      users: [{ login: 'review-classifier' }, { login: 'alice' }, { login: 'maria' }],
      tokens: [{ login: 'review-classifier', name: 'swarm-review-classifier', token: SERVICE_ACCOUNT_TOKEN }],
      repos: [
        aSeedRepo({
          pulls: [aSeedPull({ number: 42, headSha: HEAD })],
          collaborators: { 'review-classifier': 'write', maria: 'write' },
        }),
      ],
    },
  })
  const forge = {
    ...world.forge,
    forAccount: world.forge.forAccount,
    async getRepoPermission(repo: typeof REPO, login: string) {
      if (options.failPermission === true) throw appError('unavailable', 'the forge is down')
      return world.forge.getRepoPermission(repo, login)
    },
  }
  const counted: Array<{ waiver: Waiver; record: RunRecord }> = []
  const waivers = createWaivers({
    ...world.deps,
    forge,
    runs: world.runs,
    reviewing: () => false,
    onWaiver: (waiver, record) => counted.push({ waiver, record }),
  })
  const commands = createCommentCommands({
    ...world.deps,
    forge,
    labels: createKvPrLabelStore(createMemoryKv()),
    waivers,
    runs: world.runs,
  })
  const say = (commenter: string, body: string) => {
    const commentId = world.forge.addComment(REPO, 42, commenter, body)
    commands.handle({ repo: REPO, pr: 42, commentId, body, commenter, author: 'alice' })
    return commentId
  }
  return { world, commands, counted, say }
}

const failingReview = aRunRecord({
  repo: 'acme/widgets',
  pr: 42,
  head_sha: HEAD,
  outcome: 'changes-requested',
  overall: 'request-changes',
  rows: [
    aRow({ name: 'datetime', verdict: 'no-match', fails: true }),
    aRow({ name: 'no-ads', polarity: 'negative', verdict: 'match', fails: true }),
  ],
})

describe('createCommentCommands', () => {
  it('refuses every command with one reply when the forge fails the permission read, and reacts with nothing', async () => {
    const { world, commands, say } = aWorld({ failPermission: true })
    await world.runs.record(failingReview)
    const id = say('maria', '@review-classifier waive datetime: parsed from logs, never made here')
    await commands.idle()
    const comments = world.forge.comments(REPO, 42)
    expect(comments.find((c) => c.id === id)?.reactions).toEqual([])
    const replies = comments.filter((c) => c.user === 'review-classifier')
    expect(replies).toHaveLength(1)
    expect(replies[0]?.body).toContain("the controller couldn't read the PR or your access")
    expect(world.forge.reviews(REPO, 42)).toEqual([])
  })

  it('applies two waivers of one PR one after the other, the second re-post carrying both, and counts each', async () => {
    const { world, commands, counted, say } = aWorld()
    await world.runs.record(failingReview)
    say('maria', '@review-classifier waive datetime: parsed from logs, never made here')
    say('maria', '@review-classifier waive no-ads: the word is the product name, not an ad')
    await commands.idle()
    const reviews = world.forge.reviews(REPO, 42)
    expect(reviews.map((r) => r.event)).toEqual(['REQUEST_CHANGES', 'APPROVED'])
    expect(reviews[1]?.body).toContain('**datetime** waived by')
    expect(reviews[1]?.body).toContain('**no-ads** waived by')
    expect(counted.map(({ waiver, record }) => [waiver.rule, record.trigger, record.overall])).toEqual([
      ['datetime', 'waiver', 'request-changes'],
      ['no-ads', 'waiver', 'approve'],
    ])
    expect(world.runs.records[0]?.waived?.map((w) => w.rule)).toEqual(['datetime', 'no-ads'])
  })

  it('replies to a commenter without write access at most three times an hour on a PR, the third saying so', async () => {
    const { world, commands, say } = aWorld()
    await world.runs.record(failingReview)
    const replies = () => world.forge.comments(REPO, 42).filter((c) => c.user === 'review-classifier')
    for (let n = 0; n < 5; n += 1) say('mallory', '@review-classifier waive datetime: I would like this gone, please')
    await commands.idle()
    expect(replies()).toHaveLength(3)
    expect(replies()[2]?.body).toContain(
      'More refused commands from &#64;\u200Bmallory on this PR get no reply for an hour.',
    )
    expect(world.forge.reviews(REPO, 42)).toEqual([])
    // An hour on, the allowance is back; a write collaborator's refusals are never held back.
    world.clock.advance(60 * 60 * 1000)
    say('mallory', '@review-classifier label datetime match')
    for (let n = 0; n < 4; n += 1) say('maria', '@review-classifier waive nosuchrule: a reason long enough')
    await commands.idle()
    expect(replies()).toHaveLength(3 + 1 + 4)
  })
})
