/**
 * `GET /api/review-classifier/runs`: the newest 100 finished runs, newest
 * first. The gateway's `admins` rule gates it; the controller checks no header.
 */

// TypeBox's own Integer: Elysia's accepts a numeric string too, which is for query strings and clutters the document.
import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import type { Logger } from '../../../../ports/logger.ts'
import type { RunStore } from '../../usecases/stores.ts'
import {
  errorReason,
  HttpProblem,
  ProblemSchema,
  type QueueLink,
  requireQueue,
  storeFailureStatus,
} from '../problem.ts'

export type RunsRoutesDeps = {
  queue: QueueLink | null
  runs: RunStore
  logger: Logger
}

const RowSchema = t.Object({
  name: t.String(),
  polarity: t.Union([t.Literal('positive'), t.Literal('negative')]),
  threshold: t.Number(),
  verdict: t.Union([t.Literal('match'), t.Literal('no-match'), t.Literal('not-applicable'), t.Null()]),
  certainty: t.Union([t.Number(), t.Null()]),
  reason: t.Union([t.String(), t.Null()]),
  counted: t.Boolean(),
  fails: t.Boolean(),
  error: t.Union([
    t.Object({
      kind: t.Union([t.Literal('timeout'), t.Literal('runtime'), t.Literal('malformed-answer')]),
      detail: t.String(),
    }),
    t.Null(),
  ]),
})

export const RunSchema = t.Object({
  id: t.String({ description: "A try-out's is the id its POST answered with." }),
  trigger: t.Union([t.Literal('review'), t.Literal('try-out')]),
  repo: t.String({ description: 'owner/name' }),
  pr: Type.Integer(),
  requester: t.String(),
  head_sha: t.Optional(t.String({ description: "Absent when the PR wasn't read." })),
  started_unix: t.Number(),
  finished_unix: t.Number(),
  outcome: t.Union([
    t.Literal('approved'),
    t.Literal('changes-requested'),
    t.Literal('no-verdict'),
    t.Literal('queue-full'),
    t.Literal('post-failed'),
    t.Literal('done'),
    t.Literal('failed'),
  ]),
  detail: t.Optional(t.String()),
  rows: t.Optional(t.Array(RowSchema)),
  overall: t.Optional(t.Union([t.Literal('approve'), t.Literal('request-changes'), t.Literal('no-verdict')])),
  review_url: t.Optional(t.String()),
})

export function runsRoutes(deps: RunsRoutesDeps) {
  const { queue, runs, logger } = deps
  return new Elysia({ name: 'review-classifier-runs', prefix: '/api/review-classifier' }).get(
    '/runs',
    async () => {
      requireQueue(queue)
      try {
        return await runs.list()
      } catch (error) {
        const status = storeFailureStatus(error)
        // Queue trouble (503) comes and goes; anything else (500) needs a look.
        const fields = { action: 'read', status, error: errorReason(error) }
        if (status === 503) logger.warn('review classifier run store failed', fields)
        else logger.error('review classifier run store failed', fields)
        throw new HttpProblem(status, `the runs can't be read: ${errorReason(error)}`)
      }
    },
    {
      response: { 200: t.Array(RunSchema), 500: ProblemSchema, 503: ProblemSchema },
      detail: { summary: 'The newest 100 finished runs, newest first', tags: ['runs'] },
    },
  )
}
