/**
 * The checks every request passes before its route (docs/decisions.md, "Who
 * may call the controller"), in one place so a new route can't miss them:
 *
 * - with `ALLOWED_HOSTS` set, a `Host` it doesn't name is refused with 421,
 *   before routing: a page that rebinds its own DNS name to this machine
 *   reaches the controller under that name, and gets nothing;
 * - a state-changing request (any method but GET, HEAD and OPTIONS) sent by
 *   another site's page (its `Origin` foreign, or `Sec-Fetch-Site:
 *   cross-site`) is refused with 403, and one whose body isn't
 *   `application/json` with 415. A web page can post a plain form to any
 *   address without asking; it can't send JSON or custom headers to another
 *   origin without a CORS preflight, which the controller never answers.
 *
 * The forge's webhook passes: it is JSON and comes from no web page.
 */
import { Elysia } from 'elysia'
import { capText } from '../../../core/base/text.ts'
import { isAllowedHost, isCrossSite, isJsonContentType } from '../../../core/wire/request-origin.ts'
import type { Logger } from '../../../ports/logger.ts'
import { problemResponse } from './problem.ts'

export type RequestGuardOptions = {
  logger: Logger
  /** `ALLOWED_HOSTS`: the host names a request's `Host` may name (normalized); `null` answers any. */
  allowedHosts?: readonly string[] | null
}

/** The methods that change nothing, so no other site's page can make them do harm. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** A content type quoted back in a 415 is cut to this. */
const SHOWN_CONTENT_TYPE_CHARS = 80

/** The request's `Host`; a request without one (HTTP/1.0, or `app.handle` in a test) is read from its URL, if it has one. */
function requestHost(request: Request): string {
  const header = request.headers.get('host')
  if (header !== null) return header
  try {
    return new URL(request.url).host
  } catch {
    return ''
  }
}

/** The host the browser addressed: the proxy's or gateway's `X-Forwarded-Host` (its first entry) when set, else the request's own. */
function addressedHost(request: Request): string {
  const forwarded = request.headers.get('x-forwarded-host')?.split(',', 1)[0]?.trim() ?? ''
  return forwarded === '' ? requestHost(request) : forwarded
}

function pathOf(request: Request): string {
  try {
    return new URL(request.url).pathname
  } catch {
    return request.url
  }
}

export function requestGuard(options: RequestGuardOptions) {
  const { logger } = options
  const allowedHosts = options.allowedHosts ?? null

  function refuse(request: Request, status: number, reason: string, detail: string): Response {
    logger.warn('request refused before its route', {
      method: request.method,
      path: capText(pathOf(request), 200),
      status,
      reason,
    })
    return problemResponse(status, detail)
  }

  return new Elysia({ name: 'review-classifier-request-guard' })
    .onRequest(({ request }) => {
      if (allowedHosts === null) return
      if (isAllowedHost(requestHost(request), allowedHosts)) return
      return refuse(
        request,
        421,
        'host',
        `this controller answers only requests addressed to ${allowedHosts.join(', ')} (ALLOWED_HOSTS); ` +
          "this request's Host is none of them",
      )
    })
    .onBeforeHandle({ as: 'global' }, ({ request }) => {
      if (SAFE_METHODS.has(request.method)) return
      const { headers } = request
      if (isCrossSite(headers.get('origin'), headers.get('sec-fetch-site'), addressedHost(request))) {
        return refuse(
          request,
          403,
          'cross-site',
          "the request comes from another site's page (its Origin or Sec-Fetch-Site says so): " +
            'only these pages, or a client that sends no Origin, may change anything here',
        )
      }
      const contentType = headers.get('content-type')
      if (!isJsonContentType(contentType)) {
        const sent =
          contentType === null || contentType.trim() === ''
            ? 'none'
            : JSON.stringify(capText(contentType.trim(), SHOWN_CONTENT_TYPE_CHARS))
        return refuse(
          request,
          415,
          'content-type',
          `the body must be JSON sent with Content-Type: application/json (this request's Content-Type: ${sent})`,
        )
      }
    })
}
