/**
 * The controller process: reads its configuration, builds the adapters
 * (Forgejo, the lazily connected NATS queue, the secret store, the clock,
 * ids and log), hands them to `createController`, serves HTTP and stops on
 * SIGTERM/SIGINT.
 *
 * It serves HTTP at once: what isn't configured or reachable yet (no forge
 * URL, no forge token, no queue) shows in /readyz and in log lines, and the
 * routes that need it answer 503; nothing crashes.
 */
import { resolve } from 'node:path'
import { createForgejoForge } from '../adapters/forgejo/forge.ts'
import { connectLazily } from '../adapters/nats/lazy-queue.ts'
import { runSubject } from '../adapters/nats/queue.ts'
import { createConfiguredMetrics } from '../adapters/otel/metrics.ts'
import { createSystemClock } from '../adapters/system/clock.ts'
import { createRandomIds } from '../adapters/system/ids.ts'
import { createJsonLogger } from '../adapters/system/logger.ts'
import { parseControllerConfig } from './config.ts'
import { createSecretStore } from './configured-secret-store.ts'
import { WEBHOOK_BODY_MAX_BYTES } from './controller/http/routes/webhook.ts'
import { serveController } from './controller/http/server.ts'
import { createController } from './controller/service.ts'
import { readControllerToken } from './controller/usecases/settings/service-token.ts'

async function main(): Promise<void> {
  const parsed = parseControllerConfig(process.env, resolve(import.meta.dir, '..'))
  if (!parsed.ok) {
    process.stderr.write(`controller: configuration error: ${parsed.error}\n`)
    process.exit(1)
  }
  const config = parsed.value
  const logger = createJsonLogger({ level: config.logLevel })
  const secrets = createSecretStore(config.secrets)
  const queue = connectLazily({ url: config.natsUrl, auth: config.natsAuth, subject: runSubject(config.swarm), logger })
  const metrics = createConfiguredMetrics(
    { endpoint: config.otlpEndpoint ?? undefined, serviceName: 'review-classifier' },
    { logger },
  )
  const controller = createController({
    forge:
      config.forgeUrl === null || config.noreplyDomain === null
        ? null
        : {
            api: createForgejoForge({ baseUrl: config.forgeUrl, token: () => readControllerToken(secrets), logger }),
            webUrl: config.forgeUrl,
            noreplyDomain: config.noreplyDomain,
          },
    // Its link is also the watch a review waits on when it can't reach the queue.
    queue: { link: queue.link, runQueue: queue.runQueue, buckets: queue.buckets, watch: queue.link },
    secrets,
    clock: createSystemClock(),
    ids: createRandomIds(),
    logger,
    webhookSecret: config.webhookSecret,
    runTimeoutMs: config.runTimeoutMs,
    drainTimeoutMs: config.drainTimeoutMs,
    allowedHosts: config.allowedHosts,
    metrics: metrics.metrics,
  })

  // The listener checks each request target as the client wrote it before any route (server.ts). Its body
  // limit sits just above the webhook's, so an oversized delivery reaches the route and gets its 413
  // problem+json. `HOST` is loopback unless a deploy says otherwise: whoever reaches this port may name any
  // Remote-User (docs/decisions.md, "Who may call the controller").
  const server = await serveController((request) => controller.app.handle(request), {
    hostname: config.host,
    port: config.port,
    maxBodyBytes: WEBHOOK_BODY_MAX_BYTES + 1024 * 1024,
    logger,
  })
  logger.info('controller listening', {
    host: config.host,
    port: server.port,
    allowed_hosts: config.allowedHosts?.join(',') ?? 'any',
    forge: config.forgeUrl ?? 'not configured',
    webhook_secret: config.webhookSecret === null ? 'not set' : 'set',
    secrets: config.secrets.kind,
  })
  controller.start()

  // SIGTERM drains (docs/decisions.md, "The run"): the server stays up for the
  // webhook until the reviews in hand are done or stopped. SIGKILL can't be
  // helped: the reviews in hand then stay pending on the forge with no word.
  let stopping = false
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return
    stopping = true
    logger.info('controller stopping', { signal, drain_timeout_s: config.drainTimeoutMs / 1000 })
    await controller.drain(() => server.stop())
    await queue.close()
    await metrics.shutdown()
    logger.info('controller stopped', {})
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

await main()
