import { describe, expect, it } from 'bun:test'
import { createRecordingLogger } from '../../../../../adapters/memory/logger.ts'
import { type AdmissionTask, createAdmission } from '../../../../../entrypoints/controller/usecases/review/admission.ts'
import { gate, until } from '../../review-world.ts'

/** Tasks a test finishes by hand, remembering which ran, which are running and which were turned away. */
function tasks() {
  const gates = new Map<string, ReturnType<typeof gate>>()
  const started: string[] = []
  const finished: string[] = []
  const turnedAway: string[] = []
  let running = 0
  let maxRunning = 0
  return {
    started,
    finished,
    turnedAway,
    running: () => running,
    maxRunning: () => maxRunning,
    resetMax() {
      maxRunning = running
    },
    task(key: string): AdmissionTask {
      const held = gate()
      gates.set(key, held)
      return {
        async run() {
          started.push(key)
          running += 1
          maxRunning = Math.max(maxRunning, running)
          await held.wait
          running -= 1
          finished.push(key)
        },
        async turnAway() {
          turnedAway.push(key)
        },
      }
    },
    finish(key: string) {
      gates.get(key)?.open()
    },
  }
}

function limitOf(initial: number) {
  let limit = initial
  let reads = 0
  let failure: Error | null = null
  return {
    readLimit: async () => {
      await Promise.resolve()
      reads += 1
      if (failure !== null) throw failure
      return limit
    },
    set(value: number) {
      limit = value
    },
    fail(error: Error | null) {
      failure = error
    },
    reads: () => reads,
  }
}

describe('createAdmission', () => {
  it('runs up to the limit read from the settings and lets the rest wait', async () => {
    const limit = limitOf(2)
    const work = tasks()
    const admission = createAdmission({ readLimit: limit.readLimit })
    for (const key of ['a', 'b', 'c']) admission.submit(key, work.task(key))
    await until(() => work.started.length === 2, 'two runs')
    expect(work.started).toEqual(['a', 'b'])
    expect(admission.counts()).toEqual({ running: 2, waiting: 1, limit: 2 })

    // With the limit known, the answer at submit is exact.
    expect(admission.submit('d', work.task('d'))).toBe('waiting')
    work.finish('a')
    await until(() => work.started.length === 3, 'the next run')
    expect(work.started).toEqual(['a', 'b', 'c'])
    for (const key of ['b', 'c', 'd']) work.finish(key)
    await admission.idle()
    expect(work.finished.sort()).toEqual(['a', 'b', 'c', 'd'])
    expect(admission.counts()).toEqual({ running: 0, waiting: 0, limit: 2 })
  })

  it('starts nothing for a key already running or waiting, and takes it again once it finished', async () => {
    const work = tasks()
    const admission = createAdmission({ readLimit: async () => 1 })
    expect(admission.submit('a', work.task('a'))).toBe('started')
    expect(admission.submit('b', work.task('b'))).not.toBe('duplicate')
    await until(() => work.started.length === 1)
    const again: AdmissionTask = {
      run: async () => void work.started.push('duplicate ran'),
      turnAway: async () => undefined,
    }
    expect(admission.submit('a', again)).toBe('duplicate')
    expect(admission.submit('b', again)).toBe('duplicate')
    work.finish('a')
    await until(() => work.started.includes('b'))
    work.finish('b')
    await admission.idle()
    expect(admission.submit('a', work.task('a'))).toBe('started')
    work.finish('a')
    await admission.idle()
    expect(work.started).toEqual(['a', 'b', 'a'])
    expect(work.turnedAway).toEqual([])
  })

  it('with one place and ten requests at once: one runs, eight wait, the newest is turned away', async () => {
    const work = tasks()
    const admission = createAdmission({ readLimit: async () => 1 })
    const keys = Array.from({ length: 10 }, (_, i) => `r${i + 1}`)
    for (const key of keys) admission.submit(key, work.task(key))
    await until(() => work.started.length === 1 && work.turnedAway.length === 1, 'the first run and the turn-away')
    expect(admission.counts()).toMatchObject({ running: 1, waiting: 8 })
    expect(work.turnedAway).toEqual(['r10'])

    // Once the limit is known, a request finding every place taken is turned away at once.
    expect(admission.submit('r11', work.task('r11'))).toBe('queue-full')
    await until(() => work.turnedAway.length === 2)

    for (const key of keys) work.finish(key)
    await admission.idle()
    expect(work.maxRunning()).toBe(1)
    expect(work.started).toEqual(keys.slice(0, 9))
    expect(work.turnedAway).toEqual(['r10', 'r11'])
  })

  it('lets the runs going finish when the limit is lowered, and starts none until under it', async () => {
    const limit = limitOf(3)
    const work = tasks()
    const admission = createAdmission({ readLimit: limit.readLimit })
    for (const key of ['a', 'b', 'c', 'd', 'e']) admission.submit(key, work.task(key))
    await until(() => work.started.length === 3)
    limit.set(1)

    work.finish('a')
    await until(() => work.finished.length === 1)
    work.resetMax()
    await until(() => admission.counts().limit === 1, 'the new limit read')
    expect(admission.counts()).toMatchObject({ running: 2, waiting: 2 })
    work.finish('b')
    await until(() => work.finished.length === 2)
    expect(work.started).toEqual(['a', 'b', 'c'])
    work.finish('c')
    await until(() => work.started.length === 4)
    expect(admission.counts()).toMatchObject({ running: 1, waiting: 1 })
    work.finish('d')
    await until(() => work.started.length === 5)
    work.finish('e')
    await admission.idle()
    expect(work.maxRunning()).toBe(2)
    expect(work.started).toEqual(['a', 'b', 'c', 'd', 'e'])
  })

  it('takes a raised limit at the next place', async () => {
    const limit = limitOf(1)
    const work = tasks()
    const admission = createAdmission({ readLimit: limit.readLimit })
    for (const key of ['a', 'b', 'c']) admission.submit(key, work.task(key))
    await until(() => work.started.length === 1)
    limit.set(3)
    work.finish('a')
    await until(() => work.started.length === 3, 'both waiting runs')
    expect(admission.counts()).toEqual({ running: 2, waiting: 0, limit: 3 })
    work.finish('b')
    work.finish('c')
    await admission.idle()
  })

  it('keeps the last limit read when the settings cannot be read, so nothing stalls', async () => {
    const limit = limitOf(1)
    const work = tasks()
    const logger = createRecordingLogger()
    const admission = createAdmission({ readLimit: limit.readLimit, logger })
    admission.submit('a', work.task('a'))
    await until(() => work.started.length === 1)
    limit.fail(new Error('the swarm queue is not connected'))
    admission.submit('b', work.task('b'))
    admission.submit('c', work.task('c'))
    work.finish('a')
    await until(() => work.started.length === 2)
    expect(admission.counts()).toMatchObject({ running: 1, waiting: 1, limit: 1 })
    work.finish('b')
    await until(() => work.started.length === 3)
    work.finish('c')
    await admission.idle()
    expect(logger.withMessage('review limit unreadable; using the last one read').length).toBeGreaterThan(0)
  })

  it('reads the limit when a review may get its place', async () => {
    const limit = limitOf(1)
    const work = tasks()
    const admission = createAdmission({ readLimit: limit.readLimit })
    admission.submit('a', work.task('a'))
    await until(() => work.started.length === 1)
    const before = limit.reads()
    admission.submit('b', work.task('b'))
    await until(() => limit.reads() > before, 'a read for the new request')
    work.finish('a')
    await until(() => work.started.length === 2)
    expect(limit.reads()).toBeGreaterThanOrEqual(before + 2)
    work.finish('b')
    await admission.idle()
  })

  it('keeps a place taken while a run fails and frees it after', async () => {
    const logger = createRecordingLogger()
    const admission = createAdmission({ readLimit: async () => 1, logger })
    const ran: string[] = []
    admission.submit('boom', {
      run: async () => {
        ran.push('boom')
        throw new Error('a bug')
      },
      turnAway: async () => undefined,
    })
    admission.submit('next', { run: async () => void ran.push('next'), turnAway: async () => undefined })
    await admission.idle()
    expect(ran).toEqual(['boom', 'next'])
    expect(logger.withMessage('review admission task failed')).toHaveLength(1)
  })
})
