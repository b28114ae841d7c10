/**
 * `GET /api/review-classifier/runs`: the newest 100 finished runs, newest
 * first. The gateway's `admins` rule gates it; the controller checks no header.
 */
import { Elysia } from 'elysia'
import { RunListSchema } from '../../../../core/wire/schemas.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { QueueLink } from '../../../../ports/queue.ts'
import type { RunStore } from '../../usecases/run/run-store.ts'
import { ProblemSchema, requireQueue, storeFailure } from '../problem.ts'

export type RunsRoutesDeps = {
  queue: QueueLink | null
  runs: RunStore
  logger: Logger
}

export function runsRoutes(deps: RunsRoutesDeps) {
  const { queue, runs, logger } = deps
  return new Elysia({ name: 'review-classifier-runs', prefix: '/api/review-classifier' }).get(
    '/runs',
    async () => {
      requireQueue(queue)
      try {
        return await runs.list()
      } catch (error) {
        throw storeFailure(logger, 'runs', 'read', error)
      }
    },
    {
      response: { 200: RunListSchema, 500: ProblemSchema, 503: ProblemSchema },
      detail: { summary: 'The newest 100 finished runs, newest first', tags: ['runs'] },
    },
  )
}
