/**
 * A controller restart as an operator makes one: a real controller process,
 * a fake Forgejo, a real nats-server, and a classifier that takes the run and
 * holds it (the NATS responder in this process, so the review is still in
 * hand whatever the machine's speed). The controller gets SIGTERM with one
 * review running and one waiting, and a delivery arrives while it drains.
 */

import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { rmSync } from 'node:fs'
import { createRecordingLogger } from '../../adapters/memory/logger.ts'
import { connectNats, type NatsClient } from '../../adapters/nats/connection.ts'
import { createNatsKvBuckets } from '../../adapters/nats/kv.ts'
import { createNatsRunResponder, runSubject } from '../../adapters/nats/queue.ts'
import { RETRY_HINT, renderNoVerdictBody } from '../../core/review-body.ts'
import { RULES_YML_PATH } from '../../core/rules-file.ts'
import { listRuns, RUN_FINISHED_MESSAGE, RUNS_BUCKET, RUNS_KEY, type RunRecord } from '../../core/run-record.ts'
import type { RunReply } from '../../core/types.ts'
import { decodeRunRequest } from '../../core/wire-decode.ts'
import {
  DRAIN_MESSAGES,
  STOPPING_REASON,
  stoppedAtBoundReason,
} from '../../entrypoints/controller/usecases/review-pipeline.ts'
import type { RunSubscription } from '../../ports/queue.ts'
import { aNumberedPull, headOf } from '../support/builders.ts'
import { cleanUp } from '../support/cleanup.ts'
import { ADMIN_LOGIN, ADMIN_TOKEN } from '../support/fake-forgejo/harness.ts'
import { createFakeForgejo, type FakeForgejo } from '../support/fake-forgejo.ts'
import { type NatsServer, startNatsServer } from '../support/nats-server.ts'
import { makeSecretsDir, type ServiceProcess, startServiceProcess } from '../support/service-process.ts'
import { waitFor } from '../support/waits.ts'
import { signedDelivery } from '../support/webhook.ts'

setDefaultTimeout(90_000)

const SECRET = 'drain-webhook-secret-77c1'
const SWARM = 'drain'
const REPO = { owner: 'acme', name: 'widgets' }
const RULES = `classifications:
  - name: datetime
    description: All datetimes carry time zone information.
    polarity: positive
    threshold: 80
`

let nats: NatsServer
let forge: FakeForgejo
let secretsDir: string
let client: NatsClient
let subscription: RunSubscription
let controller: ServiceProcess
let base = ''
/** The PRs whose run the held classifier has taken. */
const taken: number[] = []
let releaseRuns: () => void = () => undefined
const runsReleased = new Promise<void>((resolve) => {
  releaseRuns = resolve
})

async function deliver(pr: number): Promise<Response> {
  const sign = { secret: SECRET, url: `${base}/webhook/forge/review-request` }
  return fetch(
    signedDelivery(sign, { owner: REPO.owner, repo: REPO.name, pr, headSha: headOf(pr), forgeUrl: forge.url }),
  )
}

function logEntries(msg: string): Array<Record<string, unknown>> {
  return controller.lines
    .filter((line) => line.includes(`"${msg}"`))
    .map((line): Record<string, unknown> => JSON.parse(line))
}

beforeAll(async () => {
  nats = await startNatsServer()
  forge = createFakeForgejo({
    seed: {
      users: [{ login: ADMIN_LOGIN, admin: true }, { login: 'alice' }],
      tokens: [{ login: ADMIN_LOGIN, name: 'controller', token: ADMIN_TOKEN, scopes: ['all'] }],
      repos: [
        {
          ...REPO,
          files: { [RULES_YML_PATH]: RULES },
          pulls: [1, 2, 3].map((pr) => aNumberedPull(pr)),
          collaborators: { 'review-classifier': 'write', alice: 'write' },
        },
      ],
    },
  })
  secretsDir = makeSecretsDir({ 'swarm/services/swarm-controller/forge/token': { token: ADMIN_TOKEN } })
  client = await connectNats({
    url: nats.url,
    name: 'held-classifier',
    firstConnectTimeoutMs: 10_000,
    logger: createRecordingLogger(),
  })
  // A classifier that takes every run, sends its heartbeats, and answers only once the test is over.
  subscription = await createNatsRunResponder(
    client,
    { subject: runSubject(SWARM) },
    { logger: createRecordingLogger() },
  ).serve(async (text, tell): Promise<RunReply> => {
    const decoded = decodeRunRequest(text)
    if (!decoded.ok) throw new Error(decoded.error)
    tell({ kind: 'taken', id: decoded.value.id, total: decoded.value.classifications.length })
    taken.push(decoded.value.pr)
    await runsReleased
    return {
      id: decoded.value.id,
      ok: false,
      error: 'released at the end of the test',
      rows: [],
      overall: 'no-verdict',
    }
  })
  controller = startServiceProcess('controller', {
    PORT: '0',
    NATS_URL: nats.url,
    SWARM,
    SECRETS_DIR: secretsDir,
    FORGE_URL: forge.url,
    FORGE_WEBHOOK_SECRET: SECRET,
    DRAIN_TIMEOUT_S: '2',
  })
  const listening = JSON.parse(await controller.waitForLine('controller listening')) as { port: number }
  base = `http://127.0.0.1:${listening.port}`
  await controller.waitForLine('review classifier service account token minted')
  const put = await fetch(`${base}/api/review-classifier/settings`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'Remote-User': 'admin' },
    body: JSON.stringify({ max_concurrent_reviews: 1 }),
  })
  expect(put.status).toBe(200)
})

afterAll(async () => {
  releaseRuns()
  await cleanUp(
    controller === undefined
      ? null
      : async () => {
          controller.kill('SIGKILL')
          await controller.exited
        },
    subscription === undefined ? null : () => subscription.drain(),
    client === undefined ? null : () => client.close(),
    forge === undefined ? null : () => forge.stop(),
    nats === undefined ? null : () => nats.cleanup(),
    secretsDir === undefined ? null : () => rmSync(secretsDir, { recursive: true, force: true }),
  )
})

describe('a controller stopped with SIGTERM', () => {
  it('comments on the running review at the bound and on a delivery meanwhile, drops the waiting one naming it, records what it posted, and exits 0', async () => {
    expect((await deliver(1)).status).toBe(202)
    await waitFor(() => taken.includes(1), 'the run of PR 1 at the classifier', 30_000)
    expect(await (await deliver(2)).json()).toEqual({ status: 'waiting' })

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
    expect(refused?.body).toBe(renderNoVerdictBody(STOPPING_REASON, null))
    expect(taken).toEqual([1])
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
    expect(runs.find((run) => run.pr === 3)).toMatchObject({ outcome: 'no-verdict', detail: STOPPING_REASON })
  })
})
