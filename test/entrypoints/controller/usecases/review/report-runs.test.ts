/**
 * The rules-change report through the review pipeline: its runs hold no
 * review place (a review requested while one runs starts at once), one
 * report per commit at a time, and the drain or its deadline stops a
 * report, which posts what it had and cancels its run in hand at the
 * classifier. The classifier holds the labelled PRs' runs until a test lets
 * them go.
 */
import { describe, expect, it } from 'bun:test'
import { EXAMPLES_YML_PATH } from '../../../../../core/repo-files/examples-file.ts'
import { RULES_YML_PATH } from '../../../../../core/repo-files/rules-file.ts'
import type { RunReply, RunRequest } from '../../../../../core/wire/types.ts'
import { REPORT_ALREADY_RUNNING } from '../../../../../entrypoints/controller/usecases/review/report-runs.ts'
import { createReviewPipeline } from '../../../../../entrypoints/controller/usecases/review/review-pipeline.ts'
import { aNumberedPull, aSeedRepo, headOf, TWO_RULES_YAML } from '../../../../support/builders.ts'
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

const EXAMPLES = 'examples:\n  - pr: 12\n    expect:\n      datetime: match\n'
const rulesDiff = (pr: number) =>
  `diff --git a/${RULES_YML_PATH} b/${RULES_YML_PATH}\nindex 1111111..2222222 100644\n--- a/${RULES_YML_PATH}\n+++ b/${RULES_YML_PATH}\n@@ -1 +1 @@\n-old ${pr}\n+new ${pr}\n`

/** PRs 42 and 43 change the rules; 44 doesn't; 12 is labelled. One review place. Alice may write. */
function aWorld(): World {
  return createWorld(aWorldOptions())
}

function aWorldOptions(): Parameters<typeof createWorld>[0] & object {
  const files = { [RULES_YML_PATH]: TWO_RULES_YAML, [EXAMPLES_YML_PATH]: EXAMPLES }
  return {
    settings: { max_concurrent_reviews: 1 },
    seed: {
      users: [{ login: 'review-classifier' }, { login: 'alice' }],
      tokens: [{ login: 'review-classifier', name: 'swarm-review-classifier', token: SERVICE_ACCOUNT_TOKEN }],
      repos: [
        aSeedRepo({
          collaborators: { 'review-classifier': 'write', alice: 'write' },
          files,
          pulls: [
            aNumberedPull(42, { diff: rulesDiff(42) }),
            aNumberedPull(43, { diff: rulesDiff(43) }),
            aNumberedPull(44),
            aNumberedPull(12),
          ],
          commits: { [headOf(42)]: files, [headOf(43)]: files },
        }),
      ],
    },
  }
}

/** Answers every review at once; the labelled PR's runs wait for `held` to open. `cancelled`: the run cancels heard. */
async function serveHolding(world: World): Promise<{ open(): void; reached: Promise<void>; cancelled: string[] }> {
  const held = gate()
  const reached = gate()
  const cancelled: string[] = []
  await world.serve(
    async (request: RunRequest): Promise<RunReply> => {
      if (request.pr === 12) {
        reached.open()
        await held.wait
      }
      return approveAll(request)
    },
    (id) => cancelled.push(id),
  )
  return { open: held.open, reached: reached.wait, cancelled }
}

describe('the rules-change report in the review pipeline', () => {
  it('holds no review place: a review requested while a report runs starts and posts at once', async () => {
    const world = aWorld()
    const labelled = await serveHolding(world)
    const pipeline = createReviewPipeline(world.deps)
    expect(pipeline.submit(await requestFor(world, { pr: 42 }))).toBe('started')
    await labelled.reached
    // PR 42's verdict is posted, and its report is running, with the one place free.
    expect(world.forge.reviews(REPO, 42).map((review) => review.event)).toEqual(['REQUEST_CHANGES'])
    expect(pipeline.counts()).toMatchObject({ running: 0, waiting: 0 })
    expect(pipeline.submit(await requestFor(world, { pr: 44 }))).toBe('started')
    await until(() => world.forge.reviews(REPO, 44).length === 1, 'the second review')
    expect(world.forge.reviews(REPO, 44)[0]?.event).toBe('REQUEST_CHANGES')

    labelled.open()
    await pipeline.idle()
    const [, report] = world.forge.reviews(REPO, 42)
    expect(report?.event).toBe('COMMENT')
    expect(report?.body).toContain('**Rules change report**')
    expect(report?.body).not.toContain('Stopped early')
  })

  it('makes one report per commit at a time: a review of the same head meanwhile gets the skipped line', async () => {
    const world = aWorld()
    const labelled = await serveHolding(world)
    const pipeline = createReviewPipeline(world.deps)
    pipeline.submit(await requestFor(world, { pr: 42 }))
    await labelled.reached
    pipeline.submit(await requestFor(world, { pr: 42 }))
    await until(() => world.forge.reviews(REPO, 42).length === 3, 'the second verdict and its skipped line')
    expect(world.forge.reviews(REPO, 42).map((review) => review.event)).toEqual([
      'REQUEST_CHANGES',
      'REQUEST_CHANGES',
      'COMMENT',
    ])
    expect(world.forge.reviews(REPO, 42)[2]?.body).toBe(`**Rules change report**: skipped, ${REPORT_ALREADY_RUNNING}`)
    labelled.open()
    await pipeline.idle()
    expect(world.forge.reviews(REPO, 42)).toHaveLength(4)
    expect(world.requests.filter((request) => request.pr === 12)).toHaveLength(1)
  })

  it('is stopped by the drain, cancels its run in hand at the classifier, and posts what it had', async () => {
    const world = aWorld()
    const labelled = await serveHolding(world)
    const pipeline = createReviewPipeline(world.deps)
    pipeline.submit(await requestFor(world, { pr: 43 }))
    await labelled.reached
    const report = await pipeline.drain({ boundMs: 1_000 })
    expect(report.complete).toBe(true)
    const [, posted] = world.forge.reviews(REPO, 43)
    expect(posted?.body).toContain(
      'Stopped early: the controller is stopping. 0 of 1 labelled PRs were answered in full',
    )
    // The labelled PR's run, abandoned, is cancelled like any other run; the review's own was answered.
    const held = world.requests.filter((request) => request.pr === 12).map((request) => request.id)
    await until(() => labelled.cancelled.length > 0, 'the report run’s cancel')
    expect(labelled.cancelled).toEqual(held)
    labelled.open()
  })

  it('cancels its run in hand at its own deadline, RUN_TIMEOUT_S', async () => {
    const world = createWorld({ ...aWorldOptions(), runTimeoutMs: 200 })
    const labelled = await serveHolding(world)
    const pipeline = createReviewPipeline(world.deps)
    pipeline.submit(await requestFor(world, { pr: 43 }))
    await labelled.reached
    await until(() => world.forge.reviews(REPO, 43).length === 2, 'the stopped report')
    expect(world.forge.reviews(REPO, 43)[1]?.body).toContain("the report's deadline, passed")
    await until(() => labelled.cancelled.length > 0, 'the report run’s cancel')
    expect(labelled.cancelled).toEqual(world.requests.filter((request) => request.pr === 12).map((r) => r.id))
    labelled.open()
    await pipeline.idle()
  })
})
