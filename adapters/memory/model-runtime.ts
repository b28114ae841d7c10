/**
 * A model runtime that answers from a script instead of a model, keeping the
 * real runtime's contract: a session is opened ahead and asked once, the
 * deadline counts from the ask, an abort ends the session asked or not, a
 * closed session answers nothing, and nothing rejects.
 */

import { describeError } from '../../core/base/errors.ts'
import { err, ok } from '../../core/base/result.ts'
import type { Usage } from '../../core/wire/types.ts'
import type {
  ClassifyInput,
  ClassifyResult,
  ModelFailure,
  ModelRuntime,
  ModelSession,
  SessionSpec,
} from '../../ports/model-runtime.ts'

/** Decides one ask's outcome; a promise that never settles stands for a hung session. */
export type ModelScript = (input: ClassifyInput, call: number) => ClassifyResult | Promise<ClassifyResult>

export type ScriptedModelRuntime = ModelRuntime & {
  /** Every question asked, as its session's spec with the question, in the order asked. */
  readonly calls: ClassifyInput[]
  /** Every session's spec, in the order opened. */
  readonly opens: SessionSpec[]
  /**
   * What happened to the sessions, in order, each session named by its
   * number in opening order: `open 2`, `ask 2`, `answer 2` (the ask's
   * result, whatever it was), `close 2` (the first close only).
   */
  readonly events: string[]
  /** Every `endRun` call's run id, in call order. */
  readonly endedRuns: string[]
  /** Sessions asked and not answered yet. */
  inFlight(): number
  /** The most sessions asked and unanswered at once. */
  maxInFlight(): number
  /** Sessions opened and not closed yet, asked or not. */
  openNow(): number
  /** The most sessions open at once. */
  maxOpen(): number
}

/** The model answered `text`. */
export function answered(text: string, usage: Usage | null = null): ClassifyResult {
  return ok({ text, usage })
}

/** The session failed. */
export function failed(kind: ModelFailure['kind'], detail: string): ClassifyResult {
  return err({ kind, detail })
}

/** A session that never ends on its own, so only the deadline or an abort stops it. */
export function hang(): Promise<ClassifyResult> {
  return new Promise<ClassifyResult>(() => undefined)
}

export function createScriptedModelRuntime(script: ModelScript): ScriptedModelRuntime {
  const calls: ClassifyInput[] = []
  const opens: SessionSpec[] = []
  const events: string[] = []
  const endedRuns: string[] = []
  let running = 0
  let peak = 0
  let openCount = 0
  let openPeak = 0

  async function runScript(input: ClassifyInput, call: number): Promise<ClassifyResult> {
    try {
      return await script(input, call)
    } catch (error) {
      return failed('runtime', describeError(error))
    }
  }

  function open(spec: SessionSpec): ModelSession {
    opens.push(spec)
    const number = opens.length
    events.push(`open ${number}`)
    openCount += 1
    openPeak = Math.max(openPeak, openCount)
    let asked = false
    let closed = false
    let onClose: (() => void) | undefined

    async function ask(question: Parameters<ModelSession['ask']>[0], options: Parameters<ModelSession['ask']>[1] = {}) {
      if (asked) return failed('runtime', 'this session was asked already')
      asked = true
      if (closed) return failed('runtime', 'the session was closed')
      events.push(`ask ${number}`)
      const signal = spec.signal
      if (signal?.aborted) {
        events.push(`answer ${number}`)
        return failed('runtime', 'cancelled')
      }
      const input: ClassifyInput = { ...spec, ...question }
      calls.push(input)
      const call = calls.length
      running += 1
      peak = Math.max(peak, running)
      const stops: Array<() => void> = []
      try {
        options.onUnderway?.()
        const deadline = new Promise<ClassifyResult>((resolve) => {
          const timer = setTimeout(
            () => resolve(failed('timeout', `no answer within ${question.deadlineMs} ms`)),
            question.deadlineMs,
          )
          stops.push(() => clearTimeout(timer))
        })
        const aborted = new Promise<ClassifyResult>((resolve) => {
          if (signal === undefined) return
          const onAbort = () => resolve(failed('runtime', 'cancelled'))
          signal.addEventListener('abort', onAbort, { once: true })
          stops.push(() => signal.removeEventListener('abort', onAbort))
        })
        const closing = new Promise<ClassifyResult>((resolve) => {
          onClose = () => resolve(failed('runtime', 'the session was closed'))
        })
        return await Promise.race([runScript(input, call), deadline, aborted, closing])
      } finally {
        for (const stop of stops) stop()
        running -= 1
        events.push(`answer ${number}`)
      }
    }

    return {
      ask,
      async close() {
        if (closed) return
        closed = true
        openCount -= 1
        events.push(`close ${number}`)
        onClose?.()
      },
    }
  }

  return {
    calls,
    opens,
    events,
    endedRuns,
    open,
    async endRun(runId) {
      endedRuns.push(runId)
    },
    inFlight: () => running,
    maxInFlight: () => peak,
    openNow: () => openCount,
    maxOpen: () => openPeak,
  } satisfies ScriptedModelRuntime
}
