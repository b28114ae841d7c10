/**
 * `POST /api/review-classifier/open-pr`: the try-out page's "open a PR"
 * (docs/behaviour.md, "Try-out"; the use case is usecases/repo-files/open-pr.ts). The
 * body is read by core, not by Elysia, so a 400's detail is core's message
 * naming the field; the use case's coded refusals become their statuses in
 * the root error handler.
 */

import { Elysia } from 'elysia'
import { appError } from '../../../../core/base/errors.ts'
import { parseOpenPrBody } from '../../../../core/repo-files/open-pr.ts'
import { OpenPrAnswerSchema, OpenPrRequestSchema } from '../../../../core/wire/schemas.ts'
import type { OpenPr } from '../../usecases/repo-files/open-pr.ts'
import { ProblemSchema, RemoteUserHeaders, requireRemoteUser } from '../problem.ts'

export type OpenPrRoutesDeps = {
  /** `null` when this host has no forge (FORGE_URL unset). */
  openPr: OpenPr | null
}

export const OPEN_PR_PATH = '/api/review-classifier/open-pr'

export function openPrRoutes(deps: OpenPrRoutesDeps) {
  return (
    new Elysia({ name: 'review-classifier-open-pr', prefix: '/api/review-classifier' })
      // A named model, referenced by the documented body: Elysia mustn't validate the body itself.
      .model({ OpenPrRequest: OpenPrRequestSchema })
      .post(
        '/open-pr',
        async ({ body, request, set }) => {
          const remoteUser = requireRemoteUser(request, 'opening a PR')
          const parsed = parseOpenPrBody(typeof body === 'string' ? body : '')
          if (!parsed.ok) throw appError('invalid', parsed.error)
          if (deps.openPr === null) throw appError('unavailable', 'this host has no forge: set FORGE_URL')
          const answer = await deps.openPr.open(remoteUser, parsed.value)
          set.status = 201
          return answer
        },
        {
          parse: 'text',
          headers: RemoteUserHeaders,
          response: {
            201: OpenPrAnswerSchema,
            400: ProblemSchema,
            401: ProblemSchema,
            403: ProblemSchema,
            404: ProblemSchema,
            409: ProblemSchema,
            422: ProblemSchema,
            500: ProblemSchema,
            503: ProblemSchema,
          },
          detail: {
            summary:
              "Push a branch adding the classifications to the repo's rules, authored by you, and answer its compare page",
            tags: ['try-out'],
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/OpenPrRequest' } } },
            },
          },
        },
      )
  )
}
