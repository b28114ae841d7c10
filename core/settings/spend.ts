/**
 * The daily budget (docs/behaviour.md, "Daily budget"): the `budget`
 * setting's checks, what one classification counts toward it, the ledger's
 * one document per UTC day, and the refusal a run gets once the day's
 * budget is spent. The controller's ledger (usecases/settings/spend-ledger.ts) does
 * the reads and compare-and-set writes; everything it decides is here.
 */

import { isRecord } from '../wire/decode.ts'
import type { AcpProvider, Budget, Runtime, SpendView, Usage } from '../wire/types.ts'
import { costUsd } from './cost.ts'

export const SPEND_BUCKET = 'review-classifier-spend'
/** Days the ledger keeps, today included; older keys are deleted. */
export const SPEND_DAYS_KEPT = 31

const DAY_MS = 86_400_000
const DAY_KEY = /^\d{4}-\d{2}-\d{2}$/

/**
 * A run's claim on the day's budget, made before it starts (core/spend-ledger-doc.ts):
 * what it is estimated to cost, what its sessions have recorded against it
 * so far, and when it is dropped if nobody settles it (a controller died).
 */
export type SpendReservation = {
  repo: string
  usd: number
  spent_usd: number
  /** Unix seconds, on the clock of whoever made it. */
  expires_unix: number
}

/** One day's key and document in the ledger. */
export type DaySpend = {
  day: string
  spent_usd: number
  /** By `owner/name`. */
  by_repo: Record<string, number>
  /** The part of `spent_usd` that is an estimate: sessions without a figure, at their input tokens' price. */
  estimated_usd: number
  /** By run id: the runs under way that reserved their estimated cost. */
  reservations: Record<string, SpendReservation>
}

/** A day with nothing spent or reserved. */
export function emptyDay(day: string): DaySpend {
  return { day, spent_usd: 0, by_repo: {}, estimated_usd: 0, reservations: {} }
}

/** The UTC day of `ms` as the ledger's key, `YYYY-MM-DD`. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** The oldest day the ledger keeps on `today`: {@link SPEND_DAYS_KEPT} days, today included. */
export function oldestKeptDay(today: string): string {
  return utcDay(Date.parse(`${today}T00:00:00Z`) - (SPEND_DAYS_KEPT - 1) * DAY_MS)
}

/** The `count` days ending `last`, oldest first. */
function daysEnding(last: string, count: number): string[] {
  const end = Date.parse(`${last}T00:00:00Z`)
  return Array.from({ length: count }, (_, index) => utcDay(end - (count - 1 - index) * DAY_MS))
}

/** The days the ledger keeps on `today`, oldest first, today included: read by name, never by listing the bucket. */
export function keptDays(today: string): string[] {
  return daysEnding(today, SPEND_DAYS_KEPT)
}

/**
 * The days a new day deletes: the {@link SPEND_DAYS_KEPT} before the kept ones, by name. Listing the
 * bucket's keys while others write to it can stall for half a minute on NATS (the key consumer waits
 * for its idle heartbeat); a ledger unused for over 62 days keeps its older days, unread.
 */
export function expiredDays(today: string): string[] {
  return daysEnding(utcDay(Date.parse(`${today}T00:00:00Z`) - SPEND_DAYS_KEPT * DAY_MS), SPEND_DAYS_KEPT)
}

/**
 * Whether `key` is a ledger day older than the ones kept on `today`, to be
 * deleted. A day after today (another controller's clock a little ahead at
 * midnight) is kept.
 */
export function dayIsExpired(key: string, today: string): boolean {
  return DAY_KEY.test(key) && key < oldestKeptDay(today)
}

/** `$5.00`; an amount under a cent keeps the digits that show it. */
export function formatUsd(usd: number): string {
  if (usd !== 0 && Math.abs(usd) < 0.01) return `$${Number(usd.toPrecision(2))}`
  return `$${usd.toFixed(2)}`
}

/**
 * Reads `budget` from a settings body or stored document: `null` (no limit)
 * or `{ "daily_usd": <number> }`. The range is {@link budgetProblems}'.
 */
export function readBudget(value: unknown, refuseUnknown: boolean, problems: string[]): Budget | null | undefined {
  if (value === null) return null
  if (!isRecord(value)) {
    problems.push('budget must be an object with daily_usd, the most USD a UTC day may cost, or null for no limit')
    return undefined
  }
  const before = problems.length
  if (refuseUnknown) {
    for (const key of Object.keys(value)) {
      if (key !== 'daily_usd')
        problems.push(`unknown field ${JSON.stringify(`budget.${key}`)}: expected only daily_usd`)
    }
  }
  if (!('daily_usd' in value)) problems.push('budget needs daily_usd, the most USD a UTC day may cost')
  else if (typeof value.daily_usd !== 'number') {
    problems.push(
      `budget.daily_usd must be a number of USD, not ${value.daily_usd === null ? 'null' : typeof value.daily_usd}`,
    )
  }
  if (problems.length > before || typeof value.daily_usd !== 'number') return undefined
  return { daily_usd: value.daily_usd }
}

/** The rule a stored budget keeps: more than 0 USD. */
export function budgetProblems(budget: Budget | null): string[] {
  if (budget === null) return []
  const usd = budget.daily_usd
  return Number.isFinite(usd) && usd > 0 ? [] : [`budget.daily_usd must be more than 0 USD, not ${usd}`]
}

/**
 * What one classification counts toward the budget, or `null` when its
 * runtime reported no figure (it then counts 0, and the classifier logs
 * it): on the API key runtime the CLI's own `total_cost_usd`; on the ACP
 * runtime the cost of its token counts at the settings' prices, as the cost
 * counter has it. On the subscription runtime the cost is notional (the
 * subscription is paid for whatever runs): it counts 0, a figure, not a
 * missing one, so nothing is logged.
 */
export function classificationCostUsd(
  runtime: Runtime,
  answer: { costUsd?: number | null; usage: Usage | null },
  acp: AcpProvider | null,
): number | null {
  if (runtime === 'api-key') return validCost(answer.costUsd ?? null)
  if (runtime === 'acp')
    return answer.usage === null || acp === null ? null : validCost(costUsd(answer.usage, acp.prices))
  return 0
}

function validCost(usd: number | null): number | null {
  return usd !== null && Number.isFinite(usd) && usd >= 0 ? usd : null
}

/** The day's document with `usd` added for `repo` (`estimated`: the figure is an estimate); `current` null starts the day. */
export function addSpend(
  current: DaySpend | null,
  day: string,
  repo: string,
  usd: number,
  estimated = false,
): DaySpend {
  const base = current ?? emptyDay(day)
  return {
    ...base,
    day,
    spent_usd: base.spent_usd + usd,
    by_repo: { ...base.by_repo, [repo]: (base.by_repo[repo] ?? 0) + usd },
    estimated_usd: base.estimated_usd + (estimated ? usd : 0),
  }
}

/** A stored day read back; a document that isn't one counts nothing and says why. */
export function decodeDaySpend(text: string, day: string): { spend: DaySpend; warning: string | null } {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    return { spend: emptyDay(day), warning: "the stored day isn't JSON" }
  }
  if (!isRecord(raw) || !isAmount(raw.spent_usd) || !isRecord(raw.by_repo)) {
    return { spend: emptyDay(day), warning: 'the stored day has no spent_usd and by_repo' }
  }
  const byRepo: Record<string, number> = {}
  for (const [repo, usd] of Object.entries(raw.by_repo)) if (isAmount(usd)) byRepo[repo] = usd
  // A day an older controller wrote has neither: nothing estimated, nothing reserved.
  const reservations: Record<string, SpendReservation> = {}
  if (isRecord(raw.reservations)) {
    for (const [id, value] of Object.entries(raw.reservations)) {
      const reservation = decodeReservation(value)
      if (reservation !== null) reservations[id] = reservation
    }
  }
  const estimated = isAmount(raw.estimated_usd) ? raw.estimated_usd : 0
  return {
    spend: { day, spent_usd: raw.spent_usd, by_repo: byRepo, estimated_usd: estimated, reservations },
    warning: null,
  }
}

function decodeReservation(value: unknown): SpendReservation | null {
  if (!isRecord(value) || typeof value.repo !== 'string') return null
  if (!isAmount(value.usd) || !isAmount(value.spent_usd) || !isAmount(value.expires_unix)) return null
  return { repo: value.repo, usd: value.usd, spent_usd: value.spent_usd, expires_unix: value.expires_unix }
}

function isAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
}

/**
 * Lower-case sentence for after `**No verdict:** ` (and a try-out's 429),
 * once today's spend and what the runs under way reserved have reached the
 * budget; `null` while a run may start.
 */
export function budgetRefusal(budget: Budget | null, spentUsd: number, reservedUsd = 0): string | null {
  if (budget === null || spentUsd + reservedUsd < budget.daily_usd) return null
  const reserved = reservedUsd > 0 ? `, and ${formatUsd(reservedUsd)} reserved by runs under way` : ''
  return (
    `today's budget of ${formatUsd(budget.daily_usd)} (UTC) is spent (${formatUsd(spentUsd)} so far${reserved}), so no run starts: ` +
    'request it again after 00:00 UTC, or an admin raises budget.daily_usd in the settings'
  )
}

/** The spend route's body from today's document, what its runs under way still hold reserved, and the kept days' (any order). */
export function spendView(
  today: DaySpend,
  budget: Budget | null,
  days: readonly DaySpend[],
  reservedUsd = 0,
): SpendView {
  const kept = days
    .filter((d) => d.day <= today.day && !dayIsExpired(d.day, today.day))
    .sort((a, b) => (a.day < b.day ? 1 : -1))
  return {
    day: today.day,
    spent_usd: today.spent_usd,
    estimated_usd: today.estimated_usd,
    reserved_usd: reservedUsd,
    budget_usd: budget?.daily_usd ?? null,
    by_repo: { ...today.by_repo },
    days: kept.map((d) => ({ day: d.day, spent_usd: d.spent_usd })),
  }
}
