/**
 * A try-out in hand when the controller stops (issue 28, item 3): it would
 * be dropped with the process, so the drain stops it, its run in hand is
 * cancelled at the classifier, no later run is sent, and it ends failed.
 * A replay stopped so reads no more PRs for runs it won't send.
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

  it('stops a replay: its run in hand is cancelled, and the PRs after it are not read', async () => {
    const queue = createMemoryQueue()
    const taken: string[] = []
    const cancelled: string[] = []
    await queue.serve(
      (text) => {
        taken.push(String(JSON.parse(text).id))
        return new Promise(() => undefined)
      },
      (id) => cancelled.push(id),
    )
    const controller = createController({
      forge: null,
      queue: { link: { connected: () => true }, runQueue: queue, buckets: createMemoryKv() },
      secrets: createMemorySecretStore(),
      clock: createFixedClock(),
      ids: createSequenceIds('replay-'),
      logger: createRecordingLogger(),
      webhookSecret: null,
      runTimeoutMs: 600_000,
      drainTimeoutMs: 1_000,
    })
    const repo = { owner: 'acme', name: 'widgets' }
    const forge = createMemoryForge({
      repos: [{ ...repo, pulls: [41, 42, 43].map((number) => aSeedPull({ number })) }],
    })
    const read: number[] = []
    const counting = {
      getPullRequest: (at: typeof repo, pr: number) => {
        read.push(pr)
        return forge.getPullRequest(at, pr)
      },
      listPullCommits: forge.listPullCommits.bind(forge),
      getPullDiff: forge.getPullDiff.bind(forge),
    }
    // Eight classifications: one PR at a time (core/try-out/try-out-runs.ts).
    const classifications = Array.from({ length: 8 }, (_, at) => aClassification({ name: `rule-${at + 1}` }))
    const id = controller.tryOuts.startReplay({
      forge: counting,
      repo,
      count: 3,
      pulls: await forge.listRecentPulls(repo, 3),
      classifications,
      settings: aSettings(),
      runtime: 'api-key',
      requester: 'ann',
    })
    await waitFor(() => taken.length === 1, 'the first PR’s run to reach the classifier')
    await controller.drain()
    expect(cancelled).toEqual(taken)
    // Only the first PR was read (its head read twice, around the diff).
    expect(new Set(read)).toEqual(new Set([43]))
    const view = controller.tryOuts.get(id)
    expect(view?.status).toBe('failed')
    expect(view?.replay?.pulls.map((line) => [line.pr, line.status, line.detail])).toEqual([
      [43, 'failed', TRY_OUT_STOPPED_REASON],
      [42, 'failed', TRY_OUT_STOPPED_REASON],
      [41, 'failed', TRY_OUT_STOPPED_REASON],
    ])
  })
})
