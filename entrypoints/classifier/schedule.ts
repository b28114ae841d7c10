/**
 * How a run's questions are started. Warm first (docs/decisions.md, the
 * default): the first question runs alone so the provider writes the shared
 * prefix to its cache; the rest then run in parallel and read it from
 * there. Their sessions start while the first is asked (once its question
 * is under way, so their start-up does not slow its own), on spare places,
 * and get their question the moment the first answer is in. `all-parallel`
 * opens and asks every question at once; it exists so bench/cache.ts can
 * measure the other side.
 */
import type { ClassificationResult } from '../../core/run/aggregate.ts'
import type { QuestionAsker } from './question.ts'
import { endSession, type Held, type HeldAhead, openAhead, openNow, type RunInHand } from './run-in-hand.ts'
import type { SessionLimiter } from './session-limiter.ts'

export type Schedule = 'warm-first' | 'all-parallel'

export type ScheduleDeps = { schedule: Schedule; limiter: SessionLimiter; ask: QuestionAsker }

/** Every question of the run, in the request's order; `first` is the first one's session, opened before the prompt was built. */
export async function classifyAll(
  deps: ScheduleDeps,
  run: RunInHand,
  first: Promise<Held | null>,
  context: string,
): Promise<ClassificationResult[]> {
  const { ask, limiter } = deps
  const [head, ...rest] = run.request.classifications
  if (head === undefined) return []
  if (deps.schedule === 'all-parallel') {
    const others = rest.map(() => openNow(limiter, run))
    return Promise.all(
      [first, ...others].map(async (held, at) => {
        const classification = run.request.classifications[at] ?? head
        return ask(run, await held, classification, context)
      }),
    )
  }
  const ahead: Array<HeldAhead | null> = rest.map(() => null)
  let firstEnded = false
  const startAhead = () => {
    if (firstEnded) return
    for (let at = 0; at < rest.length; at += 1) ahead[at] = openAhead(limiter, run)
  }
  const warm = await ask(run, await first, head, context, { onUnderway: startAhead })
  firstEnded = true
  const others = await Promise.all(
    rest.map(async (classification, at) => {
      const early = ahead[at] ?? null
      if (early?.place.keep() === true) return ask(run, early, classification, context)
      // Taken back for another session (its process already ended), or never started: a place now.
      if (early !== null) await endSession(run, early.session)
      return ask(run, await openNow(limiter, run), classification, context)
    }),
  )
  return [warm, ...others]
}
