/**
 * The controller's HTTP app: the checks every request passes first
 * (request-guard.ts), the OpenAPI document, one error handler that answers
 * problem+json for everything (Elysia's own 404 and parse errors included),
 * and the route plugins it is given. Which routes the controller serves is
 * one list, in `createController` (service.ts).
 */

import { openapi } from '@elysiajs/openapi'
import { type AnyElysia, Elysia } from 'elysia'
import { errorKind, errorReason, isAppError } from '../../../core/base/errors.ts'
import { isRecord } from '../../../core/wire/decode.ts'
import type { Logger } from '../../../ports/logger.ts'
import { PROBLEM_CONTENT_TYPE, ProblemSchema, problemResponse, statusForError } from './problem.ts'
import { requestGuard } from './request-guard.ts'

export type ControllerAppDeps = {
  logger: Logger
  /** The route plugins, mounted in this order, each an Elysia instance with its own `name` and `prefix`. */
  routes: AnyElysia[]
  /** Shown in the OpenAPI document. */
  version?: string
  /** `ALLOWED_HOSTS`: the host names a request's `Host` may name; `null` or left out answers any. */
  allowedHosts?: readonly string[] | null
}

export const OPENAPI_PATH = '/openapi'

/** A `throw status(409, 'why')` from a handler: its text is the detail. */
function thrownStatusDetail(error: unknown): string {
  if (isRecord(error) && typeof error.response === 'string') return error.response
  return 'the request was refused'
}

/** A validation failure in words: where and what, without echoing the value sent. */
function validationDetail(error: unknown): string {
  if (!isRecord(error)) return "the request doesn't fit the route's schema"
  const where = typeof error.type === 'string' ? error.type : 'request'
  const valueError = error.valueError
  if (!isRecord(valueError) || typeof valueError.path !== 'string' || typeof valueError.message !== 'string') {
    return `the ${where} doesn't fit the route's schema`
  }
  const field = valueError.path.replace(/^\//, '').replaceAll('/', '.')
  return `the ${where}${field === '' ? '' : ` field ${field}`} doesn't fit: ${valueError.message}`
}

/** Whatever reached the root error handler, as the problem to answer: Elysia's own codes first, then ours. */
function problemFor(code: string | number, error: unknown, request: Request): { status: number; detail: string } {
  // The numbers are statuses a handler threw with Elysia's `status()`.
  if (typeof code === 'number') return { status: code, detail: thrownStatusDetail(error) }
  switch (code) {
    case 'NOT_FOUND':
      return { status: 404, detail: `no route for ${request.method} ${new URL(request.url).pathname}` }
    case 'PARSE':
      return { status: 400, detail: "the body can't be parsed as its content type says" }
    case 'VALIDATION':
      return { status: 400, detail: validationDetail(error) }
    case 'INVALID_COOKIE_SIGNATURE':
    case 'INVALID_FILE_TYPE':
      return { status: 400, detail: "the request can't be read" }
    default:
      return { status: statusForError(error), detail: errorReason(error) }
  }
}

/**
 * The OpenAPI plugin labels every response schema `application/json`; the
 * error statuses are answered as problem+json, so the document says so.
 * Works on a copy: the plugin caches its document.
 */
export function labelProblemResponses(document: unknown): unknown {
  if (!isRecord(document) || !isRecord(document.paths)) return document
  const copy = structuredClone(document)
  for (const operations of Object.values(isRecord(copy.paths) ? copy.paths : {})) {
    if (!isRecord(operations)) continue
    for (const operation of Object.values(operations)) {
      if (!isRecord(operation) || !isRecord(operation.responses)) continue
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400 || !isRecord(response) || !isRecord(response.content)) continue
        const schema = response.content['application/json']
        if (schema === undefined) continue
        response.content = { [PROBLEM_CONTENT_TYPE]: schema }
      }
    }
  }
  return copy
}

/** What the request guard answers on every state-changing route, beside the route's own statuses. */
const GUARD_RESPONSES: Record<string, string> = {
  '403': "A request from another site's page: a foreign Origin, or Sec-Fetch-Site: cross-site.",
  '415': 'A body not sent as application/json.',
}

/**
 * The request guard's 403 and 415 in the document, on every operation that
 * changes something, where the route doesn't document the status itself.
 * Works on a copy, as {@link labelProblemResponses} does.
 */
export function addGuardResponses(document: unknown): unknown {
  if (!isRecord(document) || !isRecord(document.paths)) return document
  const copy = structuredClone(document)
  const schema: unknown = JSON.parse(JSON.stringify(ProblemSchema))
  for (const operations of Object.values(isRecord(copy.paths) ? copy.paths : {})) {
    if (!isRecord(operations)) continue
    for (const [method, operation] of Object.entries(operations)) {
      if (['get', 'head', 'options'].includes(method) || !isRecord(operation)) continue
      const responses = isRecord(operation.responses) ? operation.responses : {}
      for (const [status, description] of Object.entries(GUARD_RESPONSES)) {
        responses[status] ??= { description, content: { [PROBLEM_CONTENT_TYPE]: { schema } } }
      }
      operation.responses = responses
    }
  }
  return copy
}

export function createControllerApp(deps: ControllerAppDeps) {
  const { logger } = deps
  let app: AnyElysia = new Elysia({ name: 'review-classifier-controller' })
    // First, so its hooks cover every route mounted after it.
    .use(requestGuard({ logger, allowedHosts: deps.allowedHosts ?? null }))
    // Before the plugin, so this hook sees its document route.
    .onAfterHandle(({ path, responseValue }) =>
      path === `${OPENAPI_PATH}/json` ? labelProblemResponses(addGuardResponses(responseValue)) : undefined,
    )
    .use(
      openapi({
        path: OPENAPI_PATH,
        // No reference page: the plugin's loads an unpinned script from a CDN onto the admin origin. The JSON stays.
        provider: null,
        documentation: {
          info: {
            title: 'review-classifier controller',
            version: deps.version ?? '0.1.0',
            description:
              'Settings, recent runs and health of the review classifier. Every error is application/problem+json.',
          },
        },
      }),
    )
    .onError(({ code, error, request }) => {
      const { status, detail } = problemFor(code, error, request)
      // A coded AppError is an outcome its thrower already logged as it deserves; anything else is a bug.
      if (status >= 500 && !isAppError(error)) {
        logger.error('controller request failed', {
          method: request.method,
          path: new URL(request.url).pathname,
          status,
          error: errorReason(error),
          kind: errorKind(error),
        })
      }
      return problemResponse(status, detail)
    })
  for (const routes of deps.routes) app = app.use(routes)
  return app
}
