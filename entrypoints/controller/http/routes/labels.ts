/**
 * `GET /api/review-classifier/labels?repo=owner/name`: the labels given
 * from the repo's PR comments (docs/behaviour.md, "Waivers and labels"),
 * newest first, one per PR and rule, for the try-out page to show beside the
 * examples file's. The gateway's `admins` rule gates it, like the runs.
 */
import { Elysia } from 'elysia'
import { PrLabelListSchema } from '../../../../core/repo-files/pr-labels.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { QueueLink } from '../../../../ports/queue.ts'
import type { PrLabelStore } from '../../usecases/repo-files/pr-labels.ts'
import { ProblemSchema, requireQueue, storeFailure } from '../problem.ts'
import { parseRepoParam, RepoQuerySchema } from './forge-read.ts'

export type LabelsRoutesDeps = { queue: QueueLink | null; labels: PrLabelStore; logger: Logger }

export function labelsRoutes(deps: LabelsRoutesDeps) {
  const { queue, labels, logger } = deps
  return new Elysia({ name: 'review-classifier-labels', prefix: '/api/review-classifier' }).get(
    '/labels',
    async ({ query }) => {
      const repo = repoName(parseRepoParam(query.repo))
      requireQueue(queue)
      try {
        return { repo, labels: await labels.list(repo) }
      } catch (error) {
        throw storeFailure(logger, 'labels', 'read', error)
      }
    },
    {
      query: RepoQuerySchema,
      response: { 200: PrLabelListSchema, 400: ProblemSchema, 500: ProblemSchema, 503: ProblemSchema },
      detail: {
        summary: "The labels given from a repo's PR comments, not yet in its examples file",
        description: 'Newest first, one per PR and rule; 400 for a repo that is not owner/name.',
        tags: ['try-out'],
      },
    },
  )
}
