/**
 * One run in hand and its model sessions: every session is opened on a
 * place of the session limiter and recorded with it, so none outlives the
 * run, and each one ended gives its place back.
 */
import type { RuleScope } from '../../core/run/scope.ts'
import type { RunRequest } from '../../core/wire/types.ts'
import type { ModelRuntime, ModelSession, SessionSpec } from '../../ports/model-runtime.ts'
import type { RunTell } from '../../ports/queue.ts'
import type { Place, SessionLimiter, SparePlace } from './session-limiter.ts'

/** One run in hand: what every one of its questions shares. */
export type RunInHand = {
  /** The request with only the classifications in scope: those its questions ask. */
  request: RunRequest
  /** Each classification's scope, by name, for the files its question names; none: no question names files. */
  scopes?: ReadonlyMap<string, RuleScope>
  runtime: ModelRuntime
  /** What every session of the run is opened with. */
  spec: SessionSpec
  /** Aborts when the service shuts down. */
  signal: AbortSignal
  tell: RunTell
  /** Every session opened for the run and not ended yet, with its place, so none outlives the run. */
  opened: Map<ModelSession, Place>
  /** Sessions being closed in the background once answered; the run waits for them before it ends. */
  closing: Set<Promise<void>>
  /** What the run's classifications cost as the budget counts it (core/settings/spend.ts), for the reply. */
  spend: RunSpend
}

/**
 * A run's spend as its questions end: the total for the reply's `cost_usd`,
 * the part written to the ledger (`cost_recorded_usd`), and the writes still
 * going, which the reply waits for.
 */
export type RunSpend = { usd: number; recordedUsd: number; writes: Promise<void>[] }

/** A session and the place it holds. */
export type Held = { session: ModelSession; place: Place }

/** A session started ahead of its question, on a spare place. */
export type HeldAhead = { session: ModelSession; place: SparePlace }

function openSession(run: RunInHand, place: Place): ModelSession {
  const session = run.runtime.open(run.spec)
  run.opened.set(session, place)
  return session
}

/** A place (waiting for one, first come, first served), then the session on it; null when the run was aborted meanwhile. */
export async function openNow(limiter: SessionLimiter, run: RunInHand): Promise<Held | null> {
  let place: Place
  try {
    place = await limiter.acquire(run.signal)
  } catch {
    return null
  }
  return { session: openSession(run, place), place }
}

/**
 * A session started ahead of its turn on a spare place, when one is free
 * and nobody waits; taken back (its session ended) if another session
 * needs the place first.
 */
export function openAhead(limiter: SessionLimiter, run: RunInHand): HeldAhead | null {
  let session: ModelSession | null = null
  const place = limiter.trySpare(() => {
    void session?.close()
  })
  if (place === null) return null
  session = openSession(run, place)
  return { session, place }
}

/** Closes a session and gives its place back. */
export async function endSession(run: RunInHand, session: ModelSession): Promise<void> {
  const place = run.opened.get(session)
  run.opened.delete(session)
  await session.close()
  place?.release()
}
