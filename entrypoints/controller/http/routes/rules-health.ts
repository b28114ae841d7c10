/**
 * `GET /api/review-classifier/rules/health?repo=owner/name` (docs/behaviour.md,
 * "Rule health"): each rule of the repo's default branch with its counts over
 * the last 30 UTC days, per day, and its flags; then each rule with counts
 * that is no longer in the file, `removed`. For the Rules page. Answers 400,
 * 404, 422 and 503 as the `rules` route does, and 503 without the queue.
 */

import { Elysia } from 'elysia'
import { appError } from '../../../../core/base/errors.ts'
import { loadedRules } from '../../../../core/repo-files/repo-rules.ts'
import { healthDay } from '../../../../core/review/rule-health.ts'
import { rulesHealthView } from '../../../../core/review/rule-health-view.ts'
import { RulesHealthViewSchema } from '../../../../core/wire/health-schemas.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { Clock } from '../../../../ports/clock.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { QueueLink } from '../../../../ports/queue.ts'
import { loadDefaultBranchRules, type RulesReader } from '../../usecases/repo-files/rules-loader.ts'
import type { RuleHealthStore } from '../../usecases/review/rule-health.ts'
import { ProblemSchema, requireQueue, storeFailure } from '../problem.ts'
import { forgeFailure, parseRepoParam, RepoQuerySchema, requireForge } from './forge-read.ts'

export type RulesHealthRoutesDeps = {
  forge: RulesReader | null
  queue: QueueLink | null
  health: Pick<RuleHealthStore, 'days'>
  clock: Clock
  logger: Logger
}

export function rulesHealthRoutes(deps: RulesHealthRoutesDeps) {
  const { logger } = deps
  return new Elysia({ name: 'review-classifier-rules-health', prefix: '/api/review-classifier' }).get(
    '/rules/health',
    async ({ query }) => {
      const repo = parseRepoParam(query.repo)
      const forge = requireForge(deps.forge)
      requireQueue(deps.queue)
      const name = repoName(repo)
      // Both at once; a refusal of either answers, the forge's first.
      const [loaded, days] = await Promise.allSettled([loadDefaultBranchRules(forge, repo), deps.health.days(name)])
      if (loaded.status === 'rejected') throw forgeFailure(loaded.reason, 'the rules', logger)
      if (days.status === 'rejected') throw storeFailure(logger, 'rule health', 'read', days.reason)
      const rules = loadedRules(repo, loaded.value)
      if (!rules.ok) throw appError(rules.error.code, rules.error.detail)
      return rulesHealthView({
        repo: name,
        today: healthDay(deps.clock.nowMs()),
        path: rules.value.path,
        branch: rules.value.branch,
        rules: rules.value.classifications,
        days: days.value,
      })
    },
    {
      query: RepoQuerySchema,
      response: {
        200: RulesHealthViewSchema,
        400: ProblemSchema,
        404: ProblemSchema,
        422: ProblemSchema,
        500: ProblemSchema,
        503: ProblemSchema,
      },
      detail: {
        summary: "Each rule's health over the last 30 days: counts per day and flags",
        description:
          '404 for a repo the forge does not know, an empty repo, a missing default branch, or neither rules file; ' +
          '422 for both files or a file that does not load; 503 without a forge or its token, when the forge fails, ' +
          'or without the swarm queue.',
        tags: ['rules'],
      },
    },
  )
}
