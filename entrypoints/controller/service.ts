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
import { appError } from '../../core/base/errors.ts'
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
import { problemResponse } from './http/problem.ts'
import { examplesRoutes } from './http/routes/examples.ts'
import { FORGE_WEBHOOK_PATH, forgeWebhookRoutes } from './http/routes/forge-webhook.ts'
import { healthRoutes } from './http/routes/health.ts'
import { labelsRoutes } from './http/routes/labels.ts'
import { openPrRoutes } from './http/routes/open-pr.ts'
import { pullsRoutes } from './http/routes/pulls.ts'
import { rulesRoutes } from './http/routes/rules.ts'
import { rulesHealthRoutes } from './http/routes/rules-health.ts'
import { runsRoutes } from './http/routes/runs.ts'
import { settingsRoutes } from './http/routes/settings.ts'
import { spendRoutes } from './http/routes/spend.ts'
import { tryOutRoutes } from './http/routes/try-out.ts'
import { uiRoutes } from './http/routes/ui.ts'
import { WEBHOOK_PATH, webhookRoutes } from './http/routes/webhook.ts'
import { createOpenPr } from './usecases/repo-files/open-pr.ts'
import { createKvPrLabelStore, type PrLabelStore } from './usecases/repo-files/pr-labels.ts'
import { type CommentCommands, createCommentCommands } from './usecases/review/comment-commands.ts'
import {
  createReviewPipeline,
  DRAIN_POST_MARGIN_MS,
  type DrainReport,
  type ReviewPipeline,
  settlesWithin,
} from './usecases/review/review-pipeline.ts'
import { createRuleHealthStore, type RuleHealthStore } from './usecases/review/rule-health.ts'
import { createWaivers } from './usecases/review/waivers.ts'
import { RUN_REPLY_MARGIN_MS } from './usecases/run/run-exchange.ts'
import { createKvRunStore } from './usecases/run/run-store.ts'
import { forgeCheck, queueCheck, secretStoreCheck, subscriptionTokenCheck } from './usecases/settings/readiness.ts'
import { createServiceAccountProvisioner } from './usecases/settings/service-account.ts'
import { readControllerToken, type ServiceAccountGate } from './usecases/settings/service-token.ts'
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
  /** The PR-comment commands (waivers and labels); `null` without a forge. */
  comments: CommentCommands | null
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

/** The controller's stores in the queue's buckets: settings, run records, the spend ledger and each rule's health. */
function createStores({ queue, clock, logger, runTimeoutMs, metrics }: ControllerDeps) {
  const settings = createKvSettingsStore({ buckets: queue.buckets, logger })
  const runs = createKvRunStore({ buckets: queue.buckets, logger })
  const ruleHealth = createRuleHealthStore({
    buckets: queue.buckets,
    clock,
    logger,
    ...(metrics === undefined ? {} : { metrics }),
  })
  const spend = createSpendLedger({
    buckets: queue.buckets,
    settings,
    clock,
    logger,
    // Held while the controller waits for the reply, and a while after for a classifier still ending the run.
    reservationTtlMs: runTimeoutMs + RUN_REPLY_MARGIN_MS + RESERVATION_GRACE_MS,
    ...(metrics === undefined ? {} : { metrics }),
  })
  return { settings, runs, spend, ruleHealth }
}

/** What reviews and PR comments need: the waivers, the review pipeline, the comment commands; all null without a forge. */
function createReviewSide(
  deps: ControllerDeps,
  parts: {
    api: NonNullable<ControllerDeps['forge']>['api'] | null
    stores: ReturnType<typeof createStores> & { labels: PrLabelStore }
    runQueue: RunQueue
    exchange: { runTimeoutMs: number }
    serviceAccount: { serviceAccount?: ServiceAccountGate }
  },
) {
  const { queue, secrets, clock, ids, logger } = deps
  const { api, runQueue, exchange, serviceAccount } = parts
  const { settings, runs, spend, labels, ruleHealth } = parts.stores
  // The waivers ask the pipeline whether a head's review is still going, and the pipeline tells them when it ends.
  let pipelineRef: ReviewPipeline | null = null
  const waivers =
    api === null
      ? null
      : createWaivers({
          forge: api,
          secrets,
          runs,
          clock,
          ids,
          logger,
          ...serviceAccount,
          reviewing: (request) => pipelineRef?.reviewing(request) ?? false,
          // Each waiver applied is counted in its rule's health (it never rejects: a failed write is logged).
          onWaiver: (waiver, record) => {
            void ruleHealth.recordWaiver({
              repo: record.repo,
              rule: waiver.rule,
              ...(record.pr === undefined ? {} : { pr: record.pr }),
            })
          },
        })
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
          ...(waivers === null ? {} : { waivers, onSettled: (request) => waivers.reviewSettled(request) }),
        })
  pipelineRef = pipeline
  const comments =
    api === null || waivers === null
      ? null
      : createCommentCommands({
          forge: api,
          secrets,
          settings,
          runs,
          labels,
          waivers,
          clock,
          logger,
          ...serviceAccount,
        })
  return { pipeline, comments }
}

export function createController(deps: ControllerDeps): Controller {
  const { forge, queue, secrets, clock, ids, logger } = deps
  const stores = createStores(deps)
  const { settings, runs, spend, ruleHealth } = stores
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
      if (stopping)
        throw appError('unavailable', 'the controller is stopping (a restart or shutdown): try again shortly')
    },
  })
  const provisioner = api === null ? null : createServiceAccountProvisioner({ forge: api, secrets, logger, clock })
  // Nothing is posted or pushed as an account an admin stopped (service-account.ts).
  const serviceAccount = provisioner === null ? {} : { serviceAccount: provisioner }
  const labels = createKvPrLabelStore(queue.buckets)
  const { pipeline, comments } = createReviewSide(deps, {
    api,
    stores: { ...stores, labels },
    runQueue,
    exchange,
    serviceAccount,
  })
  const openPr = forge === null ? null : createOpenPr({ forge, secrets, ids, logger, ...serviceAccount })

  const readinessChecks = [
    queueCheck(queue.link),
    forgeCheck({
      forge: api,
      hasToken: async () => (await readControllerToken(secrets)) !== null,
      login: SERVICE_ACCOUNT.login,
    }),
    secretStoreCheck(secrets, CONTROLLER_TOKEN_SECRET.path, CONTROLLER_TOKEN_SECRET.field),
    subscriptionTokenCheck({ settings, secrets }),
  ]
  // Every route the controller serves, in the order they are mounted: the one list.
  const routes: AnyElysia[] = [
    healthRoutes({ checks: readinessChecks }),
    settingsRoutes({ queue: queue.link, settings, logger }),
    runsRoutes({ queue: queue.link, runs, logger }),
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
    pipeline === null || comments === null
      ? new Elysia({ name: 'forge-webhook-unconfigured' }).post(FORGE_WEBHOOK_PATH, () =>
          problemResponse(503, 'the forge is not configured: set FORGE_URL'),
        )
      : forgeWebhookRoutes({ secret: deps.webhookSecret, pipeline, comments, logger }),
    labelsRoutes({ queue: queue.link, labels, logger }),
  ]
  const app = createControllerApp({ logger, routes, allowedHosts: deps.allowedHosts ?? null })

  let schedule: { stop(): void } | null = null
  return {
    app,
    pipeline,
    comments,
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
      // The stopped try-outs' records, and the comment commands in hand, bounded as the comments are.
      await settlesWithin(
        Promise.all([tryOuts.idle(), comments?.idle()]),
        deps.drainPostMarginMs ?? DRAIN_POST_MARGIN_MS,
      )
      return report
    },
  }
}
