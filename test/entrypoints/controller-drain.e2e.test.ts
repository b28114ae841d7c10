/**
 * A controller restart as an operator makes one (test/support/service-world.ts:
 * a real controller process, a fake Forgejo, a real nats-server, the
 * classifier on the scripted model, whose answers are held until the test is
 * over, so the review is still in hand whatever the machine's speed). The
 * controller gets SIGTERM with one review running and one waiting, and a
 * delivery arrives while it drains.
 */

import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createRecordingLogger } from '../../adapters/memory/logger.ts'
import { connectNats, type NatsClient } from '../../adapters/nats/connection.ts'
import { createNatsKvBuckets } from '../../adapters/nats/kv.ts'
import { RULES_YML_PATH } from '../../core/repo-files/rules-file.ts'
import { NO_RUN } from '../../core/review/no-run.ts'
import { RETRY_HINT, renderNoVerdictBody } from '../../core/review/review-body.ts'
import { listRuns, RUN_FINISHED_MESSAGE, RUNS_BUCKET, RUNS_KEY, type RunRecord } from '../../core/run/run-record.ts'
import { DRAIN_MESSAGES, stoppedAtBoundReason } from '../../entrypoints/controller/usecases/review/review-pipeline.ts'
import { aNumberedPull, headOf } from '../support/builders.ts'
import { cleanUp } from '../support/cleanup.ts'
import type { FakeForgejo } from '../support/fake-forgejo.ts'
import { type ServiceWorld, startServiceWorld } from '../support/service-world.ts'

setDefaultTimeout(90_000)

const REPO = { owner: 'acme', name: 'widgets' }
const RULES = `classifications:
  - name: datetime
    description: All datetimes carry time zone information.
    polarity: positive
    threshold: 80
`

let world: ServiceWorld
let forge: FakeForgejo
let client: NatsClient
let releaseRuns: () => void = () => undefined

const deliver = (pr: number) => world.deliver(pr)
const logEntries = (msg: string) => world.logged(msg)
/** The PRs whose run the classifier has taken: its question is at the model. */
const taken = () => [...new Set(world.model.asked.map((asked) => asked.pr))]

beforeAll(async () => {
  world = await startServiceWorld({
    swarm: 'drain',
    repos: [
      {
        ...REPO,
        files: { [RULES_YML_PATH]: RULES },
        pulls: [1, 2, 3].map((pr) => aNumberedPull(pr)),
        collaborators: { 'review-classifier': 'write', alice: 'write' },
      },
    ],
    controllerEnv: { DRAIN_TIMEOUT_S: '2' },
  })
  forge = world.forge
  // The classifier takes every run and answers only once the test is over.
  releaseRuns = world.model.hold(() => true)
  client = await connectNats({
    url: world.nats.url,
    name: 'drain-test',
    firstConnectTimeoutMs: 10_000,
    logger: createRecordingLogger(),
  })
  await world.controller.waitForLine('review classifier service account token minted')
  expect((await world.putSettings({ max_concurrent_reviews: 1 })).status).toBe(200)
})

afterAll(async () => {
  releaseRuns()
  await cleanUp(client === undefined ? null : () => client.close(), world === undefined ? null : () => world.stop())
})

describe('a controller stopped with SIGTERM', () => {
  it('comments on the running review at the bound and on a delivery meanwhile, drops the waiting one naming it, records what it posted, and exits 0', async () => {
    expect((await deliver(1)).status).toBe(202)
    await world.waitFor(() => taken().includes(1), 'the run of PR 1 at the classifier', 30_000)
    expect(await (await deliver(2)).json()).toEqual({ status: 'waiting' })

    const controller = world.controller
    controller.kill('SIGTERM')
    await controller.waitForLine(DRAIN_MESSAGES.draining)
    const during = await deliver(3)
    expect(during.status).toBe(202)
    expect(await during.json()).toEqual({ status: 'stopping' })

    expect(await controller.exited).toBe(0)
    await controller.waitForLine('controller stopped')

    // The running review: stopped at the bound, with the no-verdict and the retry hint, on the head it read.
    const [stopped] = forge.reviews(REPO, 1)
    expect(forge.reviews(REPO, 1)).toHaveLength(1)
    expect(stopped).toMatchObject({ user: 'review-classifier', state: 'COMMENT', commitId: headOf(1) })
    expect(stopped?.body).toBe(renderNoVerdictBody(stoppedAtBoundReason(2_000), null))
    expect(stopped?.body).toEndWith(RETRY_HINT)
    // The delivery during the drain: its comment at once, no run.
    const [refused] = forge.reviews(REPO, 3)
    expect(refused).toMatchObject({ state: 'COMMENT', commitId: headOf(3) })
    expect(refused?.body).toBe(renderNoVerdictBody(NO_RUN.stopping.reason, null))
    expect(taken()).toEqual([1])
    // The waiting one: nothing posted, and the log names it for the operator.
    expect(forge.reviews(REPO, 2)).toEqual([])
    expect(logEntries(DRAIN_MESSAGES.dropped)).toEqual([
      expect.objectContaining({ level: 'warn', repo: 'acme/widgets', pr: 2, head_sha: headOf(2), requester: 'alice' }),
    ])

    // Both comments are in the run store and the run-finished log events; the dropped one in neither.
    const finished = logEntries(RUN_FINISHED_MESSAGE)
    expect(finished.map((entry) => [entry.pr, entry.outcome]).sort()).toEqual([
      [1, 'no-verdict'],
      [3, 'no-verdict'],
    ])
    const kv = await createNatsKvBuckets(client).open(RUNS_BUCKET)
    const entry = await kv.get(RUNS_KEY)
    const runs: RunRecord[] = listRuns(entry?.value ?? null).runs
    expect(runs.map((run) => run.pr).sort()).toEqual([1, 3])
    expect(runs.find((run) => run.pr === 1)).toMatchObject({
      outcome: 'no-verdict',
      head_sha: headOf(1),
      detail: stoppedAtBoundReason(2_000),
    })
    expect(runs.find((run) => run.pr === 3)).toMatchObject({ outcome: 'no-verdict', detail: NO_RUN.stopping.reason })
  })
})
