/**
 * `GET /api/review-classifier/spend` (docs/behaviour.md, "Daily budget"):
 * today's spend (UTC) against `budget.daily_usd`, by repo, and the days the
 * ledger keeps, newest first. For admins and scripts: the pages show no
 * cost. The gateway's `admins` rule gates it, as it does the runs route.
 */
import { Elysia } from 'elysia'
import { SpendViewSchema } from '../../../../core/wire/schemas.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { QueueLink } from '../../../../ports/queue.ts'
import type { SpendLedger } from '../../usecases/settings/spend-ledger.ts'
import { ProblemSchema, requireQueue, storeFailure } from '../problem.ts'

export type SpendRoutesDeps = {
  queue: QueueLink | null
  spend: Pick<SpendLedger, 'view'>
  logger: Logger
}

export function spendRoutes(deps: SpendRoutesDeps) {
  const { queue, spend, logger } = deps
  return new Elysia({ name: 'review-classifier-spend', prefix: '/api/review-classifier' }).get(
    '/spend',
    async () => {
      requireQueue(queue)
      try {
        return await spend.view()
      } catch (error) {
        throw storeFailure(logger, 'spend', 'read', error)
      }
    },
    {
      response: { 200: SpendViewSchema, 500: ProblemSchema, 503: ProblemSchema },
      detail: {
        summary: "Today's spend (UTC) against the daily budget, by repo, and the last 31 days, newest first",
        description:
          "What the classifications cost as the budget counts them: claude's total_cost_usd on the API key runtime, " +
          'the cost at the settings’ prices on the ACP runtime. 503 without a swarm queue.',
        tags: ['runs'],
      },
    },
  )
}
