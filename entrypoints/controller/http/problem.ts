/**
 * problem+json (RFC 9457) answers, and the one place an {@link AppError}
 * code becomes an HTTP status: routes and use cases refuse with a code and
 * a detail, never a status. Every error the controller answers goes
 * through here, Elysia's own (no route, a body it can't parse) included.
 */

// TypeBox's own Integer: Elysia's accepts a numeric string too, which is for query strings and clutters the document.
import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { type AppError, appError, type ErrorCode, errorReason, isAppError } from '../../../core/base/errors.ts'
import type { Logger } from '../../../ports/logger.ts'
import type { QueueLink } from '../../../ports/queue.ts'

export const PROBLEM_CONTENT_TYPE = 'application/problem+json'

export type Problem = {
  /** `about:blank`: the status says it all, and `detail` says why. */
  type: string
  title: string
  status: number
  detail: string
}

/** The schema the routes name for every error status, for the OpenAPI document. */
export const ProblemSchema = t.Object(
  {
    type: t.String(),
    title: t.String(),
    status: Type.Integer(),
    detail: t.String(),
  },
  { description: 'An RFC 9457 problem; the reason is in detail.' },
)

/** Complete, so a new error code fails the build until it has a status. */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  exhausted: 429,
  unavailable: 503,
  timeout: 503,
  internal: 500,
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  413: 'Content Too Large',
  405: 'Method Not Allowed',
  409: 'Conflict',
  415: 'Unsupported Media Type',
  421: 'Misdirected Request',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
}

export function problem(status: number, detail: string): Problem {
  return { type: 'about:blank', title: TITLES[status] ?? 'Error', status, detail }
}

export function problemResponse(status: number, detail: string): Response {
  return new Response(JSON.stringify(problem(status, detail)), {
    status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE },
  })
}

/** The status for an error a route didn't handle itself: an AppError's by its code, anything else 500. */
export function statusForError(error: unknown): number {
  return isAppError(error) ? STATUS_BY_CODE[error.code] : 500
}

/**
 * The status for a failure of the settings or run store: the spec answers
 * 503 when the queue is missing, down or slow, and 500 for anything else
 * (a conflict that outlasted the retries, a refused write), whatever code
 * it carries.
 */
export function storeFailureStatus(error: unknown): 503 | 500 {
  return isAppError(error, 'unavailable') || isAppError(error, 'timeout') ? 503 : 500
}

/** How the log names each store. */
const STORE_NAMES = {
  settings: 'settings store',
  runs: 'run store',
  spend: 'spend ledger',
  labels: 'label store',
  'rule health': 'rule health store',
} as const

/**
 * A failed read or write of the settings or the runs, logged and answered:
 * queue trouble (503) comes and goes and is a warning; anything else (500)
 * needs a look and is an error.
 */
export function storeFailure(
  logger: Logger,
  store: 'settings' | 'runs' | 'spend' | 'labels' | 'rule health',
  action: 'read' | 'write',
  error: unknown,
): AppError {
  const status = storeFailureStatus(error)
  const fields = { action, status, error: errorReason(error) }
  const message = `review classifier ${STORE_NAMES[store]} failed`
  if (status === 503) logger.warn(message, fields)
  else logger.error(message, fields)
  const verb = action === 'read' ? 'read' : 'written'
  return appError(status === 503 ? 'unavailable' : 'internal', `the ${store} can't be ${verb}: ${errorReason(error)}`)
}

/**
 * Throws `unavailable` (503) for a route that needs the swarm queue when it's missing or
 * down: checked before touching a store so the answer says which it is.
 */
export function requireQueue(queue: QueueLink | null): void {
  if (queue === null) throw appError('unavailable', 'this host has no swarm queue')
  if (!queue.connected()) throw appError('unavailable', 'the swarm queue is not connected')
}

/** The header the gateway sets for an authenticated admin, as the routes that change something document it. */
export const RemoteUserHeaders = t.Object({
  'remote-user': t.Optional(t.String({ description: 'Set by the gateway; required.' })),
})

/** The admin the gateway names, or the 401 for a request without one; `action` says what needed it. */
export function requireRemoteUser(request: Request, action: string): string {
  const user = request.headers.get('remote-user')?.trim() ?? ''
  if (user === '') throw appError('unauthorized', `${action} needs the Remote-User header the gateway sets`)
  return user
}

/** A body read as text (`parse: 'text'`) as JSON, so the route's 400 can say what it wanted instead of Elysia's parse error. */
export function parseJsonBody(body: unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(typeof body === 'string' ? body : '') }
  } catch {
    return { ok: false }
  }
}
