/**
 * The controller, built from its ports: the use cases (the review pipeline,
 * try-outs, open a PR, the stores, provisioning, readiness) and the HTTP app
 * that serves them. The entrypoint (`entrypoints/controller.ts`) reads the
 * configuration, builds the adapters and hands them here, as the classifier's
 * does with `createClassifier`.
 *
 * What isn't configured (no forge, no webhook secret) or reachable (no queue)
 * still serves: those routes answer 503 and `/readyz` says which is missing.
 */
import { type AnyElysia, Elysia } from 'elysia'
import { CONTROLLER_TOKEN_SECRET, SERVICE_ACCOUNT } from '../../core/settings/service-account.ts'
import type { Clock } from '../../ports/clock.ts'
import type { Forge } from '../../ports/forge.ts'
import type { Ids } from '../../ports/ids.ts'
import type { KvBuckets } from '../../ports/kv.ts'
import type { Logger } from '../../ports/logger.ts'
import type { Metrics } from '../../ports/metrics.ts'
import type { QueueLink, QueueWatch, RunQueue } from '../../ports/queue.ts'
import type { SecretStore } from '../../ports/secret-store.ts'
import { createControllerApp } from './http/app.ts'
import { HttpProblem, problemResponse } from './http/problem.ts'
import { examplesRoutes } from './http/routes/examples.ts'
import { openPrRoutes } from './http/routes/open-pr.ts'
import { pullsRoutes } from './http/routes/pulls.ts'
import { rulesRoutes } from './http/routes/rules.ts'
import { rulesHealthRoutes } from './http/routes/rules-health.ts'
import { spendRoutes } from './http/routes/spend.ts'
import { tryOutRoutes } from './http/routes/try-out.ts'
import { uiRoutes } from './http/routes/ui.ts'
import { WEBHOOK_PATH, webhookRoutes } from './http/webhook.ts'
import { createOpenPr } from './usecases/repo-files/open-pr.ts'
import {
  createReviewPipeline,
  DRAIN_POST_MARGIN_MS,
  type DrainReport,
  type ReviewPipeline,
  settlesWithin,
} from './usecases/review/review-pipeline.ts'
import { createRuleHealthStore, type RuleHealthStore } from './usecases/review/rule-health.ts'
import { RUN_REPLY_MARGIN_MS } from './usecases/run/run-exchange.ts'
import { createKvRunStore } from './usecases/run/run-store.ts'
import { forgeCheck, queueCheck, secretStoreCheck, subscriptionTokenCheck } from './usecases/settings/readiness.ts'
import { createServiceAccountProvisioner } from './usecases/settings/service-account.ts'
import { createKvSettingsStore } from './usecases/settings/settings-store.ts'
import { createSpendLedger, RESERVATION_GRACE_MS } from './usecases/settings/spend-ledger.ts'
import { createTryOuts, type TryOuts } from './usecases/try-out/try-outs.ts'

/** A try-out in hand when the controller stops: its runs are cancelled, and it ends failed with this. */
export const TRY_OUT_STOPPED_REASON =
  'the controller was stopping (restarted or shut down), so this try-out was stopped and its runs cancelled'

export type ControllerDeps = {
  /** The forge on the controller's own token, with its web root and noreply domain; `null` without `FORGE_URL`. */
  forge: { api: Forge; webUrl: string; noreplyDomain: string } | null
  /**
   * The swarm queue: its connection state, the run queue and the KV buckets;
   * with `watch`, a review that can't reach it waits for it (up to `RUN_TIMEOUT_S`).
   */
  queue: { link: QueueLink; runQueue: RunQueue; buckets: KvBuckets; watch?: QueueWatch }
  secrets: SecretStore
  clock: Clock
  ids: Ids
  logger: Logger
  /** `FORGE_WEBHOOK_SECRET`; `null` refuses every delivery. */
  webhookSecret: string | null
  /** `RUN_TIMEOUT_S` in milliseconds: how long a run may take before the controller gives up on its reply. */
  runTimeoutMs: number
  /** `DRAIN_TIMEOUT_S` in milliseconds: how long `drain` lets the running reviews go on. */
  drainTimeoutMs: number
  /** After the drain bound, how long the no-verdict comments may take; default the pipeline's. */
  drainPostMarginMs?: number
  /** `ALLOWED_HOSTS`: the host names a request's `Host` may name; `null` or left out answers any. */
  allowedHosts?: readonly string[] | null
  /** Where the day's spend gauge and the rule outcome counter go; none: nowhere. */
  metrics?: Pick<Metrics, 'setDaySpend' | 'addRuleOutcome'>
}

export type Controller = {
  /** The HTTP app: webhook, admin API, health, OpenAPI, and the operator's pages under /ui/. */
  app: AnyElysia
  /** The requested-review pipeline; `null` without a forge. */
  pipeline: ReviewPipeline | null
  tryOuts: TryOuts
  /** Each rule's health: the waiver comment records a waiver with `recordWaiver`. */
  ruleHealth: RuleHealthStore
  /** Starts the service account's provisioning (a pass now and every five minutes); a no-op without a forge. */
  start(): void
  /** Stops the provisioning schedule (a pass in hand finishes). */
  stop(): void
  /**
   * On SIGTERM (docs/decisions.md, "The run"), the one place the drain is
   * ordered: the provisioning schedule stops; no new review or try-out
   * starts; the running reviews get `drainTimeoutMs` to finish, and those
   * still running then post a no-verdict comment; the waiting ones are
   * dropped, each named in the log; a delivery meanwhile gets the stopping
   * comment. The rules-change reports under way stop at once and post what
   * they had. Try-outs in hand are stopped: each run still waiting is
   * cancelled at the classifier, none more is sent, and each ends `failed`
   * and is recorded within the comments' margin (their result lives only in
   * this process). `closeHttp` stops the server once the reviews are done,
   * and a delivery it let in still gets its comment.
   * `null` without a forge (no reviews to drain).
   */
  drain(closeHttp?: () => Promise<unknown>): Promise<DrainReport | null>
}

export function createController(deps: ControllerDeps): Controller {
  const { forge, queue, secrets, clock, ids, logger } = deps
  const settings = createKvSettingsStore({ buckets: queue.buckets, logger })
  const runs = createKvRunStore({ buckets: queue.buckets, logger })
  const ruleHealth = createRuleHealthStore({
    buckets: queue.buckets,
    clock,
    logger,
    ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
  })
  const spend = createSpendLedger({
    buckets: queue.buckets,
    settings,
    clock,
    logger,
    // Held while the controller waits for the reply, and a while after for a classifier still ending the run.
    reservationTtlMs: deps.runTimeoutMs + RUN_REPLY_MARGIN_MS + RESERVATION_GRACE_MS,
    ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
  })
  // Every run, of every kind, reserves its cost in the ledger before it starts (budgeted-run.ts).
  const runQueue = queue.runQueue
  const exchange = { runTimeoutMs: deps.runTimeoutMs }
  const api = forge?.api ?? null

  let stopping = false
  // A try-out of any kind started now would be dropped with the process: refuse it, and the page can
  // try again. The POST asks before its forge reads, so a refused one costs none.
  const tryOuts = createTryOuts({
    queue: runQueue,
    runs,
    clock,
    ids,
    logger,
    exchange,
    spend,
    admit() {
      if (stopping) throw new HttpProblem(503, 'the controller is stopping (a restart or shutdown): try again shortly')
    },
  })
  const provisioner = api === null ? null : createServiceAccountProvisioner({ forge: api, secrets, logger, clock })
  // Nothing is posted or pushed as an account an admin stopped (service-account.ts).
  const serviceAccount = provisioner === null ? {} : { serviceAccount: provisioner }
  const pipeline =
    api === null
      ? null
      : createReviewPipeline({
          forge: api,
          queue: runQueue,
          secrets,
          settings,
          runs,
          clock,
          ids,
          logger,
          exchange,
          spend,
          ruleHealth,
          ...serviceAccount,
          ...(queue.watch === undefined ? {} : { queueWatch: queue.watch }),
        })
  const openPr = forge === null ? null : createOpenPr({ forge, secrets, ids, logger, ...serviceAccount })

  const routes: AnyElysia[] = [
    tryOutRoutes({ queue: queue.link, forge: api, settings, tryOuts, logger, spend }),
    spendRoutes({ queue: queue.link, spend, logger }),
    rulesRoutes({ forge: api, logger }),
    rulesHealthRoutes({ forge: api, queue: queue.link, health: ruleHealth, clock, logger }),
    examplesRoutes({ forge: api, logger }),
    pullsRoutes({ forge: api, logger }),
    openPrRoutes({ openPr }),
    uiRoutes({ forgeUrl: forge?.webUrl ?? null, logger }),
    pipeline === null
      ? new Elysia({ name: 'webhook-unconfigured' }).post(WEBHOOK_PATH, () =>
          problemResponse(503, 'the forge is not configured: set FORGE_URL'),
        )
      : webhookRoutes({ secret: deps.webhookSecret, pipeline, logger }),
  ]
  const readControllerToken = () => secrets.read(CONTROLLER_TOKEN_SECRET.path, CONTROLLER_TOKEN_SECRET.field)
  const app = createControllerApp({
    queue: queue.link,
    settings,
    runs,
    logger,
    routes,
    allowedHosts: deps.allowedHosts ?? null,
    checks: [
      queueCheck(queue.link),
      forgeCheck({
        forge: api,
        hasToken: async () => (await readControllerToken()) !== null,
        login: SERVICE_ACCOUNT.login,
      }),
      secretStoreCheck(secrets, CONTROLLER_TOKEN_SECRET.path, CONTROLLER_TOKEN_SECRET.field),
      subscriptionTokenCheck({ settings, secrets }),
    ],
  })

  let schedule: { stop(): void } | null = null
  return {
    app,
    pipeline,
    tryOuts,
    ruleHealth,
    start() {
      if (provisioner === null) {
        logger.warn('FORGE_URL is not set: no reviews, no service account', {})
        return
      }
      schedule ??= provisioner.start()
    },
    stop() {
      schedule?.stop()
      schedule = null
    },
    async drain(closeHttp) {
      schedule?.stop()
      schedule = null
      stopping = true
      // Dropped with the process anyway: stopped now, each run in hand is cancelled at the classifier.
      tryOuts.stop(new Error(TRY_OUT_STOPPED_REASON))
      const report =
        pipeline === null
          ? null
          : await pipeline.drain({
              boundMs: deps.drainTimeoutMs,
              ...(deps.drainPostMarginMs === undefined ? {} : { postMarginMs: deps.drainPostMarginMs }),
            })
      await closeHttp?.()
      // What came in while the server closed: the pipeline bounds it like the rest of the drain's comments.
      await pipeline?.settle()
      // The stopped try-outs' records, bounded as the comments are.
      await settlesWithin(tryOuts.idle(), deps.drainPostMarginMs ?? DRAIN_POST_MARGIN_MS)
      return report
    },
  }
}
