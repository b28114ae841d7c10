/**
 * The run queue: one core request/reply per run on
 * `<SWARM>.review-classifier.try-out`, queue group `review-classifier`. The
 * adapter is built with the subject, so neither side names it per call.
 *
 * What arrives from the other side is handed over as the raw JSON text, not
 * a typed value: the receiver decodes it against the wire schema (unknown
 * fields ignored, a missing required one an error), so a split deploy, a bad
 * request and a bad reply are all handled in one pure place, not in the
 * transport.
 */
import type { Row, RunProgress, RunReply, RunRequest } from '../core/wire/types.ts'

/** What the controller's routes and health need to know of its connection to the queue. */
export type QueueLink = {
  /** Whether the connection to the queue is up right now. */
  connected(): boolean
}

/** The connection to the queue, for what waits for it to come (back). */
export type QueueWatch = QueueLink & {
  /**
   * Resolves `true` once connected: at once when it is, else on the
   * connection's own event (its first connect, a reconnect), never by
   * polling; `false` when `signal` aborts first or the connection closes
   * for good.
   */
  untilConnected(signal?: AbortSignal): Promise<boolean>
}

export type RunRequestOptions = {
  /**
   * Hears what the classifier says of the run while it works on it (taken,
   * heartbeats, each finished row), in the order sent; a message that
   * doesn't decode is dropped. A classifier older than this says nothing.
   */
  onProgress?: (event: RunProgress) => void
  /**
   * Stops waiting for the reply at once; the request then rejects with the
   * signal's reason, and the classifiers are told to cancel the run.
   */
  signal?: AbortSignal
}

/** The controller's side. */
export type RunQueue = {
  /**
   * Sends the run and waits up to `timeoutMs` (the run deadline plus a
   * margin) for the reply's JSON text. `unavailable` with the message
   * "classifier not running" when no classifier listens (answered at once,
   * not waited out), or when the queue isn't connected; `timeout` when no
   * reply came in time.
   *
   * Whenever it stops waiting without a reply, at `timeoutMs` or at the
   * signal's abort, it tells every classifier to cancel the run (by its
   * `id`), since whichever holds it would otherwise go on paying for a
   * reply nobody reads. The cancel is sent once the queue is connected, if
   * it isn't then, and never delays the rejection.
   */
  request(request: RunRequest, timeoutMs: number, options?: RunRequestOptions): Promise<string>
}

/**
 * What a run tells while it works: it was read and taken, a question got
 * its model session, a question ended (its row as aggregation will show
 * it). `id` is the request's, `total` how many classifications it asks.
 * The classifier tells all three (the CLI prints them); over the queue the
 * requester hears `taken` and each `row`, and the responder adds the
 * heartbeats.
 */
export type RunEvent =
  | { kind: 'taken'; id: string; total: number }
  | { kind: 'question-started'; id: string; name: string; total: number }
  | { kind: 'row'; id: string; row: Row; total: number }

/** Hears what a run tells; it never throws. */
export type RunTell = (event: RunEvent) => void

/**
 * A handler receives the request's JSON text and must not reject: it
 * answers every failure with an `ok: false` reply. `tell` never throws.
 */
export type RunHandler = (request: string, tell: RunTell) => Promise<RunReply>

export type RunSubscription = {
  /**
   * Stops taking requests, lets the ones in hand finish and their replies go
   * out, then resolves. Once every member has drained, requests meet "no
   * responders".
   */
  drain(): Promise<void>
}

/** Told the id of a run whose requester stopped waiting for it; it never throws. */
export type RunCancelListener = (id: string) => void

/** The classifier's side. */
export type RunResponder = {
  /**
   * Joins the queue group: each request goes to exactly one member. Requests
   * are handled concurrently (the handler limits its own sessions). A handler
   * that rejects sends no reply, and the requester waits out its timeout.
   * What the handler tells goes to the requester's `onProgress`, and from its
   * `taken` until its reply a heartbeat goes out at a fixed interval, so a
   * requester learns soon when a classifier died with the run in hand.
   * `unavailable` when the queue isn't connected.
   *
   * `onCancel` hears every cancel a requester sends, for any run: every
   * member hears each one (not a queue group), since the run may be on any
   * of them, and a member ignores the ids it doesn't hold. It keeps hearing
   * them until the drain has let the runs in hand finish.
   */
  serve(handler: RunHandler, onCancel?: RunCancelListener): Promise<RunSubscription>
}
