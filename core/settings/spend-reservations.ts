/**
 * The budget as a reservation (docs/decisions.md, "Daily budget"): every run
 * reserves its estimated cost in the day's ledger document before it starts,
 * its sessions' costs are recorded against it as they end (by the
 * classifier), and its reply settles it. What these functions compute is
 * written with one compare-and-set on the day's key, so two controllers and
 * any number of classifiers see one ledger.
 *
 * A run may start while the day's spend plus what the runs under way still
 * hold reserved is under the budget. Each run so admitted can take the day
 * past it by at most its own cost, and only the last one admitted can: every
 * earlier one is already counted, at its estimate, by the time the next asks.
 *
 * A reservation nobody settles (its controller died, or stopped waiting for
 * a classifier that may still be spending) counts until it expires, then is
 * dropped by the next write; the sessions' costs stay counted as spend.
 */

import type { Budget } from '../wire/types.ts'
import { budgetRefusal, type DaySpend, emptyDay, type SpendReservation } from './spend.ts'

/** A run's claim, as the controller makes it before sending the run. */
export type RunClaim = { id: string; repo: string; usd: number; expiresUnix: number }

/** One session's cost, as the classifier records it when the session ends. */
export type SessionCost = { id: string; repo: string; usd: number; estimated: boolean }

export type ReserveOutcome = { kind: 'granted'; day: DaySpend } | { kind: 'refused'; reason: string }

function isLive(reservation: SpendReservation, nowUnix: number): boolean {
  return reservation.expires_unix > nowUnix
}

/** The day without the reservations expired at `nowUnix`. */
export function withoutStale(day: DaySpend, nowUnix: number): DaySpend {
  const reservations = Object.fromEntries(Object.entries(day.reservations).filter(([, r]) => isLive(r, nowUnix)))
  return { ...day, reservations }
}

/** What the live reservations still hold beyond what their sessions have recorded. */
export function reservedUsd(day: DaySpend, nowUnix: number): number {
  let held = 0
  for (const reservation of Object.values(day.reservations)) {
    if (isLive(reservation, nowUnix)) held += Math.max(0, reservation.usd - reservation.spent_usd)
  }
  return held
}

/** Why no run may start now (the refusal's words), or `null`; spend and reservations both count. */
export function dayRefusal(day: DaySpend, budget: Budget | null, nowUnix: number): string | null {
  return budgetRefusal(budget, day.spent_usd, reservedUsd(day, nowUnix))
}

/**
 * The day with `claim` reserved, or the refusal once spend and reservations
 * have reached the budget. A reservation already held under the claim's id is
 * the same run's earlier try (a write that landed though its answer was lost,
 * tried again once the queue came back): it is replaced, not counted against
 * the run itself.
 */
export function reserveRun(
  current: DaySpend | null,
  dayKey: string,
  budget: Budget | null,
  claim: RunClaim,
  nowUnix: number,
): ReserveOutcome {
  const stale = withoutStale(current ?? emptyDay(dayKey), nowUnix)
  const { [claim.id]: _earlier, ...others } = stale.reservations
  const day = { ...stale, reservations: others }
  const refusal = dayRefusal(day, budget, nowUnix)
  if (refusal !== null) return { kind: 'refused', reason: refusal }
  const reservation: SpendReservation = {
    repo: claim.repo,
    usd: claim.usd,
    spent_usd: 0,
    expires_unix: claim.expiresUnix,
  }
  return { kind: 'granted', day: { ...day, reservations: { ...day.reservations, [claim.id]: reservation } } }
}

/**
 * The day with one session's cost added to the spend (and to the estimated
 * part when it is one) and recorded against its run's reservation, if that
 * is still held, so the two aren't counted twice.
 */
export function recordSessionCost(
  current: DaySpend | null,
  dayKey: string,
  cost: SessionCost,
  nowUnix: number,
): DaySpend {
  const base = withoutStale(current ?? emptyDay(dayKey), nowUnix)
  const reservations = { ...base.reservations }
  const held = reservations[cost.id]
  if (held !== undefined) reservations[cost.id] = { ...held, spent_usd: held.spent_usd + cost.usd }
  return {
    ...base,
    spent_usd: base.spent_usd + cost.usd,
    by_repo: { ...base.by_repo, [cost.repo]: (base.by_repo[cost.repo] ?? 0) + cost.usd },
    estimated_usd: base.estimated_usd + (cost.estimated ? cost.usd : 0),
    reservations,
  }
}

/**
 * The run's reply is in: its reservation dropped, and `unrecordedUsd` (what
 * the reply says it cost beyond what its classifier recorded itself: all of
 * it from a classifier older than the ledger writes) added to the spend.
 */
export function settleRun(
  current: DaySpend | null,
  dayKey: string,
  run: { id: string; repo: string; unrecordedUsd: number },
  nowUnix: number,
): DaySpend {
  const base = withoutStale(current ?? emptyDay(dayKey), nowUnix)
  const { [run.id]: _settled, ...reservations } = base.reservations
  if (!(run.unrecordedUsd > 0)) return { ...base, reservations }
  return {
    ...base,
    spent_usd: base.spent_usd + run.unrecordedUsd,
    by_repo: { ...base.by_repo, [run.repo]: (base.by_repo[run.repo] ?? 0) + run.unrecordedUsd },
    reservations,
  }
}
