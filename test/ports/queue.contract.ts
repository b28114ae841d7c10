/**
 * The run queue's contract, run against every adapter (memory, NATS). The
 * harness gives one requester and adds responders on demand, each a member
 * of the one queue group; `cleanup` drains what is left.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { isAppError } from '../../core/base/errors.ts'
import type { RunProgress, RunReply, RunRequest } from '../../core/wire/types.ts'
import type { RunQueue, RunResponder } from '../../ports/queue.ts'
import { aRow, aRunReply, aRunRequest } from '../support/builders.ts'
import { expectNothingFor, waitFor } from '../support/waits.ts'

export type QueueHarness = {
  queue: RunQueue
  /** The interval the harness's responders send heartbeats at. */
  heartbeatMs: number
  /** A new member of the queue group (for NATS, its own connection). */
  addResponder(): Promise<RunResponder>
  cleanup(): Promise<void>
}

function idOf(text: string): string {
  const parsed: unknown = JSON.parse(text)
  return typeof parsed === 'object' && parsed !== null && 'id' in parsed ? String(parsed.id) : ''
}

function replyTo(text: string): RunReply {
  return aRunReply({ id: idOf(text) })
}

/** A promise and the function that settles it, for handlers a test releases by hand. */
function gate(): { opened: Promise<void>; open(): void } {
  let open: () => void = () => {}
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { opened, open }
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (error: unknown) => error,
  )
}

export function queueContract(name: string, make: () => Promise<QueueHarness>): void {
  describe(`RunQueue contract (${name})`, () => {
    let harness: QueueHarness
    beforeEach(async () => {
      harness = await make()
    })
    afterEach(async () => {
      await harness.cleanup()
    })

    it('tells the requester the run taken, its rows as they end and heartbeats until the reply, and nothing after', async () => {
      const heard: RunProgress[] = []
      const responder = await harness.addResponder()
      await responder.serve(async (text, tell) => {
        const id = idOf(text)
        tell({ kind: 'taken', id, total: 1 })
        tell({ kind: 'row', id, total: 1, row: aRow() })
        while (heard.filter((event) => event.kind === 'heartbeat').length < 2) {
          await new Promise((resolve) => setTimeout(resolve, harness.heartbeatMs))
        }
        return replyTo(text)
      })
      const reply = await harness.queue.request(aRunRequest({ id: 'told' }), 10_000, {
        onProgress: (event) => heard.push(event),
      })
      expect(idOf(reply)).toBe('told')
      const [taken, row, ...beats] = heard
      expect(taken).toEqual({ id: 'told', kind: 'taken', heartbeat_ms: harness.heartbeatMs })
      expect(row).toMatchObject({ id: 'told', kind: 'row', row: { name: 'datetime' } })
      expect(beats.length).toBeGreaterThanOrEqual(2)
      expect(beats.every((event) => event.kind === 'heartbeat' && event.id === 'told')).toBe(true)
      const count = heard.length
      await expectNothingFor(() => heard.length > count, 'progress after the reply', 5 * harness.heartbeatMs)
    })

    it("stops waiting when the requester's signal aborts, with the signal's reason", async () => {
      const held = gate()
      const responder = await harness.addResponder()
      await responder.serve(async (text) => {
        await held.opened
        return replyTo(text)
      })
      const stop = new AbortController()
      const waiting = failureOf(harness.queue.request(aRunRequest(), 30_000, { signal: stop.signal }))
      const reason = new Error('the requester gave up')
      stop.abort(reason)
      expect(await waiting).toBe(reason)
      held.open()
    })

    it('tells every member to cancel a run its requester stopped waiting for, by abort or timeout', async () => {
      const held = gate()
      const taken = gate()
      const cancels: string[][] = [[], []]
      for (const heard of cancels) {
        const responder = await harness.addResponder()
        await responder.serve(
          async (text) => {
            taken.open()
            await held.opened
            return replyTo(text)
          },
          (id) => heard.push(id),
        )
      }
      try {
        const stop = new AbortController()
        const aborted = failureOf(
          harness.queue.request(aRunRequest({ id: 'dropped' }), 30_000, { signal: stop.signal }),
        )
        await taken.opened
        stop.abort(new Error('the requester gave up'))
        await aborted
        await failureOf(harness.queue.request(aRunRequest({ id: 'late' }), 150))
        // Not a queue group: both members hear both, whichever holds the run.
        await waitFor(() => cancels.every((heard) => heard.length === 2), 'both members to hear both cancels')
        expect(cancels.map((heard) => [...heard].sort())).toEqual([
          ['dropped', 'late'],
          ['dropped', 'late'],
        ])
      } finally {
        held.open()
      }
    })

    it('sends no cancel for a run that answered', async () => {
      const heard: string[] = []
      const responder = await harness.addResponder()
      await responder.serve(
        async (text) => replyTo(text),
        (id) => heard.push(id),
      )
      expect(idOf(await harness.queue.request(aRunRequest({ id: 'answered' }), 5_000))).toBe('answered')
      await expectNothingFor(() => heard.length > 0, 'a cancel after the reply', 200)
    })

    it('delivers the request as JSON text and answers with the reply as JSON text', async () => {
      const received: string[] = []
      const responder = await harness.addResponder()
      await responder.serve(async (text) => {
        received.push(text)
        return aRunReply({ id: idOf(text), overall: 'request-changes' })
      })
      const request: RunRequest = aRunRequest({ id: 'run-7', title: 'ünïcødé ✓' })
      const reply = await harness.queue.request(request, 5_000)
      expect(received.map((t): unknown => JSON.parse(t))).toEqual([request])
      expect(JSON.parse(reply)).toEqual(aRunReply({ id: 'run-7', overall: 'request-changes' }))
    })

    it('fails at once with unavailable "classifier not running" when nobody listens', async () => {
      const started = performance.now()
      const failure = await failureOf(harness.queue.request(aRunRequest(), 30_000))
      expect(isAppError(failure, 'unavailable')).toBe(true)
      expect(isAppError(failure) ? failure.message : '').toBe('classifier not running')
      expect(performance.now() - started).toBeLessThan(2_000)
    })

    it('fails with timeout when the reply does not come in time', async () => {
      const release = gate()
      const responder = await harness.addResponder()
      await responder.serve(async (text) => {
        await release.opened
        return replyTo(text)
      })
      const failure = await failureOf(harness.queue.request(aRunRequest(), 150))
      release.open()
      expect(isAppError(failure, 'timeout')).toBe(true)
    })

    it('sends no reply for a handler that rejects, so the requester times out', async () => {
      const responder = await harness.addResponder()
      await responder.serve(async () => {
        throw new Error('handler bug')
      })
      const failure = await failureOf(harness.queue.request(aRunRequest(), 150))
      expect(isAppError(failure, 'timeout')).toBe(true)
    })

    it('hands each request to exactly one member of the group', async () => {
      const seen: string[] = []
      for (let member = 0; member < 3; member += 1) {
        const responder = await harness.addResponder()
        await responder.serve(async (text) => {
          seen.push(idOf(text))
          return replyTo(text)
        })
      }
      const ids = Array.from({ length: 12 }, (_, i) => `run-${i}`)
      const replies = await Promise.all(ids.map((id) => harness.queue.request(aRunRequest({ id }), 5_000)))
      expect(replies.map(idOf)).toEqual(ids)
      expect([...seen].sort()).toEqual([...ids].sort())
    })

    it('lets one member handle several requests at once', async () => {
      const release = gate()
      let arrived = 0
      const responder = await harness.addResponder()
      await responder.serve(async (text) => {
        arrived += 1
        if (arrived === 2) release.open()
        await release.opened
        return replyTo(text)
      })
      const replies = await Promise.all(['a', 'b'].map((id) => harness.queue.request(aRunRequest({ id }), 5_000)))
      expect(replies.map(idOf)).toEqual(['a', 'b'])
    })

    it('drains: the request in hand still gets its reply, then nobody listens', async () => {
      const release = gate()
      const started = gate()
      const responder = await harness.addResponder()
      const subscription = await responder.serve(async (text) => {
        started.open()
        await release.opened
        return replyTo(text)
      })
      const inFlight = harness.queue.request(aRunRequest({ id: 'in-hand' }), 5_000)
      await started.opened
      let drained = false
      const draining = subscription.drain().then(() => {
        drained = true
      })
      await expectNothingFor(() => drained, 'the drain ending with a request still in hand', 50)
      release.open()
      expect(idOf(await inFlight)).toBe('in-hand')
      await draining
      const failure = await failureOf(harness.queue.request(aRunRequest(), 5_000))
      expect(isAppError(failure, 'unavailable')).toBe(true)
    })
  })
}
