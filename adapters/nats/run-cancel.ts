/**
 * A run's cancel over NATS (docs/decisions.md, "Wire formats"): when the
 * controller stops waiting for a run (its deadline, a silent classifier,
 * the drain, a try-out dropped), it publishes `{ "id" }` on
 * `<SWARM>.review-classifier.cancel`, beside the run subject. Every
 * classifier subscribes without a queue group, since the run may be on any
 * of them; the one holding it ends its model processes, the others ignore
 * an id they don't hold.
 *
 * Core NATS publish/subscribe, at most once: a publish written while the
 * connection is down is dropped at the reconnect (docs/infra.md §A4), so
 * the cancel waits for the connection, on its status events, up to a bound;
 * a classifier that is itself disconnected then misses it, and its own
 * deadlines end the run.
 */
import type { Subscription } from '@nats-io/transport-node'
import { describeError } from '../../core/base/errors.ts'
import { decodeRunCancel } from '../../core/run/wire-decode.ts'
import type { Logger } from '../../ports/logger.ts'
import type { RunCancelListener } from '../../ports/queue.ts'
import type { NatsClient } from './connection.ts'

/** How long a cancel waits for a lost connection to come back before it is given up. */
export const CANCEL_RECONNECT_WAIT_MS = 60_000

const encoder = new TextEncoder()

/** The cancel subject beside the run subject: its last token becomes `cancel`. */
export function cancelSubject(runSubjectName: string): string {
  const lastDot = runSubjectName.lastIndexOf('.')
  const prefix = lastDot === -1 ? runSubjectName : runSubjectName.slice(0, lastDot)
  return `${prefix}.cancel`
}

/** Sends the cancel once connected; never throws and never makes the caller wait. */
export function publishCancel(
  client: NatsClient,
  subject: string,
  id: string,
  logger: Logger | undefined,
  reconnectWaitMs = CANCEL_RECONNECT_WAIT_MS,
): void {
  void (async () => {
    if (!(await client.whenConnected({ timeoutMs: reconnectWaitMs }))) {
      logger?.warn('run cancel not sent', { id, reason: 'not connected to NATS' })
      return
    }
    try {
      client.connection.publish(subject, encoder.encode(JSON.stringify({ id })))
      logger?.info('run cancel sent', { id })
    } catch (error) {
      logger?.warn('run cancel not sent', { id, error: describeError(error) })
    }
  })()
}

/** Hears every cancel on `subject` (no queue group); one that doesn't decode is dropped. */
export function listenForCancels(
  client: NatsClient,
  subject: string,
  onCancel: RunCancelListener,
  logger: Logger,
): Subscription {
  return client.connection.subscribe(subject, {
    callback(error, msg) {
      if (error !== null) {
        logger.error('run cancel subscription failed', { subject, error: error.message })
        return
      }
      const decoded = decodeRunCancel(msg.string())
      if (!decoded.ok) {
        logger.debug('run cancel dropped', { reason: decoded.error })
        return
      }
      try {
        onCancel(decoded.value.id)
      } catch {
        // The listener's failure is its own.
      }
    },
  })
}
