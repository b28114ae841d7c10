/**
 * The run queue on NATS core request/reply: the controller requests on
 * `<SWARM>.review-classifier.try-out`, classifiers answer as members of the
 * queue group `review-classifier` (each request reaches one member, picked
 * at random, with no backpressure: the handler limits its own sessions).
 *
 * Payload size: a request is one message, and the server refuses messages
 * over its `max_payload` (1 MiB by default; 2.9 sets it only in a config
 * file). A run request carries the whole diff, which may be over the 600 KB
 * prompt budget (the classifier rejects oversize itself and says so in its
 * reply), so a request over `max_payload` is refused here as `invalid`,
 * naming both sizes, before anything is sent. A reply larger than
 * `max_payload` is replaced by an `ok: false` reply saying so, so the
 * requester is not left to wait out its timeout.
 *
 * A NATS server restart mid-run: both sides reconnect and resubscribe
 * (inboxes included), so a reply sent after both are back reaches the
 * requester, and the run succeeds. A reply ready while the responder is
 * disconnected waits for the reconnect (up to `replyReconnectWaitMs`)
 * rather than being written into a buffer the client drops on reconnect.
 * If the request itself was lost with the server, the requester waits out
 * its timeout (`timeout`); there is no redelivery (docs/decisions.md: core
 * request/reply, not a work queue).
 *
 * A requester that stops waiting without a reply (its timeout, its abort
 * signal) publishes the run's cancel, which every member hears
 * (run-cancel.ts).
 */
import type { Msg, Subscription } from '@nats-io/transport-node'
import { errors } from '@nats-io/transport-node'
import { raceAbort } from '../../core/base/abort.ts'
import { appError, describeError } from '../../core/base/errors.ts'
import { decodeRunProgress } from '../../core/run/wire-decode.ts'
import { HEARTBEAT_INTERVAL_MS } from '../../core/wire/schemas.ts'
import type { RunProgress, RunReply } from '../../core/wire/types.ts'
import type { Logger } from '../../ports/logger.ts'
import type {
  RunHandler,
  RunQueue,
  RunRequestOptions,
  RunResponder,
  RunSubscription,
  RunTell,
} from '../../ports/queue.ts'
import type { NatsClient } from './connection.ts'
import { natsErrorToAppError, notConnected } from './errors.ts'
import { cancelSubject, listenForCancels, publishCancel } from './run-cancel.ts'

/**
 * The run subject under the swarm's prefix (`SWARM`, default `swarm`):
 * every run travels on it, reviews and try-outs alike. Its last token is the
 * spec's name for it, `try-out`, and nothing here reads meaning into it.
 */
export function runSubject(swarm: string): string {
  if (!/^[^\s*>.][^\s*>]*$/.test(swarm) || swarm.endsWith('.')) {
    throw appError(
      'invalid',
      `SWARM must be a NATS subject prefix without spaces or wildcards, got ${JSON.stringify(swarm)}`,
    )
  }
  return `${swarm}.review-classifier.try-out`
}

/** The queue group every classifier joins. */
export const runQueueGroup = 'review-classifier'

/** A run id that can be one subject token; the controller's ids (UUIDs) always are. */
const SUBJECT_TOKEN = /^[A-Za-z0-9_-]{1,128}$/

/**
 * A run's progress subject, beside the run subject: its last token becomes
 * `progress.<id>` (`<SWARM>.review-classifier.progress.<id>`), so one prefix
 * rule covers both. `null` for an id that can't be a subject token: that
 * run simply has no progress.
 */
export function progressSubject(runSubjectName: string, id: string): string | null {
  if (!SUBJECT_TOKEN.test(id)) return null
  const lastDot = runSubjectName.lastIndexOf('.')
  const prefix = lastDot === -1 ? runSubjectName : runSubjectName.slice(0, lastDot)
  return `${prefix}.progress.${id}`
}

const encoder = new TextEncoder()

function serverMaxPayload(client: NatsClient): number | null {
  return client.connection.info?.max_payload ?? null
}

function payloadTooLarge(what: string, bytes: number, max: number): string {
  return `${what} is ${bytes} bytes, over the NATS server's max_payload of ${max} bytes`
}

export type NatsRunQueueConfig = {
  subject: string
  /** Where a cancel that couldn't be sent is logged; none: nowhere. */
  logger?: Logger
}

/** Hears a run's progress subject until stopped; the subscription is sent before the request, so nothing is missed. */
function listenToProgress(
  client: NatsClient,
  subject: string | null,
  onProgress: RunRequestOptions['onProgress'],
): () => void {
  if (subject === null || onProgress === undefined) return () => undefined
  const subscription = client.connection.subscribe(subject, {
    callback(error, msg) {
      if (error !== null) return
      const decoded = decodeRunProgress(msg.string())
      if (!decoded.ok) return
      try {
        onProgress(decoded.value)
      } catch {
        // The listener's failure is its own.
      }
    },
  })
  return () => subscription.unsubscribe()
}

export function createNatsRunQueue(client: NatsClient, config: NatsRunQueueConfig): RunQueue {
  return {
    async request(request, timeoutMs, options = {}) {
      const action = `run request on ${config.subject}`
      if (!client.isConnected()) throw notConnected(action)
      if (options.signal?.aborted) throw options.signal.reason
      const body = encoder.encode(JSON.stringify(request))
      const max = serverMaxPayload(client)
      if (max !== null && body.byteLength > max)
        throw appError('invalid', payloadTooLarge('the run request', body.byteLength, max))
      const stopListening = listenToProgress(client, progressSubject(config.subject, request.id), options.onProgress)
      // From here on the run may be in a classifier's hands: a wait that ends without its reply cancels it.
      const cancel = () => publishCancel(client, cancelSubject(config.subject), request.id, config.logger)
      try {
        // The reply, or the abort signal's reason as soon as it fires.
        const reply = await raceAbort(
          client.connection.request(config.subject, body, { timeout: timeoutMs }),
          options.signal,
        )
        return reply.string()
      } catch (error) {
        if (options.signal?.aborted && error === options.signal.reason) {
          cancel()
          throw error
        }
        if (error instanceof errors.RequestError && error.isNoResponders()) {
          throw appError('unavailable', 'classifier not running', error)
        }
        const mapped = natsErrorToAppError(error, action)
        if (mapped.code === 'timeout') {
          cancel()
          throw appError('timeout', `no reply to the run request within ${timeoutMs} ms`, error)
        }
        if (mapped.code === 'invalid' && max !== null)
          throw appError('invalid', payloadTooLarge('the run request', body.byteLength, max), error)
        throw mapped
      } finally {
        stopListening()
      }
    },
  } satisfies RunQueue
}

export type NatsRunResponderConfig = {
  subject: string
  /** The queue group; default `review-classifier`. */
  queue?: string
  /** How long a finished run's reply waits for a lost connection to come back; default 60 s. */
  replyReconnectWaitMs?: number
  /** How often a run in hand sends its heartbeat; default {@link HEARTBEAT_INTERVAL_MS}. */
  heartbeatMs?: number
}

export type NatsRunResponderDeps = { logger: Logger }

export function createNatsRunResponder(
  client: NatsClient,
  config: NatsRunResponderConfig,
  deps: NatsRunResponderDeps,
): RunResponder {
  const { logger } = deps
  const queue = config.queue ?? runQueueGroup
  const replyReconnectWaitMs = config.replyReconnectWaitMs ?? 60_000
  const heartbeatMs = config.heartbeatMs ?? HEARTBEAT_INTERVAL_MS

  /** Publishes a progress message; a run whose id can't be a subject has none, and a failed publish changes nothing. */
  function publishProgress(message: RunProgress): void {
    const subject = progressSubject(config.subject, message.id)
    if (subject === null) return
    try {
      client.connection.publish(subject, encoder.encode(JSON.stringify(message)))
    } catch (error) {
      logger.debug('run progress not sent', { id: message.id, error: describeError(error) })
    }
  }

  /** Connected now, or at the reconnect's status event, within the bound. */
  function waitForConnection(): Promise<boolean> {
    return client.whenConnected({ timeoutMs: replyReconnectWaitMs })
  }

  /** The reply's bytes, or an `ok: false` stand-in when the real one would not fit a message. */
  function replyBody(reply: RunReply): Uint8Array {
    const body = encoder.encode(JSON.stringify(reply))
    const max = serverMaxPayload(client)
    if (max === null || body.byteLength <= max) return body
    logger.error('run reply too large', { id: reply.id, bytes: body.byteLength, max_payload: max })
    const standIn: RunReply = {
      id: reply.id,
      ok: false,
      error: payloadTooLarge('the run reply', body.byteLength, max),
      rows: [],
      overall: 'no-verdict',
    }
    return encoder.encode(JSON.stringify(standIn))
  }

  async function answer(msg: Msg, handler: RunHandler): Promise<void> {
    let heartbeat: ReturnType<typeof setInterval> | undefined
    // A question's start stays with the classifier: the requester hears the row when it ends.
    const tell: RunTell = (event) => {
      if (event.kind === 'row') {
        publishProgress({ id: event.id, kind: 'row', row: event.row })
      } else if (event.kind === 'taken' && heartbeat === undefined) {
        publishProgress({ id: event.id, kind: 'taken', heartbeat_ms: heartbeatMs })
        heartbeat = setInterval(() => publishProgress({ id: event.id, kind: 'heartbeat' }), heartbeatMs)
      }
    }
    let reply: RunReply
    try {
      reply = await handler(msg.string(), tell)
    } catch (error) {
      clearInterval(heartbeat)
      // The handler promised not to reject; if it did, there is no reply to send and the requester times out.
      logger.error('run handler rejected', { error: describeError(error) })
      return
    }
    // The reply says the rest; a heartbeat after it would only be noise.
    clearInterval(heartbeat)
    if (!(await waitForConnection())) {
      logger.error('run reply not sent', { id: reply.id, reason: 'not connected to NATS' })
      return
    }
    try {
      if (!msg.respond(replyBody(reply)))
        logger.warn('run reply not sent', { id: reply.id, reason: 'request had no reply subject' })
    } catch (error) {
      logger.error('run reply not sent', {
        id: reply.id,
        error: describeError(error),
      })
    }
  }

  return {
    async serve(handler, onCancel) {
      const action = `serving ${config.subject}`
      if (!client.isConnected()) throw notConnected(action)
      const inFlight = new Set<Promise<void>>()
      let subscription: Subscription
      // Every member hears every cancel, first, so none arrives for a run it took before it listens.
      let cancels: Subscription | null = null
      try {
        if (onCancel !== undefined) {
          cancels = listenForCancels(client, cancelSubject(config.subject), onCancel, logger)
        }
        subscription = client.connection.subscribe(config.subject, {
          queue,
          callback(error, msg) {
            if (error !== null) {
              logger.error('run subscription failed', { subject: config.subject, error: error.message })
              return
            }
            const handling = answer(msg, handler)
            inFlight.add(handling)
            void handling.finally(() => inFlight.delete(handling))
          },
        })
      } catch (error) {
        cancels?.unsubscribe()
        throw natsErrorToAppError(error, action)
      }
      try {
        // Once the server has the SUB, requests reach us: serve resolves only then.
        await client.connection.flush()
      } catch (error) {
        subscription.unsubscribe()
        cancels?.unsubscribe()
        throw natsErrorToAppError(error, action)
      }
      logger.info('serving runs', { subject: config.subject, queue })
      return {
        async drain() {
          try {
            // Unsubscribes at the server and lets messages already delivered reach the callback.
            await subscription.drain()
          } catch (error) {
            logger.warn('run subscription drain failed', {
              error: describeError(error),
            })
          }
          while (inFlight.size > 0) await Promise.allSettled([...inFlight])
          // The runs in hand heard their cancels until they answered.
          cancels?.unsubscribe()
          // The replies were only queued by respond(); flush so they have left before we report drained.
          if (client.isConnected()) await client.connection.flush().catch(() => undefined)
          logger.info('stopped serving runs', { subject: config.subject, queue })
        },
      } satisfies RunSubscription
    },
  } satisfies RunResponder
}
