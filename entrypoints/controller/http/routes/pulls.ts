/**
 * `GET /api/pulls/repos` and `GET /api/pulls?repo=owner/name`: what the
 * try-out page's repo and PR fields offer to pick from (docs/behaviour.md, "Try-out"),
 * read with the controller's own token. The adapter reads every page.
 */

import { Elysia } from 'elysia'
import { appError, isAppError } from '../../../../core/base/errors.ts'
import { compareRepoNames, repoName } from '../../../../core/wire/repo.ts'
import { PullListSchema, PullReposSchema } from '../../../../core/wire/schemas.ts'
import type { ForgeReader } from '../../../../ports/forge.ts'
import type { Logger } from '../../../../ports/logger.ts'
import { ProblemSchema } from '../problem.ts'
import { forgeFailure, parseRepoParam, RepoQuerySchema, requireForge } from './forge-read.ts'

export type PullsRoutesDeps = {
  /** A whole `ForgeReader` will do; `null` when this host has no forge configured. */
  forge: Pick<ForgeReader, 'listReposWithOpenPulls' | 'listOpenPulls'> | null
  logger: Logger
}

export function pullsRoutes(deps: PullsRoutesDeps) {
  const { logger } = deps
  return new Elysia({ name: 'pulls', prefix: '/api/pulls' })
    .get(
      '/repos',
      async () => {
        const forge = requireForge(deps.forge)
        try {
          const repos = await forge.listReposWithOpenPulls()
          return [...new Set(repos.map(repoName))].sort(compareRepoNames)
        } catch (error) {
          throw forgeFailure(error, 'the repos with open pull requests', logger)
        }
      },
      {
        response: {
          200: PullReposSchema,
          503: ProblemSchema,
        },
        detail: {
          summary: 'The repos with at least one open pull request, as owner/name, sorted',
          description: '503 without a forge or its token, or when the forge fails.',
          tags: ['try-out'],
        },
      },
    )
    .get(
      '',
      async ({ query }) => {
        const repo = parseRepoParam(query.repo)
        const forge = requireForge(deps.forge)
        try {
          const pulls = await forge.listOpenPulls(repo)
          return pulls.map((pull) => ({ number: pull.number, title: pull.title, head_sha: pull.headSha }))
        } catch (error) {
          // The adapter's 404 names the route it called; say what it means here.
          if (isAppError(error, 'not_found'))
            throw appError('not_found', `the forge has no repo ${repoName(repo)} that this host can read`)
          throw forgeFailure(error, `the open pull requests of ${repoName(repo)}`, logger)
        }
      },
      {
        query: RepoQuerySchema,
        response: {
          200: PullListSchema,
          400: ProblemSchema,
          404: ProblemSchema,
          503: ProblemSchema,
        },
        detail: {
          summary: "The repo's open pull requests, highest number first",
          description:
            '404 for a repo the forge does not know; 503 without a forge or its token, or when the forge fails.',
          tags: ['try-out'],
        },
      },
    )
}
