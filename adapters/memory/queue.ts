/**
 * An in-process run queue with NATS core request/reply semantics: each
 * request goes to exactly one member of the group, no member means "no
 * responders" at once, a missing or late reply is a `timeout`, and both
 * directions travel as JSON text.
 */
import { type AppError, appError } from '../../core/errors.ts'
import type { RunReply } from '../../core/types.ts'
import type { RunHandler, RunQueue, RunResponder, RunSubscription } from '../../ports/queue.ts'

export type MemoryQueue = RunQueue &
  RunResponder & {
    /** Sends any text as a request, as a broken or older controller might. */
    requestRaw(text: string, timeoutMs: number): Promise<string>
    /** How many members currently take requests. */
    memberCount(): number
    /** While set, `request` and `serve` reject with this error (not connected). */
    simulateFailure(error: AppError | null): void
  }

type Member = { handler: RunHandler; draining: boolean; inFlight: Set<Promise<unknown>> }

export function createMemoryQueue(): MemoryQueue {
  const members: Member[] = []
  let nextMember = 0
  let failure: AppError | null = null

  function pickMember(): Member | null {
    const active = members.filter((m) => !m.draining)
    if (active.length === 0) return null
    // Round robin: deterministic, and still one member per request like NATS's random pick.
    const member = active[nextMember % active.length] ?? null
    nextMember += 1
    return member
  }

  async function requestRaw(text: string, timeoutMs: number): Promise<string> {
    await Promise.resolve()
    if (failure !== null) throw failure
    const member = pickMember()
    if (member === null) throw appError('unavailable', 'classifier not running')
    // Async wrapper: a handler that throws synchronously behaves like one that rejects.
    const handled: Promise<RunReply> = (async () => member.handler(text))()
    member.inFlight.add(handled)
    void handled.then(
      () => member.inFlight.delete(handled),
      () => member.inFlight.delete(handled),
    )
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(appError('timeout', `no reply within ${timeoutMs} ms`)), timeoutMs)
      handled.then(
        (reply) => {
          clearTimeout(timer)
          resolve(JSON.stringify(reply))
        },
        // A handler that rejects sends nothing, so the requester waits out its timeout.
        () => undefined,
      )
    })
  }

  return {
    request(request, timeoutMs) {
      return requestRaw(JSON.stringify(request), timeoutMs)
    },
    requestRaw,
    async serve(handler) {
      await Promise.resolve()
      if (failure !== null) throw failure
      const member: Member = { handler, draining: false, inFlight: new Set() }
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
      return members.filter((m) => !m.draining).length
    },
    simulateFailure(error) {
      failure = error
    },
  } satisfies MemoryQueue
}
