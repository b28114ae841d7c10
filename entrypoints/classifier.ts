/**
 * The classifier process: the queue worker on `<SWARM>.review-classifier.try-out`
 * (queue group `review-classifier`) that runs each request's classifications
 * on the claude or opencode runtime and answers the run reply.
 *
 * SIGTERM/SIGINT drain: no new run is taken, the runs in hand finish (or,
 * past the grace period, their sessions are stopped and they answer with no
 * verdict), every reply goes out, then the process exits.
 *
 * At start, before it takes a run, it ends the model process groups a dead
 * classifier left in `WORK_DIR` and removes that one's directories
 * (adapters/process/records.ts); its own sessions are recorded under
 * a directory of its own, which a live classifier sharing the `WORK_DIR`
 * leaves alone.
 */

import { join, resolve } from 'node:path'
import { type ClaudeRuntimeConfig, createClaudeRuntime } from '../adapters/claude/runtime.ts'
import { ensurePrivateDir } from '../adapters/fs/private-dir.ts'
import { connectNats } from '../adapters/nats/connection.ts'
import { createNatsKvBuckets } from '../adapters/nats/kv.ts'
import { createNatsRunResponder, runSubject } from '../adapters/nats/queue.ts'
import { createOpencodeRuntime } from '../adapters/opencode/runtime.ts'
import { createConfiguredMetrics } from '../adapters/otel/metrics.ts'
import { endLeftovers, type Instance, startInstance } from '../adapters/process/records.ts'
import { createSystemClock } from '../adapters/system/clock.ts'
import { createJsonLogger } from '../adapters/system/logger.ts'
import { createWorkerRedactor } from '../adapters/worker/redactor.ts'
import { DEFAULT_CONTEXT_BUDGET_BYTES } from '../core/run/budget.ts'
import type { Runtime } from '../core/wire/types.ts'
import type { Logger } from '../ports/logger.ts'
import type { ModelRuntime } from '../ports/model-runtime.ts'
import { createClassifier, DRAIN_GRACE_MS } from './classifier/service.ts'
import { createSessionLimiter } from './classifier/session-limiter.ts'
import { type ClassifierConfig, parseClassifierConfig } from './config.ts'
import { createSecretStore } from './configured-secret-store.ts'

const FIRST_CONNECT_TIMEOUT_MS = 15_000

/** What the process's runs are answered with, given its configuration, its instance (for process records) and its log. */
export type RuntimesFactory = (
  config: ClassifierConfig,
  instance: Instance,
  logger: Logger,
) => Record<Runtime, ModelRuntime>

/** The real runtimes: the `claude` CLI on an API key or a subscription's token, and `opencode acp`. */
export function realRuntimes(
  config: ClassifierConfig,
  instance: Instance,
  logger: Logger,
): Record<Runtime, ModelRuntime> {
  const claude: ClaudeRuntimeConfig = {
    claudeBin: config.claudeBin,
    workDir: join(instance.dir, 'claude'),
    sharedCwd: join(config.workDir, 'claude', 'cwd'),
    passEnv: config.passEnv,
    records: instance,
    ...(config.otlpEndpoint === null ? {} : { otlpEndpoint: config.otlpEndpoint }),
  }
  return {
    'api-key': createClaudeRuntime(claude, logger),
    // The same CLI on a subscription's OAuth token: only the credential's variable differs.
    subscription: createClaudeRuntime({ ...claude, credential: 'oauth-token' }, logger),
    acp: createOpencodeRuntime(
      {
        opencodeBin: config.opencodeBin,
        workDir: join(config.workDir, 'opencode'),
        runsDir: join(instance.dir, 'opencode'),
        passEnv: config.passEnv,
        records: instance,
      },
      logger,
    ),
  }
}

/**
 * The process: configuration, leftovers, the queue worker and the drain. `makeRuntimes` is the
 * real runtimes when this file is run; a test's own entry (test/support/scripted-classifier.ts)
 * imports this and gives scripted ones, so nothing a deployed service's environment holds can
 * swap them.
 */
export async function runClassifier(makeRuntimes: RuntimesFactory = realRuntimes): Promise<void> {
  const root = resolve(import.meta.dir, '..')
  const parsed = parseClassifierConfig(process.env, root)
  if (!parsed.ok) {
    process.stderr.write(`classifier: configuration error: ${parsed.error}\n`)
    process.exit(1)
  }
  const config = parsed.value
  // The model processes run under it and read what is around them: it must be this user's alone.
  const workDirProblem = ensurePrivateDir('WORK_DIR', config.workDir, process.getuid?.() ?? 0)
  if (workDirProblem !== null) {
    process.stderr.write(`classifier: configuration error: ${workDirProblem}\n`)
    process.exit(1)
  }
  const logger = createJsonLogger({ level: config.logLevel })
  await endLeftovers(config.workDir, logger)
  // Session directories go under the instance's own; the shared empty working directories stay where every instance finds them.
  const instance = startInstance(config.workDir)

  const metrics = createConfiguredMetrics(
    { endpoint: config.otlpEndpoint ?? undefined, serviceName: 'review-classifier' },
    { logger },
  )
  // Connected before the classifier is built: it writes each session's cost to the ledger on the queue's KV.
  let nats: Awaited<ReturnType<typeof connectNats>>
  try {
    nats = await connectNats({
      url: config.natsUrl,
      auth: config.natsAuth,
      name: 'review-classifier',
      firstConnectTimeoutMs: FIRST_CONNECT_TIMEOUT_MS,
      logger,
    })
  } catch (error) {
    logger.error('cannot connect to the queue; exiting', { error })
    await metrics.shutdown()
    process.exit(1)
  }
  const classifier = createClassifier({
    runtimes: makeRuntimes(config, instance, logger),
    secrets: createSecretStore(config.secrets),
    metrics: metrics.metrics,
    logger,
    clock: createSystemClock(),
    limiter: createSessionLimiter(config.maxSessions),
    classificationTimeoutMs: config.classificationTimeoutMs,
    contextBudgetBytes: DEFAULT_CONTEXT_BUDGET_BYTES,
    // A worker thread: a long redaction never holds the loop the heartbeats and other runs need.
    redactor: createWorkerRedactor(),
    acpBaseUrls: config.acpBaseUrls,
    buckets: createNatsKvBuckets(nats),
  })

  const subject = runSubject(config.swarm)
  // Every classifier hears every cancel: the run it names may be in any one's hands.
  const subscription = await createNatsRunResponder(nats, { subject }, { logger }).serve(
    (text, tell) => classifier.handle(text, tell),
    (id) => classifier.cancel(id),
  )
  logger.info('review classifier listening', {
    subject,
    nats: nats.safeUrl,
    max_sessions: config.maxSessions,
    classification_timeout_s: config.classificationTimeoutMs / 1000,
    secrets: config.secrets.kind,
    metrics: config.otlpEndpoint === null ? 'off' : 'otlp',
    acp_base_urls: config.acpBaseUrls ?? 'any',
  })

  let stopping = false
  const stop = async (signal: string): Promise<void> => {
    if (stopping) {
      // A second signal: stop the sessions now; their runs still answer.
      classifier.abortAll()
      return
    }
    stopping = true
    logger.info('review classifier draining', { signal, grace_s: DRAIN_GRACE_MS / 1000 })
    await classifier.drain(subscription)
    // Every run has answered, so every session has ended: nothing of this instance is left to record.
    await instance.remove()
    await metrics.shutdown()
    await nats.close()
    logger.info('review classifier stopped', {})
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

if (import.meta.main) await runClassifier()
