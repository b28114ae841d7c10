/**
 * What the routes that read the forge with the controller's token share: the
 * `repo=owner/name` query parameter, the 503 for a host with no forge, and the
 * one mapping of a forge failure to the route's answer (docs/behaviour.md, "Try-out").
 */
import { t } from 'elysia'
import { appError, errorReason, isAppError } from '../../../../core/base/errors.ts'
import { parseRepoValue } from '../../../../core/wire/repo.ts'
import type { RepoRef } from '../../../../core/wire/types.ts'
import type { Logger } from '../../../../ports/logger.ts'

/** For the OpenAPI document; the value is checked by {@link parseRepoParam}, so a 400 says what's wrong with it. */
export const RepoQuerySchema = t.Object({
  repo: t.Optional(t.String({ description: 'The repo as owner/name.', examples: ['acme/widgets'] })),
})

/** The repo a `repo` query parameter names; a 400 when it's missing or not `owner/name`. */
export function parseRepoParam(value: string | undefined): RepoRef {
  if (value === undefined || value === '') throw appError('invalid', 'the query needs repo=owner/name')
  const repo = parseRepoValue(value)
  if (!repo.ok) throw appError('invalid', repo.error)
  return repo.value
}

/** The forge, or the 503 for a host that has none configured. */
export function requireForge<F>(forge: F | null): F {
  if (forge === null) throw appError('unavailable', 'this host has no forge: FORGE_URL is not set')
  return forge
}

/**
 * A failed forge read as the route's answer: `not_found` is the 404 with the
 * reader's words; every other forge failure (down, slow, no token yet, the
 * controller's token refused, an answer we can't read) is a 503, since none
 * of it is the caller's doing. Anything that isn't an `AppError` is a bug and
 * goes on to the root handler's 500.
 */
export function forgeFailure(error: unknown, what: string, logger: Logger): unknown {
  if (!isAppError(error)) return error
  if (error.code === 'not_found') return appError('not_found', error.message)
  logger.warn('forge read failed', { what, code: error.code, error: errorReason(error) })
  return appError('unavailable', `${what} can't be read from the forge: ${error.message}`)
}
