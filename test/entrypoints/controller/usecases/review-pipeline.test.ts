import { describe, expect, it } from 'bun:test'
import { appError } from '../../../../core/errors.ts'
import { renderNoVerdictBody } from '../../../../core/review-body.ts'
import type { RunReply, RunRequest } from '../../../../core/types.ts'
import { createReviewPipeline } from '../../../../entrypoints/controller/usecases/review-pipeline.ts'
import { QUEUE_FULL_REASON } from '../../../../entrypoints/controller/usecases/review-run.ts'
import { aSeedPull, aSeedRepo } from '../../../builders.ts'
import {
  approveAll,
  createWorld,
  gate,
  REPO,
  requestFor,
  SERVICE_ACCOUNT_TOKEN,
  until,
  type World,
} from '../review-world.ts'

const PRS = Array.from({ length: 10 }, (_, i) => i + 1)

function worldWithPulls(limit: number): World {
  return createWorld({
    settings: { max_concurrent_reviews: limit },
    seed: {
      users: [{ login: 'review-classifier' }, { login: 'alice' }],
      tokens: [{ login: 'review-classifier', name: 'swarm-review-classifier', token: SERVICE_ACCOUNT_TOKEN }],
      repos: [aSeedRepo({ pulls: PRS.map((number) => aSeedPull({ number })) })],
    },
  })
}

/** A classifier that holds each run until the test releases its PR, and counts how many it holds at once. */
function heldClassifier() {
  const gates = new Map(PRS.map((pr) => [pr, gate()]))
  let holding = 0
  let maxHolding = 0
  return {
    script: async (request: RunRequest): Promise<RunReply> => {
      holding += 1
      maxHolding = Math.max(maxHolding, holding)
      await gates.get(request.pr)?.wait
      holding -= 1
      return approveAll(request)
    },
    release: (pr: number) => gates.get(pr)?.open(),
    holding: () => holding,
    maxHolding: () => maxHolding,
    resetMax: () => {
      maxHolding = holding
    },
  }
}

describe('createReviewPipeline', () => {
  it('runs a submitted review in the background and posts its verdict', async () => {
    const world = createWorld()
    await world.serve(approveAll)
    const pipeline = createReviewPipeline(world.deps)
    expect(pipeline.submit(await requestFor(world))).toBe('started')
    await pipeline.idle()
    expect(world.forge.reviews(REPO, 42).map((r) => r.event)).toEqual(['APPROVED'])
    expect(world.runs.records.map((r) => r.outcome)).toEqual(['approved'])
    expect(pipeline.counts()).toMatchObject({ running: 0, waiting: 0 })
  })

  it('starts nothing, and records nothing, for a PR and head already running', async () => {
    const world = createWorld()
    const held = gate()
    await world.serve(async (request) => {
      await held.wait
      return approveAll(request)
    })
    const pipeline = createReviewPipeline(world.deps)
    const request = await requestFor(world)
    pipeline.submit(request)
    await until(() => world.requests.length === 1, 'the run request')
    // A redelivery carries a new delivery id but the same repo, PR and head.
    expect(pipeline.submit({ ...request, requester: 'bob' })).toBe('duplicate')
    held.open()
    await pipeline.idle()
    expect(world.requests).toHaveLength(1)
    expect(world.runs.records).toHaveLength(1)
    expect(world.forge.reviews(REPO, 42)).toHaveLength(1)

    // Once it finished, asking again runs again.
    expect(pipeline.submit(request)).toBe('started')
    await pipeline.idle()
    expect(world.runs.records).toHaveLength(2)
  })

  it('with one place and ten requests: one runs, eight wait, one gets the queue-full comment', async () => {
    const world = worldWithPulls(1)
    const classifier = heldClassifier()
    await world.serve(classifier.script)
    const pipeline = createReviewPipeline(world.deps)
    const requests = await Promise.all(PRS.map((pr) => requestFor(world, { pr })))
    for (const request of requests) pipeline.submit(request)

    await until(
      () => world.requests.length === 1 && world.runs.records.length === 1,
      'one run and the queue-full record',
    )
    expect(pipeline.counts()).toMatchObject({ running: 1, waiting: 8, limit: 1 })
    const [turnedAway] = world.runs.records
    expect(turnedAway).toMatchObject({ outcome: 'queue-full', pr: 10, detail: QUEUE_FULL_REASON })
    expect(turnedAway?.head_sha).toBeUndefined()
    const [comment] = world.forge.reviews(REPO, 10)
    expect(comment).toMatchObject({ event: 'COMMENT', commitId: requests[9]?.headSha, user: 'review-classifier' })
    expect(comment?.body).toBe(renderNoVerdictBody(QUEUE_FULL_REASON, null))

    for (const pr of PRS) classifier.release(pr)
    await pipeline.idle()
    expect(classifier.maxHolding()).toBe(1)
    expect(world.requests.map((r) => r.pr).sort((a, b) => a - b)).toEqual(PRS.slice(0, 9))
    const outcomes = world.runs.records.map((r) => r.outcome)
    expect(outcomes.filter((o) => o === 'approved')).toHaveLength(9)
    expect(outcomes.filter((o) => o === 'queue-full')).toHaveLength(1)
  })

  it('reads the limit from the settings: lowering it lets the running reviews finish and starts none until under it', async () => {
    const world = worldWithPulls(3)
    const classifier = heldClassifier()
    await world.serve(classifier.script)
    const pipeline = createReviewPipeline(world.deps)
    for (const pr of [1, 2, 3, 4, 5]) pipeline.submit(await requestFor(world, { pr }))
    await until(() => classifier.holding() === 3, 'three runs')

    world.settings.set({ max_concurrent_reviews: 1 })
    classifier.release(1)
    await until(() => world.runs.records.length === 1, 'the first review')
    await until(() => pipeline.counts().limit === 1, 'the lowered limit')
    classifier.resetMax()
    classifier.release(2)
    await until(() => world.runs.records.length === 2, 'the second review')
    expect(pipeline.counts()).toMatchObject({ running: 1, waiting: 2 })
    classifier.release(3)
    await until(() => world.requests.length === 4, 'the fourth run')
    for (const pr of [4, 5]) classifier.release(pr)
    await pipeline.idle()
    expect(classifier.maxHolding()).toBe(2)
    expect(world.runs.records.map((r) => r.outcome)).toEqual(Array(5).fill('approved'))
  })

  it("turns every review into a no-verdict comment while the settings can't be read, and doesn't stall", async () => {
    const world = worldWithPulls(1)
    await world.serve(approveAll)
    const pipeline = createReviewPipeline(world.deps)
    pipeline.submit(await requestFor(world, { pr: 1 }))
    await pipeline.idle()
    world.settings.fail(appError('unavailable', 'kv get: not connected'))
    for (const pr of [2, 3]) pipeline.submit(await requestFor(world, { pr }))
    await pipeline.idle()
    expect(world.runs.records.map((r) => r.outcome)).toEqual(['no-verdict', 'no-verdict', 'approved'])
    expect(world.forge.reviews(REPO, 3)[0]?.body).toContain("the settings couldn't be read")
  })
})
