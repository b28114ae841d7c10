/**
 * The bound on try-outs running at once: past it the POST answers 429
 * problem+json saying how many run, before any forge read; a repeat or a
 * replay counts as one however many runs it makes; a finished one frees
 * its place, before its result is recorded.
 */
import { describe, expect, it } from 'bun:test'
import type { RunReply, RunRequest } from '../../../../core/wire/types.ts'
import { TRY_OUTS_RUNNING_MAX } from '../../../../entrypoints/controller/usecases/try-out/try-outs.ts'
import { gate, until } from '../review-world.ts'
import {
  allClear,
  aTryOutBody,
  createTryOutWorld,
  postTryOut,
  readTryOut,
  startTryOut,
  type TryOutWorld,
} from '../try-out-world.ts'
import { expectProblem } from './http-support.ts'

const FULL = `${TRY_OUTS_RUNNING_MAX} try-outs are running, the most this controller runs at once; try again when one finishes`

/** A classifier that holds every run until the test lets it go, by run id, or lets all go from then on. */
function holdRuns(world: TryOutWorld): { arrived: Set<string>; release(id: string): void; releaseAll(): void } {
  const gates = new Map<string, ReturnType<typeof gate>>()
  const arrived = new Set<string>()
  let holding = true
  const gateOf = (id: string) => {
    const found = gates.get(id) ?? gate()
    gates.set(id, found)
    if (!holding) found.open()
    return found
  }
  void world.serve(async (request: RunRequest): Promise<RunReply> => {
    arrived.add(request.id)
    await gateOf(request.id).wait
    return allClear(request)
  })
  return {
    arrived,
    release: (id) => gateOf(id).open(),
    releaseAll() {
      holding = false
      for (const held of gates.values()) held.open()
    },
  }
}

describe('POST /api/review-classifier/try-out: at most a few at once', () => {
  it(`answers 429 while ${TRY_OUTS_RUNNING_MAX} run, a repeat and a replay one each, with no forge read`, async () => {
    expect(TRY_OUTS_RUNNING_MAX).toBe(4)
    const world = createTryOutWorld()
    const runs = holdRuns(world)
    const ids = [
      await startTryOut(world),
      await startTryOut(world, aTryOutBody({ repeat: 5 })),
      await startTryOut(world, aTryOutBody({ pr: undefined, replay: 3 })),
      await startTryOut(world),
    ]
    await until(() => runs.arrived.size === 4, 'each try-out to send its first run')
    const readsBefore = world.forgeCalls.length

    const refused = await world.app.handle(postTryOut(aTryOutBody()))
    await expectProblem(refused, 429, FULL)
    const replayRefused = await world.app.handle(postTryOut(aTryOutBody({ pr: undefined, replay: 2 })))
    await expectProblem(replayRefused, 429, FULL)
    const examplesRefused = await world.app.handle(postTryOut(aTryOutBody({ pr: undefined, examples: true })))
    await expectProblem(examplesRefused, 429, FULL)
    expect(world.forgeCalls.length).toBe(readsBefore)

    // One finishes: its place is free at once, while the others still run.
    runs.release(ids[0] ?? '')
    await until(() => world.tryOuts.get(ids[0] ?? '')?.status === 'done', 'the first try-out to finish')
    const fifth = await startTryOut(world)
    expect((await readTryOut(world, ids[3] ?? '')).status).toBe('running')
    await expectProblem(await world.app.handle(postTryOut(aTryOutBody())), 429, FULL)

    // The repeat's later runs come after its first: every run goes through from here on.
    runs.releaseAll()
    await world.tryOuts.idle()
    expect([...ids, fifth].map((id) => world.tryOuts.get(id)?.status)).toEqual(['done', 'done', 'done', 'done', 'done'])
    expect(await startTryOut(world)).toBeString()
  })

  it('counts a try-out that failed on its forge read as finished', async () => {
    const world = createTryOutWorld()
    world.forgeHooks.onCall = (method) => {
      if (method === 'listPullCommits') throw new Error('the forge fell over')
    }
    for (let i = 0; i < TRY_OUTS_RUNNING_MAX + 2; i += 1) {
      await startTryOut(world)
      await world.tryOuts.idle()
    }
    expect(world.runs.records.map((record) => record.outcome)).toEqual(Array(TRY_OUTS_RUNNING_MAX + 2).fill('failed'))
  })
})
