/**
 * A model runtime that answers from a script instead of a model, keeping the
 * real runtime's contract: the deadline counts from the call, an abort ends
 * the session, and nothing rejects.
 */

import { err, ok } from '../../core/result.ts'
import type { Usage } from '../../core/types.ts'
import type { ClassifyInput, ClassifyResult, ModelFailure, ModelRuntime } from '../../ports/model-runtime.ts'

/** Decides one call's outcome; a promise that never settles stands for a hung session. */
export type ModelScript = (input: ClassifyInput, call: number) => ClassifyResult | Promise<ClassifyResult>

export type ScriptedModelRuntime = ModelRuntime & {
  /** Every call's input, in call order. */
  readonly calls: ClassifyInput[]
  /** Every `endRun` call's run id, in call order. */
  readonly endedRuns: string[]
  /** Sessions running right now. */
  inFlight(): number
  /** The most sessions that ran at once. */
  maxInFlight(): number
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
  const endedRuns: string[] = []
  let running = 0
  let peak = 0

  async function runScript(input: ClassifyInput, call: number): Promise<ClassifyResult> {
    try {
      return await script(input, call)
    } catch (error) {
      return failed('runtime', error instanceof Error ? error.message : String(error))
    }
  }

  async function classify(input: ClassifyInput): Promise<ClassifyResult> {
    calls.push(input)
    const call = calls.length
    running += 1
    peak = Math.max(peak, running)
    const stops: Array<() => void> = []
    try {
      const deadline = new Promise<ClassifyResult>((resolve) => {
        const timer = setTimeout(
          () => resolve(failed('timeout', `no answer within ${input.deadlineMs} ms`)),
          input.deadlineMs,
        )
        stops.push(() => clearTimeout(timer))
      })
      const aborted = new Promise<ClassifyResult>((resolve) => {
        const signal = input.signal
        if (signal === undefined) return
        const onAbort = () => resolve(failed('runtime', 'cancelled'))
        if (signal.aborted) return onAbort()
        signal.addEventListener('abort', onAbort, { once: true })
        stops.push(() => signal.removeEventListener('abort', onAbort))
      })
      return await Promise.race([runScript(input, call), deadline, aborted])
    } finally {
      for (const stop of stops) stop()
      running -= 1
    }
  }

  return {
    calls,
    endedRuns,
    classify,
    async endRun(runId) {
      endedRuns.push(runId)
    },
    inFlight() {
      return running
    },
    maxInFlight() {
      return peak
    },
  } satisfies ScriptedModelRuntime
}
