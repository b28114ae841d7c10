/**
 * One run sent to the classifier within the daily budget (docs/behaviour.md,
 * "Daily budget"): its estimated cost reserved first, the run sent only once
 * the ledger granted it, and the reservation settled with the reply. A
 * review, each run of a try-out and each run of the rules-change report all
 * go through here, so none of them can start on a spent budget, whatever
 * else runs at once.
 */
import { describeError } from '../../../../core/base/errors.ts'
import { ok, type Result } from '../../../../core/base/result.ts'
import { unaskedReply } from '../../../../core/run/unasked-run.ts'
import type { RunRequest } from '../../../../core/wire/types.ts'
import type { RunQueue } from '../../../../ports/queue.ts'
import type { SpendLedger } from '../settings/spend-ledger.ts'
import { type RunExchangeOptions, sendRunRequest } from './run-exchange.ts'

export type BudgetedRunDeps = {
  queue: RunQueue
  /** The daily budget's ledger; none: no budget, and nothing is reserved or settled. */
  spend?: Pick<SpendLedger, 'reserve'>
}

/** How a run within the budget went: not started for the budget (`spent`, or the ledger `unreadable`), or sent. */
export type BudgetedReply =
  | { kind: 'refused'; why: 'spent' | 'unreadable'; reason: string }
  | { kind: 'sent'; reply: Result<string, string> }

/** Why a run didn't start when the ledger couldn't be read. */
export function budgetUnreadableReason(error: unknown): string {
  return `today's spend against the budget couldn't be read: ${describeError(error)}`
}

/**
 * Reserves, sends and settles one run; never rejects. A run whose every
 * classification is out of scope of its diff is neither reserved nor sent:
 * its approval is written here (core/run/unasked-run.ts), with no model call.
 */
export async function sendBudgetedRun(
  deps: BudgetedRunDeps,
  request: RunRequest,
  options: RunExchangeOptions,
): Promise<BudgetedReply> {
  const unasked = unaskedReply(request)
  if (unasked !== null) return { kind: 'sent', reply: ok(JSON.stringify(unasked)) }
  if (deps.spend === undefined) return { kind: 'sent', reply: await sendRunRequest(deps.queue, request, options) }
  // A run stopped before it starts reserves nothing.
  if (options.signal?.aborted) return { kind: 'sent', reply: await sendRunRequest(deps.queue, request, options) }
  let budget: Awaited<ReturnType<SpendLedger['reserve']>>
  try {
    budget = await deps.spend.reserve(request)
  } catch (error) {
    return { kind: 'refused', why: 'unreadable', reason: budgetUnreadableReason(error) }
  }
  if (budget.kind === 'refused') return { kind: 'refused', why: 'spent', reason: budget.reason }
  const reply = await sendRunRequest(deps.queue, request, options)
  if (reply.ok) await budget.settle(reply.value)
  return { kind: 'sent', reply }
}
