/**
 * The daily budget's promise (docs/behaviour.md, "Daily budget"): the day's
 * spend passes `budget.daily_usd` by at most one run's cost, whatever runs at
 * once. Two controllers on one real nats-server share the ledger; two
 * classifiers answer from the in-memory model runtime at a fixed cost per
 * classification, under each run's estimate, and write it to the ledger
 * themselves. At once: reviews on both controllers, a repeat try-out on
 * each, and a review of a PR that changes the rules, whose report runs
 * beside them.
 */
import { describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../../adapters/memory/clock.ts'
import { createMemoryForge, type MemoryForge } from '../../../adapters/memory/forge.ts'
import { createSequenceIds } from '../../../adapters/memory/ids.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../../../adapters/memory/metrics.ts'
import { createScriptedModelRuntime, type ScriptedModelRuntime } from '../../../adapters/memory/model-runtime.ts'
import { createInlineRedactor } from '../../../adapters/memory/redactor.ts'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { createNatsKvBuckets } from '../../../adapters/nats/kv.ts'
import { createNatsRunQueue, createNatsRunResponder, runSubject } from '../../../adapters/nats/queue.ts'
import { ok } from '../../../core/base/result.ts'
import { EXAMPLES_YML_PATH } from '../../../core/repo-files/examples-file.ts'
import { RULES_YML_PATH } from '../../../core/repo-files/rules-file.ts'
import { CONTROLLER_TOKEN_SECRET, RUNTIME_KEY_SECRETS, SERVICE_TOKEN } from '../../../core/settings/service-account.ts'
import { createClassifier } from '../../../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../../../entrypoints/classifier/session-limiter.ts'
import { type Controller, createController } from '../../../entrypoints/controller/service.ts'
import { BUDGET_SKIPPED } from '../../../entrypoints/controller/usecases/try-out/try-out-slots.ts'
import { aNumberedPull, aSeedRepo, headOf, TWO_RULES_YAML } from '../../support/builders.ts'
import { useSharedNats } from '../../support/shared-nats.ts'
import { waitFor } from '../../support/waits.ts'
import { signedDelivery } from '../../support/webhook.ts'
import { aTryOutBody, getTryOut, postTryOut } from './try-out-world.ts'

const SECRET = 'two-controllers-hook-secret-3f9d'
const SERVICE_ACCOUNT_TOKEN = 'rc-svc-token-two-controllers'
const REPO = { owner: 'acme', name: 'widgets' }
/** What one classification costs, as the runtime reports it: under any run's estimate (about $0.008). */
const PER_CLASSIFICATION_USD = 0.004
/** Every run here asks two classifications at most. */
const ONE_RUN_USD = 2 * PER_CLASSIFICATION_USD
/** How long a KV call may wait here: on a loaded 2-core machine a starved server outlasts the default 5 s. */
const ROOMY_KV = { timeoutMs: 60_000 }
const BUDGET_USD = 0.1
const REVIEWED = [1, 2, 3, 4, 5, 7, 9, 10]
const EXAMPLES = `examples:\n${[11, 12, 13, 14, 15, 16].map((pr) => `  - pr: ${pr}\n    expect:\n      datetime: match\n`).join('')}`
const PR_RULES = `${TWO_RULES_YAML}  - name: tests\n    description: New code comes with a test.\n    polarity: positive\n    threshold: 70\n`
const RULES_DIFF = `diff --git a/${RULES_YML_PATH} b/${RULES_YML_PATH}\nindex 1111111..2222222 100644\n--- a/${RULES_YML_PATH}\n+++ b/${RULES_YML_PATH}\n@@ -1 +1 @@\n-old\n+new\n`

function aForge(): MemoryForge {
  const files = { [RULES_YML_PATH]: TWO_RULES_YAML, [EXAMPLES_YML_PATH]: EXAMPLES }
  const numbers = [...REVIEWED, 6, 8, 11, 12, 13, 14, 15, 16]
  return createMemoryForge({
    users: [{ login: 'review-classifier' }, { login: 'alice' }],
    tokens: [{ login: 'review-classifier', name: 'swarm-review-classifier', token: SERVICE_ACCOUNT_TOKEN }],
    repos: [
      aSeedRepo({
        collaborators: { 'review-classifier': 'write', alice: 'write' },
        files,
        pulls: [...numbers.map((pr) => aNumberedPull(pr)), aNumberedPull(42, { diff: RULES_DIFF })],
        commits: { [headOf(42)]: { ...files, [RULES_YML_PATH]: PR_RULES } },
      }),
    ],
  })
}

function put(controller: Controller, body: unknown): Promise<Response> {
  return controller.app.handle(
    new Request('http://localhost/api/review-classifier/settings', {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'Remote-User': 'admin' },
      body: JSON.stringify(body),
    }),
  )
}

async function json(response: Response): Promise<Record<string, unknown>> {
  const body: unknown = await response.json()
  if (typeof body !== 'object' || body === null) throw new Error(`not an object: ${JSON.stringify(body)}`)
  return { ...body }
}

describe('the daily budget across two controllers on one NATS', () => {
  const shared = useSharedNats()
  const client = (name: string) => shared.client(name)

  it('passes the budget by at most one run’s cost, with reviews, try-outs and a report running at once', async () => {
    const subject = runSubject('budget-test')
    const forge = aForge()
    const clock = createFixedClock(Date.parse('2026-12-01T12:00:00.000Z'))
    const logger = createRecordingLogger()
    const answer = JSON.stringify({ verdict: 'match', certainty: 95, reason: 'It holds.' })
    const runtimes: ScriptedModelRuntime[] = []
    for (const name of ['classifier-a', 'classifier-b']) {
      const model = createScriptedModelRuntime(() => ok({ text: answer, usage: null, costUsd: PER_CLASSIFICATION_USD }))
      runtimes.push(model)
      const nats = await client(name)
      const classifier = createClassifier({
        runtimes: { 'api-key': model, acp: model, subscription: model },
        secrets: createMemorySecretStore({ [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: 'sk-ant-budget' } }),
        metrics: createRecordingMetrics(),
        logger,
        clock,
        limiter: createSessionLimiter(8),
        classificationTimeoutMs: 60_000,
        contextBudgetBytes: 600_000,
        redactor: createInlineRedactor(),
        buckets: createNatsKvBuckets(nats, ROOMY_KV),
      })
      const responder = createNatsRunResponder(nats, { subject }, { logger })
      shared.serving(await responder.serve((text, tell) => classifier.handle(text, tell)))
    }
    const controllers: Controller[] = []
    for (const name of ['a', 'b']) {
      const nats = await client(`controller-${name}`)
      controllers.push(
        createController({
          forge: { api: forge, webUrl: 'https://forge.example', noreplyDomain: 'forge.example' },
          queue: {
            link: { connected: () => true },
            runQueue: createNatsRunQueue(nats, { subject }),
            buckets: createNatsKvBuckets(nats, ROOMY_KV),
          },
          secrets: createMemorySecretStore({
            [CONTROLLER_TOKEN_SECRET.path]: { [CONTROLLER_TOKEN_SECRET.field]: 'admin-token' },
            [SERVICE_TOKEN.secret.path]: { [SERVICE_TOKEN.secret.field]: SERVICE_ACCOUNT_TOKEN },
          }),
          clock,
          // Run ids are the reservations' keys: each controller's are its own, as UUIDs are.
          ids: createSequenceIds(`${name}-run-`),
          logger,
          webhookSecret: SECRET,
          runTimeoutMs: 60_000,
          drainTimeoutMs: 1_000,
        }),
      )
    }
    const [first, second] = controllers
    if (first === undefined || second === undefined) throw new Error('no controllers')
    expect((await put(first, { budget: { daily_usd: BUDGET_USD }, max_concurrent_reviews: 8 })).status).toBe(200)

    // The rules-changing PR first, so its report is under way while everything else starts.
    const deliver = (controller: Controller, pr: number) =>
      controller.app.handle(signedDelivery({ secret: SECRET }, { pr, headSha: headOf(pr), sender: 'alice' }))
    expect((await deliver(second, 42)).status).toBe(202)
    await waitFor(() => forge.reviews(REPO, 42).length > 0, 'the verdict on the rules-changing PR')
    const tryOut = (controller: Controller, pr: number) =>
      controller.app.handle(postTryOut(aTryOutBody({ pr, repeat: 10 })))
    const started = await Promise.all([
      ...REVIEWED.map((pr, i) => deliver(i % 2 === 0 ? first : second, pr)),
      tryOut(first, 6),
      tryOut(second, 8),
    ])
    expect(started.map((response) => response.status)).toEqual([...REVIEWED.map(() => 202), 202, 202])
    for (const controller of controllers) {
      await controller.pipeline?.idle()
      await controller.tryOuts.idle()
    }

    const spend = await json(await first.app.handle(new Request('http://localhost/api/review-classifier/spend')))
    const classifications = runtimes.reduce((sum, model) => sum + model.calls.length, 0)
    // Every classification's cost is in the ledger once: the classifiers wrote it, the replies added nothing.
    expect(Number(spend.spent_usd)).toBeCloseTo(classifications * PER_CLASSIFICATION_USD, 10)
    expect(Number(spend.reserved_usd)).toBe(0)
    expect(Number(spend.estimated_usd)).toBe(0)
    // The promise: over the budget by less than one run.
    expect(Number(spend.spent_usd)).toBeLessThanOrEqual(BUDGET_USD + ONE_RUN_USD)

    // And the budget did stop work: reviews refused or try-out runs skipped (which, depends on the race).
    const refusedReviews = REVIEWED.filter((pr) =>
      forge.reviews(REPO, pr).some((review) => review.body.includes('(UTC) is spent')),
    )
    const tryOutViews = await Promise.all(
      started.slice(REVIEWED.length).map(async (response, i) => {
        const { id } = await json(response)
        return json(await (i === 0 ? first : second).app.handle(getTryOut(String(id))))
      }),
    )
    const skipped = tryOutViews.filter((view) => String(view.detail).endsWith(BUDGET_SKIPPED))
    expect(refusedReviews.length + skipped.length).toBeGreaterThan(0)
    // The report followed its verdict as a post of its own.
    const [verdict, report] = forge.reviews(REPO, 42)
    expect(verdict?.event).not.toBe('COMMENT')
    expect(report?.event).toBe('COMMENT')
    expect(report?.body.startsWith('**Rules change report**')).toBe(true)
  })
})
