/**
 * `GET` and `PUT /api/review-classifier/settings`: the swarm-wide settings
 * document. The PUT body is parsed here, not by Elysia, so a 400's detail is
 * core's message naming the field, not a schema validator's.
 */

// TypeBox's own Integer: Elysia's accepts a numeric string too, which is for query strings and clutters the document.
import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import { MAX_CONCURRENT_REVIEWS, MIN_CONCURRENT_REVIEWS, validateSettingsUpdate } from '../../../../core/settings.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { SettingsStore } from '../../usecases/stores.ts'
import {
  errorReason,
  HttpProblem,
  ProblemSchema,
  parseJsonBody,
  type QueueLink,
  RemoteUserHeaders,
  requireQueue,
  requireRemoteUser,
  storeFailureStatus,
} from '../problem.ts'

export type SettingsRoutesDeps = {
  queue: QueueLink | null
  settings: SettingsStore
  logger: Logger
}

const EFFORT = t.Union([t.Literal('low'), t.Literal('medium'), t.Literal('high'), t.Literal('xhigh'), t.Literal('max')])

const AcpSchema = t.Object({
  base_url: t.String({ description: "The provider's OpenAI-compatible API root, https:// only." }),
  model: t.String({ description: 'The model as the provider names it, no whitespace.' }),
  prices: t.Object(
    {
      input: t.Number({ minimum: 0 }),
      output: t.Number({ minimum: 0 }),
      cache_read: t.Optional(t.Number({ minimum: 0 })),
      cache_write: t.Optional(t.Number({ minimum: 0 })),
    },
    { description: 'USD per million tokens; cache prices default to input.' },
  ),
})

export const SettingsSchema = t.Object(
  {
    model: t.String({ description: "The API key runtime's model, as claude's --model takes it." }),
    effort: t.Union([EFFORT, t.Null()]),
    max_concurrent_reviews: Type.Integer({ minimum: MIN_CONCURRENT_REVIEWS, maximum: MAX_CONCURRENT_REVIEWS }),
    runtime: t.Union([t.Literal('api-key'), t.Literal('acp')]),
    acp: t.Union([AcpSchema, t.Null()]),
  },
  { description: 'The swarm-wide review classifier settings.' },
)

/** For the OpenAPI document only: the PUT body is checked by core, field by field. */
const SettingsUpdateSchema = t.Partial(SettingsSchema, {
  description: 'The fields to change; a field left out keeps its value, null clears effort or acp.',
})

export function settingsRoutes(deps: SettingsRoutesDeps) {
  const { queue, settings, logger } = deps

  function storeFailure(action: 'read' | 'write', error: unknown): HttpProblem {
    const status = storeFailureStatus(error)
    // Queue trouble (503) comes and goes; anything else (500) needs a look.
    const fields = { action, status, error: errorReason(error) }
    if (status === 503) logger.warn('review classifier settings store failed', fields)
    else logger.error('review classifier settings store failed', fields)
    return new HttpProblem(
      status,
      `the settings can't be ${action === 'read' ? 'read' : 'written'}: ${errorReason(error)}`,
    )
  }

  return (
    new Elysia({ name: 'review-classifier-settings', prefix: '/api/review-classifier' })
      // A named model, referenced by the PUT's documented body: Elysia mustn't validate the body itself.
      .model({ SettingsUpdate: SettingsUpdateSchema })
      .get(
        '/settings',
        async () => {
          requireQueue(queue)
          try {
            return await settings.read()
          } catch (error) {
            throw storeFailure('read', error)
          }
        },
        {
          response: { 200: SettingsSchema, 500: ProblemSchema, 503: ProblemSchema },
          detail: { summary: 'The settings in force', tags: ['settings'] },
        },
      )
      .put(
        '/settings',
        async ({ body, request }) => {
          const user = requireRemoteUser(request, 'a settings change')
          const parsed = parseJsonBody(body)
          if (!parsed.ok)
            throw new HttpProblem(400, "the body isn't JSON: send the settings fields to change as a JSON object")
          // A body of the wrong shape is refused without the queue; the rules on the merged document need the stored one.
          const shape = validateSettingsUpdate(parsed.value)
          if (!shape.ok) throw new HttpProblem(400, shape.error)
          requireQueue(queue)
          let updated: Awaited<ReturnType<SettingsStore['update']>>
          try {
            updated = await settings.update(parsed.value)
          } catch (error) {
            throw storeFailure('write', error)
          }
          if (!updated.ok) throw new HttpProblem(400, updated.error)
          logger.info('review classifier settings changed', {
            user,
            ...updated.value,
            acp: JSON.stringify(updated.value.acp),
          })
          return updated.value
        },
        {
          parse: 'text',
          headers: RemoteUserHeaders,
          response: {
            200: SettingsSchema,
            400: ProblemSchema,
            401: ProblemSchema,
            500: ProblemSchema,
            503: ProblemSchema,
          },
          detail: {
            summary: 'Change some settings and answer the whole document stored',
            tags: ['settings'],
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/SettingsUpdate' } } },
            },
          },
        },
      )
  )
}
