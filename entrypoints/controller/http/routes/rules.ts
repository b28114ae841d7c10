/**
 * `GET /api/review-classifier/rules?repo=owner/name`: the repo's own rules
 * from its default branch, for the try-out page's editor (docs/behaviour.md, "Try-out").
 * The classifications come in the file's order and in the try-out POST's
 * shape, so the page can post them back as they are.
 */

import { Elysia } from 'elysia'
import { appError } from '../../../../core/base/errors.ts'
import { loadedRules } from '../../../../core/repo-files/repo-rules.ts'
import { RepoRulesSchema } from '../../../../core/wire/schemas.ts'
import type { Logger } from '../../../../ports/logger.ts'
import { loadDefaultBranchRules, type RulesReader } from '../../usecases/repo-files/rules-loader.ts'
import { ProblemSchema } from '../problem.ts'
import { forgeFailure, parseRepoParam, RepoQuerySchema, requireForge } from './forge-read.ts'

export type RulesRoutesDeps = {
  /** A whole `ForgeReader` will do; `null` when this host has no forge configured. */
  forge: RulesReader | null
  logger: Logger
}

export function rulesRoutes(deps: RulesRoutesDeps) {
  const { logger } = deps
  return new Elysia({ name: 'review-classifier-rules', prefix: '/api/review-classifier' }).get(
    '/rules',
    async ({ query }) => {
      const repo = parseRepoParam(query.repo)
      const forge = requireForge(deps.forge)
      let loaded: Awaited<ReturnType<typeof loadDefaultBranchRules>>
      try {
        loaded = await loadDefaultBranchRules(forge, repo)
      } catch (error) {
        throw forgeFailure(error, 'the rules', logger)
      }
      const rules = loadedRules(repo, loaded)
      if (!rules.ok) throw appError(rules.error.code, rules.error.detail)
      const { path, branch, commit, classifications } = rules.value
      return { path, branch, commit, classifications }
    },
    {
      query: RepoQuerySchema,
      response: {
        200: RepoRulesSchema,
        400: ProblemSchema,
        404: ProblemSchema,
        422: ProblemSchema,
        503: ProblemSchema,
      },
      detail: {
        summary: "The repo's rules from its default branch",
        description:
          '404 for a repo the forge does not know, an empty repo, a missing default branch, or neither rules file; ' +
          '422 for both files or a file that does not load; 503 without a forge or its token, or when the forge fails.',
        tags: ['try-out'],
      },
    },
  )
}
