/**
 * The controller's hold on the swarm queue. The controller serves HTTP from
 * its first second, whether or not NATS is up: until the connection exists,
 * the KV and queue ports fail with `unavailable` (the routes answer 503) and
 * `/readyz` says so; a background loop keeps trying to connect. Its link
 * is also what a review waits on, for the first connect or a reconnect,
 * when it can't reach the queue (usecases/run/queue-reach.ts).
 */

import { raceAbort } from '../../core/base/abort.ts'
import { appError } from '../../core/base/errors.ts'
import type { KvBuckets } from '../../ports/kv.ts'
import type { Logger } from '../../ports/logger.ts'
import type { QueueWatch, RunQueue } from '../../ports/queue.ts'
import { connectNats, type NatsAuth, type NatsClient } from './connection.ts'
import { createNatsKvBuckets } from './kv.ts'
import { createNatsRunQueue } from './queue.ts'

export type LazyQueue = {
  /** Its state now, and a wait for it to connect (the first time, or again). */
  link: QueueWatch
  buckets: KvBuckets
  runQueue: RunQueue
  /** Resolves once connected (or stopped). */
  ready: Promise<void>
  close(): Promise<void>
}

export function connectLazily(config: {
  url: string
  auth?: NatsAuth
  subject: string
  logger: Logger
  retryMs?: number
}): LazyQueue {
  let client: NatsClient | null = null
  let buckets: KvBuckets | null = null
  let runQueue: RunQueue | null = null
  let stopped = false

  const ready = (async () => {
    while (!stopped) {
      try {
        client = await connectNats({
          url: config.url,
          ...(config.auth === undefined ? {} : { auth: config.auth }),
          name: 'swarm-controller',
          firstConnectTimeoutMs: 5_000,
          logger: config.logger,
        })
        buckets = createNatsKvBuckets(client)
        runQueue = createNatsRunQueue(client, { subject: config.subject, logger: config.logger })
        return
      } catch {
        // connectNats logged why; try again.
        await Bun.sleep(config.retryMs ?? 2_000)
      }
    }
  })()

  const notYet = () => appError('unavailable', 'not connected to the swarm queue yet')

  async function untilConnected(signal?: AbortSignal): Promise<boolean> {
    if (client === null) {
      // The first connect: `ready` settles when it succeeds (or the queue is closed).
      const firstConnect = await raceAbort(
        ready.then(() => true),
        signal,
        () => false,
      )
      if (!firstConnect) return false
    }
    return client?.whenConnected(signal === undefined ? {} : { signal }) ?? false
  }

  return {
    link: { connected: () => client?.isConnected() ?? false, untilConnected },
    buckets: {
      async open(bucket) {
        if (buckets === null) throw notYet()
        return buckets.open(bucket)
      },
    },
    runQueue: {
      async request(request, timeoutMs, options) {
        if (runQueue === null) throw notYet()
        return runQueue.request(request, timeoutMs, options)
      },
    },
    ready,
    async close() {
      stopped = true
      await client?.close()
    },
  }
}
