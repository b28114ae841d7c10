/**
 * An in-process run queue with NATS core request/reply semantics: each
 * request goes to exactly one member of the group, no member means "no
 * responders" at once, a missing or late reply is a `timeout`, and both
 * directions travel as JSON text. Progress (taken, heartbeats, rows) reaches
 * the requester as it would over its own subject. A request that stops
 * waiting without its reply (timeout, abort) tells every live member to
 * cancel the run, as the NATS cancel subject does.
 */

import { raceAbort } from '../../core/base/abort.ts'
import { type AppError, appError } from '../../core/base/errors.ts'
import { decodeRunProgress } from '../../core/run/wire-decode.ts'
import { HEARTBEAT_INTERVAL_MS } from '../../core/wire/schemas.ts'
import type { RunProgress, RunReply } from '../../core/wire/types.ts'
import type {
  RunCancelListener,
  RunHandler,
  RunQueue,
  RunRequestOptions,
  RunResponder,
  RunSubscription,
  RunTell,
} from '../../ports/queue.ts'

export type MemoryQueue = RunQueue &
  RunResponder & {
    /** Sends any text as a request, as a broken or older controller might. */
    requestRaw(text: string, timeoutMs: number, options?: RunRequestOptions): Promise<string>
    /** How many members currently take requests. */
    memberCount(): number
    /** While set, `request` and `serve` reject with this error (not connected). */
    simulateFailure(error: AppError | null): void
    /**
     * Every member dies as a killed process would: the runs in hand get no
     * reply, their heartbeats stop, and nobody takes a request until a
     * member serves again.
     */
    killMembers(): void
  }

export type MemoryQueueConfig = {
  /** The interval heartbeats go out at while a run is in hand; default {@link HEARTBEAT_INTERVAL_MS}, as the NATS responder's. */
  heartbeatMs?: number
}

type Member = {
  handler: RunHandler
  onCancel: RunCancelListener | undefined
  draining: boolean
  dead: boolean
  inFlight: Set<Promise<unknown>>
}

export function createMemoryQueue(config: MemoryQueueConfig = {}): MemoryQueue {
  const heartbeatMs = config.heartbeatMs ?? HEARTBEAT_INTERVAL_MS
  const members: Member[] = []
  let nextMember = 0
  let failure: AppError | null = null

  function pickMember(): Member | null {
    const active = members.filter((m) => !m.draining && !m.dead)
    if (active.length === 0) return null
    // Round robin: deterministic, and still one member per request like NATS's random pick.
    const member = active[nextMember % active.length] ?? null
    nextMember += 1
    return member
  }

  /** Delivers a progress message as its JSON text would arrive, decoded, and drops it when it doesn't decode. */
  function deliver(options: RunRequestOptions | undefined, message: RunProgress): void {
    const decoded = decodeRunProgress(JSON.stringify(message))
    if (decoded.ok) options?.onProgress?.(decoded.value)
  }

  /** Every live member hears the cancel, as every classifier subscribes to it; a draining one still holds runs. */
  function cancel(id: string): void {
    for (const member of members) {
      if (member.dead) continue
      try {
        member.onCancel?.(id)
      } catch {
        // The listener's failure is its own.
      }
    }
  }

  /** The id a request's text names, for its cancel; none when it isn't a JSON object with one. */
  function idIn(text: string): string | null {
    try {
      const value: unknown = JSON.parse(text)
      const id: unknown = typeof value === 'object' && value !== null ? Reflect.get(value, 'id') : undefined
      return typeof id === 'string' ? id : null
    } catch {
      return null
    }
  }

  async function requestRaw(text: string, timeoutMs: number, options?: RunRequestOptions): Promise<string> {
    await Promise.resolve()
    if (failure !== null) throw failure
    if (options?.signal?.aborted) throw options.signal.reason
    const member = pickMember()
    if (member === null) throw appError('unavailable', 'classifier not running')
    let heartbeat: ReturnType<typeof setInterval> | undefined
    // As the NATS responder: `taken` once, then heartbeats, and each row; a question's start stays with the classifier.
    const tell: RunTell = (event) => {
      if (member.dead) return
      if (event.kind === 'row') {
        deliver(options, { id: event.id, kind: 'row', row: event.row })
      } else if (event.kind === 'taken' && heartbeat === undefined) {
        deliver(options, { id: event.id, kind: 'taken', heartbeat_ms: heartbeatMs })
        heartbeat = setInterval(() => {
          if (member.dead) clearInterval(heartbeat)
          else deliver(options, { id: event.id, kind: 'heartbeat' })
        }, heartbeatMs)
      }
    }
    // Async wrapper: a handler that throws synchronously behaves like one that rejects.
    const handled: Promise<RunReply> = (async () => member.handler(text, tell))()
    member.inFlight.add(handled)
    void handled.then(
      () => member.inFlight.delete(handled),
      () => member.inFlight.delete(handled),
    )
    let timer: ReturnType<typeof setTimeout> | undefined
    const replied = new Promise<string>((resolve, reject) => {
      timer = setTimeout(() => reject(appError('timeout', `no reply within ${timeoutMs} ms`)), timeoutMs)
      handled.then(
        (reply) => {
          // A dead member's reply never leaves it.
          if (!member.dead) resolve(JSON.stringify(reply))
        },
        // A handler that rejects sends nothing, so the requester waits out its timeout.
        () => clearInterval(heartbeat),
      )
    })
    // The reply, or the abort signal's reason as soon as it fires; either way the timer and heartbeats stop.
    let answered = false
    return raceAbort(
      replied.then((reply) => {
        answered = true
        return reply
      }),
      options?.signal,
    ).finally(() => {
      clearTimeout(timer)
      clearInterval(heartbeat)
      const id = idIn(text)
      if (!answered && id !== null) cancel(id)
    })
  }

  return {
    request(request, timeoutMs, options) {
      return requestRaw(JSON.stringify(request), timeoutMs, options)
    },
    requestRaw,
    async serve(handler, onCancel) {
      await Promise.resolve()
      if (failure !== null) throw failure
      const member: Member = { handler, onCancel, draining: false, dead: false, inFlight: new Set() }
      members.push(member)
      return {
        async drain() {
          member.draining = true
          await Promise.allSettled([...member.inFlight])
          const index = members.indexOf(member)
          if (index >= 0) members.splice(index, 1)
        },
      } satisfies RunSubscription
    },
    memberCount() {
      return members.filter((m) => !m.draining && !m.dead).length
    },
    simulateFailure(error) {
      failure = error
    },
    killMembers() {
      for (const member of members.splice(0)) member.dead = true
    },
  } satisfies MemoryQueue
}
