/**
 * `GET` and `PUT /api/review-classifier/settings`: the swarm-wide settings
 * document. The PUT body is parsed here, not by Elysia, so a 400's detail is
 * core's message naming the field, not a schema validator's.
 */

import { Elysia, t } from 'elysia'
import { appError } from '../../../../core/base/errors.ts'
import { validateSettingsUpdate } from '../../../../core/settings/settings.ts'
import { SettingsSchema } from '../../../../core/wire/schemas.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { QueueLink } from '../../../../ports/queue.ts'
import type { SettingsStore } from '../../usecases/settings/settings-store.ts'
import {
  ProblemSchema,
  parseJsonBody,
  RemoteUserHeaders,
  requireQueue,
  requireRemoteUser,
  storeFailure,
} from '../problem.ts'

export type SettingsRoutesDeps = {
  queue: QueueLink | null
  settings: SettingsStore
  logger: Logger
}

/** For the OpenAPI document only: the PUT body is checked by core, field by field. */
const SettingsUpdateSchema = t.Partial(SettingsSchema, {
  description: 'The fields to change; a field left out keeps its value, null clears effort, acp or budget.',
})

export function settingsRoutes(deps: SettingsRoutesDeps) {
  const { queue, settings, logger } = deps

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
            throw storeFailure(logger, 'settings', 'read', error)
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
            throw appError('invalid', "the body isn't JSON: send the settings fields to change as a JSON object")
          // A body of the wrong shape is refused without the queue; the rules on the merged document need the stored one.
          const shape = validateSettingsUpdate(parsed.value)
          if (!shape.ok) throw appError('invalid', shape.error)
          requireQueue(queue)
          let updated: Awaited<ReturnType<SettingsStore['update']>>
          try {
            updated = await settings.update(parsed.value)
          } catch (error) {
            throw storeFailure(logger, 'settings', 'write', error)
          }
          if (!updated.ok) throw appError('invalid', updated.error)
          logger.info('review classifier settings changed', {
            user,
            ...updated.value,
            acp: JSON.stringify(updated.value.acp),
            budget: JSON.stringify(updated.value.budget),
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
