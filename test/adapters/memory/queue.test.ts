import { describe, expect, it } from 'bun:test'
import { createMemoryQueue } from '../../../adapters/memory/queue.ts'
import { appError, isAppError } from '../../../core/base/errors.ts'
import type { RunSubscription } from '../../../ports/queue.ts'
import { queueContract } from '../../ports/queue.contract.ts'
import { aRunReply } from '../../support/builders.ts'

queueContract('memory', async () => {
  const queue = createMemoryQueue({ heartbeatMs: 20 })
  const subscriptions: RunSubscription[] = []
  return {
    queue,
    heartbeatMs: 20,
    addResponder: async () => ({
      async serve(handler, onCancel) {
        const subscription = await queue.serve(handler, onCancel)
        subscriptions.push(subscription)
        return subscription
      },
    }),
    cleanup: async () => {
      await Promise.all(subscriptions.map((s) => s.drain()))
    },
  }
})

describe('createMemoryQueue', () => {
  it('hands raw text to the handler, as a broken controller would send it', async () => {
    const queue = createMemoryQueue()
    const received: string[] = []
    await queue.serve(async (text) => {
      received.push(text)
      return aRunReply({ id: '', ok: false, error: 'bad request' })
    })
    const reply = await queue.requestRaw('not json', 1_000)
    expect(received).toEqual(['not json'])
    expect(JSON.parse(reply)).toMatchObject({ ok: false, error: 'bad request' })
  })

  it('counts members until they drain', async () => {
    const queue = createMemoryQueue()
    const subscription = await queue.serve(async () => aRunReply())
    expect(queue.memberCount()).toBe(1)
    await subscription.drain()
    expect(queue.memberCount()).toBe(0)
  })

  it('rejects requests and serving with the simulated failure', async () => {
    const queue = createMemoryQueue()
    queue.simulateFailure(appError('unavailable', 'not connected'))
    expect(isAppError(await queue.requestRaw('{}', 100).catch((e: unknown) => e), 'unavailable')).toBe(true)
    expect(isAppError(await queue.serve(async () => aRunReply()).catch((e: unknown) => e), 'unavailable')).toBe(true)
  })
})
