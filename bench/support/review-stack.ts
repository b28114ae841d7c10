/**
 * The whole review path in one process, for the controller benchmarks
 * (issue 12, benchmarks 3 and 4): a real nats-server, the fake Forgejo of
 * the tests, the controller built by `createController` and wired as
 * `entrypoints/controller.ts` wires it (Forgejo adapter, lazily connected
 * NATS queue), and a classifier built by `createClassifier` serving the run
 * subject as `entrypoints/classifier.ts` does, on whatever model runtime the
 * benchmark gives it. No controller code is changed: the benchmark sees the
 * path only at its ports, by wrapping the Forge adapter (every call timed,
 * the review post marked) and the classifier's handler (request in, reply
 * out).
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createForgejoForge } from '../../adapters/forgejo/forge.ts'
import { createRecordingMetrics } from '../../adapters/memory/metrics.ts'
import { createMemorySecretStore } from '../../adapters/memory/secret-store.ts'
import { connectNats, type NatsClient } from '../../adapters/nats/connection.ts'
import { connectLazily } from '../../adapters/nats/lazy-queue.ts'
import { createNatsRunResponder, runSubject } from '../../adapters/nats/queue.ts'
import { createSystemClock } from '../../adapters/system/clock.ts'
import { createRandomIds } from '../../adapters/system/ids.ts'
import { RULES_YML_PATH } from '../../core/repo-files/rules-file.ts'
import { DEFAULT_CONTEXT_BUDGET_BYTES } from '../../core/run/budget.ts'
import { CONTROLLER_TOKEN_SECRET, RUNTIME_KEY_SECRETS, SERVICE_TOKEN } from '../../core/settings/service-account.ts'
import type { RunReply } from '../../core/wire/types.ts'
import { createController } from '../../entrypoints/controller/service.ts'
import { readControllerToken } from '../../entrypoints/controller/usecases/settings/service-token.ts'
import type { Forge, ForgeWriter } from '../../ports/forge.ts'
import type { LogFields, Logger } from '../../ports/logger.ts'
import { ADMIN_LOGIN, ADMIN_TOKEN } from '../../test/support/fake-forgejo/harness.ts'
import { createFakeForgejo, type FakeForgejo } from '../../test/support/fake-forgejo.ts'
import { type NatsServer, startNatsServer } from '../../test/support/nats-server.ts'
import { deliveryHeaders, goJson, reviewRequestPayload } from '../../test/support/webhook.ts'
import { API_KEY } from './common.ts'

export const REPO = { owner: 'acme', name: 'ledger' }
export const WEBHOOK_SECRET = 'bench-webhook-secret-71c2'
const SWARM = 'bench'

/** What one review went through, in `performance.now()` ms, keyed by PR number. */
export type ReviewMarks = {
  /** The classifier's handler got the run request. */
  received?: number
  /** The classifier's handler had the reply. */
  replied?: number
  /** The controller called createReview. */
  posting?: number
  /** createReview returned: the review is on the forge. */
  posted?: number
  /** The event of the review: APPROVED, REQUEST_CHANGES or COMMENT. */
  event?: string
}

export type ForgeCall = { method: string; startedAt: number; ms: number }

/** The classifier side as the benchmark builds it from a tree's modules. */
export type ClassifierFactory = (deps: { secrets: unknown; logger: Logger; metrics: unknown }) => {
  handle(
    text: string,
    onProgress?: (event: { kind: string; id: string; row?: unknown; total?: number }) => void,
  ): Promise<RunReply>
}

export type StackOptions = {
  /** PRs 1..pulls are seeded, each with this diff, commits and title. */
  pulls: number
  diff: string
  commits: string[]
  /** The rules file on the default branch. */
  rulesYaml: string
  classifier: ClassifierFactory
  /** The admission's `max_concurrent_reviews`, PUT into the settings before the benchmark; default the settings' own. */
  maxConcurrentReviews?: number
}

export type Stack = {
  /** The controller's root URL. */
  base: string
  forge: FakeForgejo
  marks: Map<number, ReviewMarks>
  forgeCalls: ForgeCall[]
  /** The fields of every `review requested` line. */
  logged(msg: 'review requested'): LogFields[]
  /** How many log lines had this message. */
  logCount(msg: string): number
  /** Every review the controller posted, in order: the PR and the event. */
  posts: Array<{ pr: number; event: string }>
  /** A signed delivery for `pr` as Forgejo sends it; the options change the payload or spoil the signature. */
  deliveryRequest(pr: number, options?: DeliveryShape): Request
  /** Resolves once a review of `pr` is on the forge. */
  posted(pr: number): Promise<void>
  /** Running and waiting reviews, from the controller's pipeline. */
  counts(): { running: number; waiting: number; limit: number }
  idle(): Promise<void>
  stop(): Promise<void>
}

export type DeliveryShape = {
  action?: string
  reviewer?: string
  headSha?: string
  /** A signature over other bytes. */
  forged?: boolean
}

export function headOf(pr: number): string {
  return pr.toString(16).padStart(8, '0').repeat(5)
}

function timedForge(
  forge: Forge,
  calls: ForgeCall[],
  marks: Map<number, ReviewMarks>,
  onPosted: (pr: number, event: string) => void,
): Forge {
  const time = (method: string, run: () => unknown): Promise<unknown> => {
    const startedAt = performance.now()
    return Promise.resolve(run()).finally(() => calls.push({ method, startedAt, ms: performance.now() - startedAt }))
  }
  const writerOf = (writer: ForgeWriter): ForgeWriter =>
    new Proxy(writer, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          if (property !== 'createReview') return time(`writer.${String(property)}`, () => value.apply(target, args))
          const [, pr, review] = args as Parameters<ForgeWriter['createReview']>
          const mark = marks.get(pr) ?? {}
          marks.set(pr, mark)
          mark.posting = performance.now()
          return time('writer.createReview', () => value.apply(target, args)).finally(() => {
            mark.posted = performance.now()
            mark.event = review.event
            onPosted(pr, review.event)
          })
        }
      },
    })
  return new Proxy(forge, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property)
      if (typeof value !== 'function') return value
      if (property === 'forAccount') return (token: string) => writerOf(value.call(target, token) as ForgeWriter)
      return (...args: unknown[]) => time(String(property), () => value.apply(target, args))
    },
  })
}

/** The log lines whose fields the benchmarks read; every other line is only counted, so the log holds no memory of its own. */
const KEPT_MESSAGES = new Set(['review requested'])

/** A logger that prints nothing, counts every entry by message and keeps the fields of the few the benchmarks read. */
function createCountingLogger(): Logger & { byMessage: Map<string, LogFields[]>; counted: Map<string, number> } {
  const byMessage = new Map<string, LogFields[]>()
  const counted = new Map<string, number>()
  const record = (msg: string, fields: LogFields = {}) => {
    counted.set(msg, (counted.get(msg) ?? 0) + 1)
    if (!KEPT_MESSAGES.has(msg)) return
    const list = byMessage.get(msg) ?? []
    list.push(fields)
    byMessage.set(msg, list)
  }
  return { byMessage, counted, debug: () => undefined, info: record, warn: record, error: record }
}

export async function startReviewStack(options: StackOptions): Promise<Stack> {
  const nats: NatsServer = await startNatsServer()
  const forge = createFakeForgejo({
    seed: {
      users: [{ login: ADMIN_LOGIN, admin: true }, { login: 'alice' }],
      tokens: [{ login: ADMIN_LOGIN, name: 'controller', token: ADMIN_TOKEN, scopes: ['all'] }],
      repos: [
        {
          ...REPO,
          files: { [RULES_YML_PATH]: options.rulesYaml },
          pulls: Array.from({ length: options.pulls }, (_, i) => ({
            number: i + 1,
            title: `Change ${i + 1}`,
            headSha: headOf(i + 1),
            commits: options.commits,
            diff: options.diff,
          })),
          collaborators: { 'review-classifier': 'write', alice: 'write' },
        },
      ],
    },
  })
  const secrets = createMemorySecretStore({
    [CONTROLLER_TOKEN_SECRET.path]: { [CONTROLLER_TOKEN_SECRET.field]: ADMIN_TOKEN },
    [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: API_KEY },
  })
  const logger = createCountingLogger()
  const marks = new Map<number, ReviewMarks>()
  const forgeCalls: ForgeCall[] = []
  const postWaiters = new Map<number, Array<() => void>>()
  const posts: Array<{ pr: number; event: string }> = []
  const queue = connectLazily({ url: nats.url, subject: runSubject(SWARM), logger })
  const controller = createController({
    forge: {
      api: timedForge(
        createForgejoForge({ baseUrl: forge.url, token: () => readControllerToken(secrets) }),
        forgeCalls,
        marks,
        (pr, event) => {
          posts.push({ pr, event })
          for (const wake of postWaiters.get(pr) ?? []) wake()
          postWaiters.delete(pr)
        },
      ),
      webUrl: forge.url,
      noreplyDomain: new URL(forge.url).host,
    },
    queue,
    secrets,
    clock: createSystemClock(),
    ids: createRandomIds(),
    logger,
    webhookSecret: WEBHOOK_SECRET,
    runTimeoutMs: 900_000,
    drainTimeoutMs: 30_000,
  })
  const server = controller.app.listen({ port: 0, hostname: '127.0.0.1' })
  const base = `http://127.0.0.1:${server.server?.port}`
  controller.start()

  const classifierClient: NatsClient = await connectNats({
    url: nats.url,
    name: 'bench-classifier',
    firstConnectTimeoutMs: 5_000,
    logger,
  })
  const classifier = options.classifier({ secrets, logger, metrics: createRecordingMetrics() })
  const subscription = await createNatsRunResponder(classifierClient, { subject: runSubject(SWARM) }, { logger }).serve(
    async (text, tell) => {
      const pr = Number(/"pr":(\d+)/.exec(text.slice(0, 2_000))?.[1] ?? 0)
      const mark = marks.get(pr) ?? {}
      marks.set(pr, mark)
      mark.received = performance.now()
      // A tree's classifier may predate the queue's RunEvent: only what the responder carries is passed on.
      const reply = await classifier.handle(text, (event) => {
        const total = event.total ?? 0
        if (event.kind === 'taken') tell({ kind: 'taken', id: event.id, total })
        else if (event.kind === 'row') tell({ kind: 'row', id: event.id, total, row: event.row as never })
      })
      mark.replied = performance.now()
      return reply
    },
  )

  // Ready: the queue connected and the service account's token minted by the first provisioning pass.
  const until = Date.now() + 60_000
  while (!(queue.link.connected() && (await secrets.read(SERVICE_TOKEN.secret.path, SERVICE_TOKEN.secret.field)))) {
    if (Date.now() > until) throw new Error('the controller did not get ready within 60 s')
    await Bun.sleep(20)
  }
  if (options.maxConcurrentReviews !== undefined) {
    const response = await fetch(`${base}/api/review-classifier/settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'Remote-User': 'bench' },
      body: JSON.stringify({ max_concurrent_reviews: options.maxConcurrentReviews }),
    })
    if (!response.ok) throw new Error(`settings PUT answered ${response.status}`)
  }
  const pipeline = controller.pipeline
  if (pipeline === null) throw new Error('the controller has no review pipeline')

  const workDirs: string[] = [mkdtempSync(join(tmpdir(), 'bench-stack-'))]
  return {
    base,
    forge,
    marks,
    forgeCalls,
    logged: (msg) => logger.byMessage.get(msg) ?? [],
    logCount: (msg) => logger.counted.get(msg) ?? 0,
    posts,
    deliveryRequest(pr, shape = {}) {
      const body = goJson(
        reviewRequestPayload({
          owner: REPO.owner,
          repo: REPO.name,
          pr,
          headSha: shape.headSha ?? headOf(pr),
          forgeUrl: forge.url,
          ...(shape.action === undefined ? {} : { action: shape.action }),
          ...(shape.reviewer === undefined ? {} : { reviewer: shape.reviewer, requestedReviewers: [shape.reviewer] }),
        }),
      )
      const headers = deliveryHeaders(body, {
        secret: WEBHOOK_SECRET,
        ...(shape.forged === true ? { signature: 'f'.repeat(64) } : {}),
      })
      return new Request(`${base}/webhook/forge/review-request`, { method: 'POST', headers, body })
    },
    posted(pr) {
      if (marks.get(pr)?.posted !== undefined) return Promise.resolve()
      return new Promise<void>((resolve) => {
        postWaiters.set(pr, [...(postWaiters.get(pr) ?? []), resolve])
      })
    },
    counts: () => pipeline.counts(),
    idle: () => pipeline.idle(),
    async stop() {
      controller.stop()
      await subscription.drain()
      await server.stop(true)
      await queue.close()
      await classifierClient.close()
      await forge.stop()
      await nats.cleanup()
      for (const dir of workDirs) rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** `count` rules as a repo's rules file holds them. */
export function rulesYaml(count: number): string {
  const lines = ['classifications:']
  for (let i = 1; i <= count; i += 1) {
    lines.push(
      `  - name: rule-${i}`,
      `    description: Rule number ${i} holds for every change in this PR.`,
      '    polarity: positive',
      '    threshold: 70',
    )
  }
  return `${lines.join('\n')}\n`
}

export { DEFAULT_CONTEXT_BUDGET_BYTES }
