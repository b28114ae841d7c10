import { describe, expect, it } from 'bun:test'
import { createMemoryQueue } from '../../../../../adapters/memory/queue.ts'
import { appError } from '../../../../../core/base/errors.ts'
import type { Row, RunReply } from '../../../../../core/wire/types.ts'
import { sendRunRequest } from '../../../../../entrypoints/controller/usecases/run/run-exchange.ts'
import type { RunQueue } from '../../../../../ports/queue.ts'
import { aRow, aRunRequest } from '../../../../support/builders.ts'
import { gate } from '../../review-world.ts'

const request = aRunRequest({ id: 'run-7' })

function replyTo(id: string, rows: Row[] = [aRow()]): RunReply {
  return { id, ok: true, rows, overall: 'approve' }
}

describe('sendRunRequest', () => {
  it("answers the reply's text and hands each row on as the classifier finishes it", async () => {
    const queue = createMemoryQueue({ heartbeatMs: 5 })
    const seen: string[] = []
    const held = gate()
    await queue.serve(async (_text, tell) => {
      tell({ kind: 'taken', id: 'run-7', total: 1 })
      tell({ kind: 'row', id: 'run-7', total: 1, row: aRow({ name: 'first' }) })
      await held.wait
      return replyTo('run-7')
    })
    const sending = sendRunRequest(queue, request, {
      runTimeoutMs: 5_000,
      onRow: (row) => {
        seen.push(row.name)
        held.open()
      },
    })
    const answer = await sending
    expect(seen).toEqual(['first'])
    expect(answer.ok && JSON.parse(answer.value)).toMatchObject({ id: 'run-7', ok: true })
  })

  it('ends a run whose classifier took it and then fell silent, long before RUN_TIMEOUT_S', async () => {
    const queue = createMemoryQueue({ heartbeatMs: 10 })
    const held = gate()
    await queue.serve(async (_text, tell) => {
      tell({ kind: 'taken', id: 'run-7', total: 1 })
      // The process dies with the run in hand: no reply, no more heartbeats.
      queue.killMembers()
      await held.wait
      return replyTo('run-7')
    })
    // The outer bound is ten minutes, far past the test's own timeout: only the silence can end this run.
    const answer = await sendRunRequest(queue, request, { runTimeoutMs: 600_000 })
    held.open()
    expect(answer).toEqual({
      ok: false,
      error:
        'the classifier stopped answering: it took the run, then sent nothing for 1 s (it was stopped or lost its connection)',
    })
  })

  it('keeps waiting while the heartbeats come, however long the run takes', async () => {
    const queue = createMemoryQueue({ heartbeatMs: 5 })
    await queue.serve(async (_text, tell) => {
      tell({ kind: 'taken', id: 'run-7', total: 1 })
      // Twenty intervals without a row: only the heartbeats say the classifier is alive.
      await new Promise((resolve) => setTimeout(resolve, 100))
      return replyTo('run-7')
    })
    const answer = await sendRunRequest(queue, request, { runTimeoutMs: 5_000 })
    expect(answer.ok).toBe(true)
  })

  it('waits for a classifier that never says it took the run (one older than heartbeats) up to the outer bound', async () => {
    const queue = createMemoryQueue({ heartbeatMs: 5 })
    await queue.serve(async () => {
      await new Promise((resolve) => setTimeout(resolve, 60))
      return replyTo('run-7')
    })
    expect((await sendRunRequest(queue, request, { runTimeoutMs: 5_000 })).ok).toBe(true)
  })

  it("ignores another run's progress", async () => {
    const queue = createMemoryQueue({ heartbeatMs: 5 })
    const rows: string[] = []
    await queue.serve(async (_text, tell) => {
      tell({ kind: 'row', id: 'someone-else', total: 1, row: aRow({ name: 'not-mine' }) })
      return replyTo('run-7')
    })
    await sendRunRequest(queue, request, { runTimeoutMs: 5_000, onRow: (row) => rows.push(row.name) })
    expect(rows).toEqual([])
  })

  it('names RUN_TIMEOUT_S itself when no reply came, not the margin the wait adds to it', async () => {
    const waits: number[] = []
    const timingOut: RunQueue = {
      async request(_request, timeoutMs) {
        waits.push(timeoutMs)
        throw appError('timeout', `no reply within ${timeoutMs} ms`)
      },
    }
    expect(await sendRunRequest(timingOut, request, { runTimeoutMs: 25_000 })).toEqual({
      ok: false,
      error: "the classifier didn't answer within 25 s",
    })
    expect(waits).toEqual([30_000])
  })

  it('says so when no classifier listens, and when the queue fails otherwise', async () => {
    const queue = createMemoryQueue()
    expect(await sendRunRequest(queue, request, { runTimeoutMs: 1_000 })).toEqual({
      ok: false,
      error: "the classifier isn't running (no responders)",
    })
    queue.simulateFailure(appError('unavailable', 'not connected to the swarm queue yet'))
    expect(await sendRunRequest(queue, request, { runTimeoutMs: 1_000 })).toEqual({
      ok: false,
      error: "the run couldn't be sent to the classifier: not connected to the swarm queue yet",
    })
  })
})
