/**
 * A review's way to the queue and its place in the daily budget
 * (docs/behaviour.md, "Daily budget", "Trigger and lifecycle"): the budget
 * looked at before the PR is read, and the review's run reserved, sent and
 * settled (budgeted-run.ts). With a watch on the queue's connection, each
 * of these waits for a queue out of reach (queue-reach.ts), up to
 * `RUN_TIMEOUT_S` from the review's place, as the settings read does.
 */

import { err, type Result } from '../../../../core/base/result.ts'
import type { NoRunCause } from '../../../../core/review/no-run.ts'
import type { RepoRef, RunRequest } from '../../../../core/wire/types.ts'
import type { QueueWatch, RunQueue } from '../../../../ports/queue.ts'
import { budgetUnreadableReason, sendBudgetedRun } from '../run/budgeted-run.ts'
import { createQueueReach, isQueueUnreachable, type QueueReach } from '../run/queue-reach.ts'
import type { RunExchangeOptions } from '../run/run-exchange.ts'
import type { SpendLedger } from '../settings/spend-ledger.ts'
import { type Conclusion, noRunConclusion, noVerdict } from './review-conclusion.ts'

/** Why the budget lets no run start: spent, or its ledger unreadable (core/review/no-run.ts). */
export type BudgetRefusal = Extract<NoRunCause, { kind: 'budget-spent' | 'budget-unreadable' }>

/** How one review reaches the queue: its steps and its run queue, waiting for it with a watch. */
export type Reaching = { reach: QueueReach; queue: RunQueue }

export type ReviewBudgetDeps = {
  queue: RunQueue
  exchange: Pick<RunExchangeOptions, 'runTimeoutMs' | 'replyMarginMs'>
  spend?: Pick<SpendLedger, 'whyNoRun' | 'reserve'>
  queueWatch?: QueueWatch
}

/** What one review reaches the queue through: waiting for it with a watch (its bound starts now), at once without. */
export function reachFor(deps: ReviewBudgetDeps, signal: AbortSignal | undefined): Reaching {
  if (deps.queueWatch === undefined) return { reach: (step) => step(), queue: deps.queue }
  const reachable = createQueueReach({
    watch: deps.queueWatch,
    boundMs: deps.exchange.runTimeoutMs,
    ...(signal === undefined ? {} : { signal }),
  })
  return { reach: reachable.reach, queue: reachable.runQueue(deps.queue) }
}

/**
 * Why the budget lets no run start now, or null; a budget that can't be
 * checked starts none either. Without `reach`, a queue out of reach answers
 * `unreachable` (with a watch only), and the review looks again through its
 * reach, waiting for the queue.
 */
export async function budgetRefusal(
  deps: ReviewBudgetDeps,
  repo: RepoRef,
  reach: QueueReach | null,
): Promise<BudgetRefusal | null | 'unreachable'> {
  const { spend } = deps
  if (spend === undefined) return null
  try {
    const reason = await (reach ?? ((step) => step()))(() => spend.whyNoRun(repo))
    return reason === null ? null : { kind: 'budget-spent', reason }
  } catch (error) {
    if (reach === null && deps.queueWatch !== undefined && isQueueUnreachable(error)) return 'unreachable'
    return { kind: 'budget-unreadable', reason: budgetUnreadableReason(error) }
  }
}

/**
 * The review's run sent within the budget, its reservation and its request
 * both through the review's reach; a refused one is the conclusion (no run
 * started): the budget spent sets the budget status, a ledger that couldn't
 * be read (the queue out of reach past `RUN_TIMEOUT_S` included) the error one.
 */
export async function sendReviewRun(
  deps: ReviewBudgetDeps,
  request: RunRequest,
  reaching: Reaching,
  signal: AbortSignal | undefined,
): Promise<Result<string, Conclusion>> {
  const options = signal === undefined ? deps.exchange : { ...deps.exchange, signal }
  const { spend } = deps
  const budgeted = {
    queue: reaching.queue,
    ...(spend === undefined
      ? {}
      : { spend: { reserve: (run: RunRequest) => reaching.reach(() => spend.reserve(run)) } }),
  }
  const sent = await sendBudgetedRun(budgeted, request, options)
  if (sent.kind === 'sent') return sent.reply.ok ? sent.reply : err(noVerdict(sent.reply.error))
  return err(
    noRunConclusion({ kind: sent.why === 'spent' ? 'budget-spent' : 'budget-unreadable', reason: sent.reason }),
  )
}
