/**
 * `GET /api/review-classifier/examples?repo=owner/name`: the repo's labelled
 * examples from its default branch (docs/behaviour.md, "Labelled examples
 * and reliability"), answered like the `rules` route: 404 for no file, 422
 * for one that doesn't load.
 */

import { Elysia } from 'elysia'
import { appError } from '../../../../core/base/errors.ts'
import { describeExamplesRefusal, describeNoExamples } from '../../../../core/repo-files/repo-examples.ts'
import { RepoExamplesSchema } from '../../../../core/wire/schemas.ts'
import type { Logger } from '../../../../ports/logger.ts'
import { loadDefaultBranchExamples } from '../../usecases/repo-files/examples-loader.ts'
import type { RulesReader } from '../../usecases/repo-files/rules-loader.ts'
import { ProblemSchema } from '../problem.ts'
import { forgeFailure, parseRepoParam, RepoQuerySchema, requireForge } from './forge-read.ts'

export type ExamplesRoutesDeps = {
  /** A whole `ForgeReader` will do; `null` when this host has no forge configured. */
  forge: RulesReader | null
  logger: Logger
}

export function examplesRoutes(deps: ExamplesRoutesDeps) {
  const { logger } = deps
  return new Elysia({ name: 'review-classifier-examples', prefix: '/api/review-classifier' }).get(
    '/examples',
    async ({ query }) => {
      const repo = parseRepoParam(query.repo)
      const forge = requireForge(deps.forge)
      let loaded: Awaited<ReturnType<typeof loadDefaultBranchExamples>>['loaded']
      try {
        loaded = (await loadDefaultBranchExamples(forge, repo)).loaded
      } catch (error) {
        throw forgeFailure(error, 'the examples', logger)
      }
      switch (loaded.kind) {
        case 'none':
          throw appError('not_found', describeNoExamples(repo, loaded.branch))
        case 'both':
        case 'invalid':
          throw appError('unprocessable', describeExamplesRefusal(loaded))
        case 'examples':
          return { path: loaded.path, branch: loaded.branch, commit: loaded.commit, examples: loaded.examples }
      }
    },
    {
      query: RepoQuerySchema,
      response: {
        200: RepoExamplesSchema,
        400: ProblemSchema,
        404: ProblemSchema,
        422: ProblemSchema,
        503: ProblemSchema,
      },
      detail: {
        summary: "The repo's labelled examples from its default branch",
        description:
          '404 for a repo the forge does not know, an empty repo, a missing default branch, or neither examples file; ' +
          '422 for both files or a file that does not load; 503 without a forge or its token, or when the forge fails.',
        tags: ['try-out'],
      },
    },
  )
}
