/**
 * The controller process: the forge's webhook, the review pipeline, the
 * settings and runs API, health, and the service account's provisioning.
 *
 * It serves HTTP at once: what isn't configured or reachable yet (no forge
 * URL, no forge token, no queue) shows in /readyz and in log lines, and the
 * routes that need it answer 503; nothing crashes.
 */
import { resolve } from 'node:path'
import { type AnyElysia, Elysia } from 'elysia'
import { createForgejoForge } from '../adapters/forgejo/forge.ts'
import { connectLazily } from '../adapters/nats/lazy-queue.ts'
import { runSubject } from '../adapters/nats/queue.ts'
import { createSystemClock } from '../adapters/system/clock.ts'
import { createRandomIds } from '../adapters/system/ids.ts'
import { createJsonLogger } from '../adapters/system/logger.ts'
import type { Forge } from '../ports/forge.ts'
import { parseControllerConfig } from './config.ts'
import { createControllerApp } from './controller/http/app.ts'
import { problemResponse } from './controller/http/problem.ts'
import { forgeCheck, queueCheck, secretStoreCheck } from './controller/http/routes/health.ts'
import { openPrRoutes } from './controller/http/routes/open-pr.ts'
import { pullsRoutes } from './controller/http/routes/pulls.ts'
import { rulesRoutes } from './controller/http/routes/rules.ts'
import { tryOutRoutes } from './controller/http/routes/try-out.ts'
import { WEBHOOK_BODY_MAX_BYTES, WEBHOOK_PATH, webhookRoutes } from './controller/http/webhook.ts'
import { createReviewPipeline } from './controller/usecases/review-pipeline.ts'
import { runReplyTimeoutMs } from './controller/usecases/review-run.ts'
import { createKvRunStore } from './controller/usecases/run-store.ts'
import { createServiceAccountProvisioner, SERVICE_ACCOUNT } from './controller/usecases/service-account.ts'
import { createKvSettingsStore } from './controller/usecases/settings-store.ts'
import { createTryOuts } from './controller/usecases/try-outs.ts'
import { createSecretStore } from './wiring.ts'

/** The controller's own site-admin token (docs/decisions.md, "Secrets"). */
const CONTROLLER_TOKEN = { path: 'swarm/services/swarm-controller/forge/token', field: 'token' } as const

async function main(): Promise<void> {
  const parsed = parseControllerConfig(process.env, resolve(import.meta.dir, '..'))
  if (!parsed.ok) {
    process.stderr.write(`controller: configuration error: ${parsed.error}\n`)
    process.exit(1)
  }
  const config = parsed.value
  const logger = createJsonLogger({ level: config.logLevel })
  const secrets = createSecretStore(config.secrets)
  const clock = createSystemClock()
  const readControllerToken = () => secrets.read(CONTROLLER_TOKEN.path, CONTROLLER_TOKEN.field)

  const queue = connectLazily({ url: config.natsUrl, subject: runSubject(config.swarm), logger })
  const settings = createKvSettingsStore({ buckets: queue.buckets, logger })
  const runs = createKvRunStore({ buckets: queue.buckets, logger })
  const forge: Forge | null =
    config.forgeUrl === null ? null : createForgejoForge({ baseUrl: config.forgeUrl, token: readControllerToken })

  const ids = createRandomIds()
  const replyTimeoutMs = runReplyTimeoutMs(config.runTimeoutMs / 1000)
  const tryOuts = createTryOuts({ queue: queue.runQueue, runs, clock, ids, logger, replyTimeoutMs })
  const routes: AnyElysia[] = [
    tryOutRoutes({ queue: queue.link, forge, settings, tryOuts, logger }),
    rulesRoutes({ forge, logger }),
    pullsRoutes({ forge, logger }),
    openPrRoutes({
      forge:
        forge === null || config.forgeUrl === null || config.noreplyDomain === null
          ? null
          : { api: forge, webUrl: config.forgeUrl, noreplyDomain: config.noreplyDomain },
      secrets,
      ids,
      logger,
    }),
  ]
  if (forge !== null) {
    const pipeline = createReviewPipeline({
      forge,
      queue: queue.runQueue,
      secrets,
      settings,
      runs,
      clock,
      ids,
      logger,
      replyTimeoutMs,
    })
    routes.push(webhookRoutes({ secret: config.webhookSecret, pipeline, logger }))
  } else {
    routes.push(
      new Elysia({ name: 'webhook-unconfigured' }).post(WEBHOOK_PATH, () =>
        problemResponse(503, 'the forge is not configured: set FORGE_URL'),
      ),
    )
  }

  const app = createControllerApp({
    queue: queue.link,
    settings,
    runs,
    logger,
    routes,
    checks: [
      queueCheck(queue.link),
      forgeCheck({ forge, hasToken: async () => (await readControllerToken()) !== null, login: SERVICE_ACCOUNT.login }),
      secretStoreCheck(secrets, CONTROLLER_TOKEN.path, CONTROLLER_TOKEN.field),
    ],
  })
  // Bun's own body limit sits just above the webhook's, so an oversized
  // delivery reaches the route and gets its 413 problem+json.
  const server = app.listen({
    port: config.port,
    hostname: '0.0.0.0',
    maxRequestBodySize: WEBHOOK_BODY_MAX_BYTES + 1024 * 1024,
  })
  logger.info('controller listening', {
    port: server.server?.port,
    forge: config.forgeUrl ?? 'not configured',
    webhook_secret: config.webhookSecret === null ? 'not set' : 'set',
    secrets: config.secrets.kind,
  })

  const provisioning =
    forge === null ? null : createServiceAccountProvisioner({ forge, secrets, logger, clock }).start()
  if (forge === null) logger.warn('FORGE_URL is not set: no reviews, no service account', {})

  let stopping = false
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return
    stopping = true
    logger.info('controller stopping', { signal })
    provisioning?.stop()
    await server.stop()
    await queue.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

await main()
