import { describe, expect, it } from 'bun:test'
import { raceAbort } from '../../../core/base/abort.ts'

/** A promise and its resolvers, for work that ends when the test says. */
function pending<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve: (value: T) => void = () => undefined
  let reject: (error: unknown) => void = () => undefined
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

describe('raceAbort', () => {
  it("is the work's outcome when the signal never aborts, or there is none", async () => {
    expect(await raceAbort(Promise.resolve('done'), new AbortController().signal)).toBe('done')
    expect(await raceAbort(Promise.resolve('done'), undefined)).toBe('done')
    await expect(raceAbort(Promise.reject(new Error('failed')), new AbortController().signal)).rejects.toThrow('failed')
  })

  it("rejects with the signal's reason the moment it aborts, and drops the work's later outcome", async () => {
    const work = pending<string>()
    const stop = new AbortController()
    const raced = raceAbort(work.promise, stop.signal)
    const reason = new Error('stopping')
    stop.abort(reason)
    work.resolve('too late')
    await expect(raced).rejects.toBe(reason)
  })

  it("is onAbort's value, computed when the signal aborts, not when the work ends", async () => {
    const work = pending<string>()
    const stop = new AbortController()
    let seen = 'before'
    const raced = raceAbort(work.promise, stop.signal, (reason) => `${String(reason)} at ${seen}`)
    stop.abort('stopped')
    seen = 'after'
    work.resolve('too late')
    expect(await raced).toBe('stopped at before')
  })

  it('answers a signal aborted before the race at once, and ignores a work that fails afterwards', async () => {
    const stop = new AbortController()
    stop.abort('already')
    const work = pending<string>()
    const raced = raceAbort(work.promise, stop.signal, () => 'stopped')
    work.reject(new Error('ignored'))
    expect(await raced).toBe('stopped')
  })

  it('stops listening to the signal once the work has ended', async () => {
    const stop = new AbortController()
    let calls = 0
    expect(await raceAbort(Promise.resolve(1), stop.signal, () => ++calls)).toBe(1)
    stop.abort()
    expect(calls).toBe(0)
  })
})
