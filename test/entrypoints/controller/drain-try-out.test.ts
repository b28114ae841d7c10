/**
 * A try-out in hand when the controller stops (issue 28, item 3): it would
 * be dropped with the process, so the drain stops it, its run in hand is
 * cancelled at the classifier, no later run is sent, and it ends failed.
 */
import { describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../../adapters/memory/clock.ts'
import { createMemoryForge } from '../../../adapters/memory/forge.ts'
import { createSequenceIds } from '../../../adapters/memory/ids.ts'
import { createMemoryKv } from '../../../adapters/memory/kv.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { createMemoryQueue } from '../../../adapters/memory/queue.ts'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { createController, TRY_OUT_STOPPED_REASON } from '../../../entrypoints/controller/service.ts'
import { aClassification, aSeedPull, aSettings } from '../../support/builders.ts'
import { waitFor } from '../../support/waits.ts'

describe('createController, draining with a try-out in hand', () => {
  it('cancels its run at the classifier, sends no later one, and ends it failed', async () => {
    const queue = createMemoryQueue()
    const taken: string[] = []
    const cancelled: string[] = []
    await queue.serve(
      (text) => {
        taken.push(String(JSON.parse(text).id))
        // A classifier that answers only when cancelled, as a model session that never ends.
        return new Promise(() => undefined)
      },
      (id) => cancelled.push(id),
    )
    const controller = createController({
      forge: null,
      queue: { link: { connected: () => true }, runQueue: queue, buckets: createMemoryKv() },
      secrets: createMemorySecretStore(),
      clock: createFixedClock(),
      ids: createSequenceIds('try-'),
      logger: createRecordingLogger(),
      webhookSecret: null,
      runTimeoutMs: 600_000,
      drainTimeoutMs: 1_000,
    })
    const id = controller.tryOuts.start({
      forge: createMemoryForge({ repos: [{ owner: 'acme', name: 'widgets', pulls: [aSeedPull()] }] }),
      repo: { owner: 'acme', name: 'widgets' },
      pr: 42,
      headSha: '',
      repeat: 2,
      classifications: [aClassification()],
      settings: aSettings(),
      runtime: 'api-key',
      requester: 'ann',
    })
    await waitFor(() => taken.length === 1, 'the first run to reach the classifier')
    await controller.drain()
    expect(cancelled).toEqual(['try-1'])
    expect(taken).toEqual(['try-1'])
    expect(controller.tryOuts.get(id)).toMatchObject({
      status: 'failed',
      detail: `run 1 of 2: ${TRY_OUT_STOPPED_REASON}`,
    })
  })
})
