import { describe, expect, it } from 'bun:test'
import { createMemoryKv } from '../../../../../adapters/memory/kv.ts'
import { appError } from '../../../../../core/base/errors.ts'
import { NO_RUN } from '../../../../../core/review/no-run.ts'
import { RETRY_HINT, renderNoVerdictBody } from '../../../../../core/review/review-body.ts'
import { RUN_FINISHED_MESSAGE } from '../../../../../core/run/run-record.ts'
import type { RunReply, RunRequest } from '../../../../../core/wire/types.ts'
import {
  createReviewPipeline,
  DRAIN_MESSAGES,
  stoppedAtBoundReason,
} from '../../../../../entrypoints/controller/usecases/review/review-pipeline.ts'
import { createKvRunStore } from '../../../../../entrypoints/controller/usecases/run/run-store.ts'
import { aSeedPull, aSeedRepo } from '../../../../support/builders.ts'
import { expectNothingFor } from '../../../../support/waits.ts'
import {
  approveAll,
  createWorld,
  gate,
  REPO,
  requestFor,
  SERVICE_ACCOUNT_TOKEN,
  until,
  type World,
} from '../../review-world.ts'

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

  it("says a head is being reviewed while it runs or waits, and tells onSettled once it isn't, after its record", async () => {
    const world = createWorld()
    const held = gate()
    await world.serve(async (request) => {
      await held.wait
      return approveAll(request)
    })
    const settled: Array<{ reviewing: boolean; records: number }> = []
    const pipeline = createReviewPipeline({
      ...world.deps,
      onSettled: (request) =>
        settled.push({ reviewing: pipeline.reviewing(request), records: world.runs.records.length }),
    })
    const request = await requestFor(world)
    expect(pipeline.reviewing(request)).toBe(false)
    pipeline.submit(request)
    expect(pipeline.reviewing(request)).toBe(true)
    expect(pipeline.reviewing({ ...request, headSha: 'f'.repeat(40) })).toBe(false)
    held.open()
    await pipeline.idle()
    expect(pipeline.reviewing(request)).toBe(false)
    // Told once, when the head is no longer being reviewed and its run is in the store.
    expect(settled).toEqual([{ reviewing: false, records: 1 }])
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
    expect(turnedAway).toMatchObject({ outcome: 'queue-full', pr: 10, detail: NO_RUN['queue-full'].reason })
    expect(turnedAway?.head_sha).toBeUndefined()
    const [comment] = world.forge.reviews(REPO, 10)
    expect(comment).toMatchObject({ event: 'COMMENT', commitId: requests[9]?.headSha, user: 'review-classifier' })
    expect(comment?.body).toBe(renderNoVerdictBody(NO_RUN['queue-full'].reason, null))

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

describe('draining the pipeline (SIGTERM)', () => {
  /** The world with the real KV run store, whose `review classifier run finished` events land in the world's log. */
  function drainWorld(limit: number) {
    const world = worldWithPulls(limit)
    const runs = createKvRunStore({ buckets: createMemoryKv(), logger: world.logger })
    return { world, runs, deps: { ...world.deps, runs } }
  }

  function finishedEvents(world: World, pr: number) {
    return world.logger.withMessage(RUN_FINISHED_MESSAGE).filter((entry) => entry.fields.pr === pr)
  }

  it('lets the running reviews finish within the bound, drops the waiting ones naming each, and comments at once on a request meanwhile', async () => {
    const { world, runs, deps } = drainWorld(1)
    const classifier = heldClassifier()
    await world.serve(classifier.script)
    const pipeline = createReviewPipeline(deps)
    const [first, second, third, late] = await Promise.all([1, 2, 3, 4].map((pr) => requestFor(world, { pr })))
    if (first === undefined || second === undefined || third === undefined || late === undefined) throw new Error()
    for (const request of [first, second, third]) pipeline.submit(request)
    await until(() => classifier.holding() === 1, 'the first run at the classifier')
    expect(pipeline.counts()).toMatchObject({ running: 1, waiting: 2, limit: 1 })

    let drained = false
    const draining = pipeline.drain({ boundMs: 60_000 }).finally(() => {
      drained = true
    })
    // The waiting ones are gone at once, each named so an operator can request it again.
    expect(pipeline.counts()).toMatchObject({ running: 1, waiting: 0 })
    const dropped = world.logger.withMessage(DRAIN_MESSAGES.dropped)
    expect(dropped.map((entry) => entry.fields)).toEqual([
      { repo: 'acme/widgets', pr: 2, head_sha: second.headSha, requester: 'alice' },
      { repo: 'acme/widgets', pr: 3, head_sha: third.headSha, requester: 'alice' },
    ])
    expect(dropped.every((entry) => entry.level === 'warn')).toBe(true)

    // A request during the drain gets the comment at once, while the running review still runs.
    expect(pipeline.submit(late)).toBe('stopping')
    expect(pipeline.submit(first)).toBe('duplicate')
    await until(() => world.forge.reviews(REPO, 4).length === 1, 'the stopping comment on PR 4')
    expect(drained).toBe(false)
    const [comment] = world.forge.reviews(REPO, 4)
    expect(comment).toMatchObject({ event: 'COMMENT', commitId: late.headSha, user: 'review-classifier' })
    expect(comment?.body).toBe(renderNoVerdictBody(NO_RUN.stopping.reason, null))
    expect(comment?.body).toEndWith(RETRY_HINT)

    classifier.release(1)
    expect(await draining).toEqual({ finished: 1, stopped: 0, dropped: 2, refused: 1, complete: true })
    expect(world.forge.reviews(REPO, 1).map((r) => r.event)).toEqual(['APPROVED'])
    expect(world.forge.reviews(REPO, 2)).toEqual([])
    expect(world.forge.reviews(REPO, 3)).toEqual([])
    expect(world.requests.map((r) => r.pr)).toEqual([1])

    // What was posted is recorded, and logged as a finished run; the dropped ones posted nothing and aren't.
    const recorded = await runs.list()
    expect(recorded.map((r) => [r.pr, r.outcome])).toEqual([
      [1, 'approved'],
      [4, 'no-verdict'],
    ])
    expect(recorded.find((r) => r.pr === 4)).toMatchObject({ detail: NO_RUN.stopping.reason, requester: 'alice' })
    expect(recorded.find((r) => r.pr === 4)?.head_sha).toBeUndefined()
    expect(finishedEvents(world, 4).map((e) => e.fields.outcome)).toEqual(['no-verdict'])
    expect(finishedEvents(world, 2)).toEqual([])
    expect(finishedEvents(world, 3)).toEqual([])
  })

  it('stops a review still running at the bound with the no-verdict and the retry hint, and never posts its verdict', async () => {
    const { world, runs, deps } = drainWorld(2)
    const classifier = heldClassifier()
    await world.serve(classifier.script)
    const pipeline = createReviewPipeline(deps)
    const request = await requestFor(world, { pr: 1 })
    pipeline.submit(request)
    await until(() => classifier.holding() === 1, 'the run at the classifier')

    // The classifier holds the run until the test lets go, so it is still running at any bound.
    const report = await pipeline.drain({ boundMs: 20 })
    expect(report).toEqual({ finished: 0, stopped: 1, dropped: 0, refused: 0, complete: true })
    const reason = stoppedAtBoundReason(20)
    expect(reason).toContain('the controller was stopping')
    const [comment] = world.forge.reviews(REPO, 1)
    expect(comment).toMatchObject({ event: 'COMMENT', commitId: request.headSha })
    expect(comment?.body).toBe(renderNoVerdictBody(reason, null))
    expect(comment?.body).toEndWith(RETRY_HINT)
    const [record] = await runs.list()
    expect(record).toMatchObject({ pr: 1, outcome: 'no-verdict', detail: reason, head_sha: request.headSha })
    expect(finishedEvents(world, 1).map((e) => e.fields.detail)).toEqual([reason])
    expect(world.logger.withMessage(DRAIN_MESSAGES.boundReached)).toHaveLength(1)

    // The classifier answers after all: the wait for it was stopped, so the answer goes nowhere.
    classifier.release(1)
    await until(() => classifier.holding() === 0, 'the classifier to answer')
    await expectNothingFor(() => world.forge.reviews(REPO, 1).length > 1, 'a second review on PR 1', 100)
    expect(await runs.list()).toHaveLength(1)
  })

  it('stops a review still reading the PR at the bound, and sends no run once the read ends', async () => {
    const { world, deps } = drainWorld(2)
    await world.serve(approveAll)
    const diffRead = gate()
    let diffAsked = false
    const forge = {
      ...world.forge,
      async getPullDiff(repo: typeof REPO, pr: number) {
        diffAsked = true
        await diffRead.wait
        return world.forge.getPullDiff(repo, pr)
      },
    }
    const pipeline = createReviewPipeline({ ...deps, forge })
    const request = await requestFor(world, { pr: 1 })
    pipeline.submit(request)
    await until(() => diffAsked, 'the diff read')

    expect(await pipeline.drain({ boundMs: 20 })).toMatchObject({ stopped: 1, complete: true })
    const [comment] = world.forge.reviews(REPO, 1)
    expect(comment?.body).toBe(renderNoVerdictBody(stoppedAtBoundReason(20), null))

    diffRead.open()
    await expectNothingFor(() => world.requests.length > 0, 'a run request after the bound', 100)
    expect(world.forge.reviews(REPO, 1)).toHaveLength(1)
  })

  it('ends the drain after the margin when the forge holds a comment, and says so', async () => {
    const { world, deps } = drainWorld(1)
    const held = gate()
    const forge = {
      ...world.forge,
      forAccount(token: string) {
        const writer = world.forge.forAccount(token)
        return {
          ...writer,
          createReview: async (...args: Parameters<typeof writer.createReview>) => {
            await held.wait
            return writer.createReview(...args)
          },
        }
      },
    }
    const pipeline = createReviewPipeline({ ...deps, forge })
    const report = pipeline.drain({ boundMs: 20, postMarginMs: 20 })
    expect(pipeline.submit(await requestFor(world, { pr: 1 }))).toBe('stopping')
    expect(await report).toMatchObject({ refused: 1, complete: false })
    expect(world.logger.withMessage(DRAIN_MESSAGES.unfinished)).toHaveLength(1)
    held.open()
    await pipeline.idle()
    expect(world.forge.reviews(REPO, 1)).toHaveLength(1)
  })
})
