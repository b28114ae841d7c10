/**
 * The HTTP layer under the Forgejo client: one request with credentials and a
 * deadline, statuses turned into `AppError` codes, answers checked against a
 * schema, and the paging docs/forgejo.md §2.5 describes.
 *
 * No message carries a token or a password: the forge's own error text is
 * scrubbed of the credentials the request carried, and the runtime's errors
 * are reduced to their scrubbed message (no `cause`, whose contents are not
 * ours to vouch for).
 */
import type { Static, TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { type AppError, appError, describeError, type ErrorCode } from '../../core/base/errors.ts'
import { capLine, redactSecrets } from '../../core/base/text.ts'
import type { Logger } from '../../ports/logger.ts'
import { describeHttpHost, isTimeoutError } from '../http/errors.ts'

/** The part of `fetch` the adapter uses, so a test can hand in one that answers what no server would. */
export type FetchFn = (url: string, init: RequestInit) => Promise<Response>

/** Whose call it is: a token (the controller's or the service account's), or a password (token minting on Forgejo < 16). */
export type Credentials = { kind: 'token'; token: string } | { kind: 'basic'; login: string; password: string }

export type Query = Record<string, string | number | boolean>

export type ForgeRequest = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** Below `/api/v1`, segments already escaped. */
  path: string
  query?: Query
  body?: unknown
  auth: Credentials
  /** A 2xx body longer than this many bytes is read no further: {@link AnswerTooLargeError}. */
  maxBytes?: number
}

/** A 2xx answer longer than the request's `maxBytes`; its body was cancelled there, not read to the end. */
export class AnswerTooLargeError extends Error {
  override readonly name = 'AnswerTooLargeError'
  constructor(
    readonly action: string,
    readonly maxBytes: number,
  ) {
    super(`the forge's answer to ${action} is longer than ${maxBytes} bytes`)
  }
}

export type Answer = { status: number; headers: Headers; text: string; action: string; scrub: string[] }

/** Per call, a status whose meaning the endpoint knows better than the general table. */
export type StatusCodes = Partial<Record<number, ErrorCode>>

export type Http = {
  send(request: ForgeRequest): Promise<Answer>
}

/** Forgejo clamps `limit` to `[api] MAX_RESPONSE_ITEMS`, 50 by default (docs/forgejo.md §2.5). */
export const PAGE_LIMIT = 50
/** A forge that keeps saying "more" is broken; stop rather than loop forever. */
const MAX_PAGES = 10_000
/** Enough of the forge's error text to say what went wrong; a proxy's HTML page is not worth more. */
const MAX_DETAIL_CHARS = 300
/** How long a request may go unanswered before the log says so; the deadline itself is two minutes. */
export const DEFAULT_SLOW_MS = 10_000

/**
 * What the log says of a forge that hangs, while it does: a request still
 * unanswered after `slowMs` (each one holds a review's run place, a try-out
 * or a provisioning pass until the deadline), the deadline passed, and a
 * slow request that was answered after all. Each names the forge's host and
 * the request (method and path; never a query, a header or a token).
 */
export const FORGE_LOG_MESSAGES = {
  slow: 'forge request slow: no answer yet',
  timedOut: 'forge request timed out',
  answeredSlowly: 'forge request answered after a slow wait',
} as const

export type HttpConfig = {
  baseUrl: string
  timeoutMs: number
  /** Where the slow and timed-out requests are logged; none: not logged. */
  logger?: Logger
  /** Default {@link DEFAULT_SLOW_MS}. */
  slowMs?: number
}

export function createHttp(config: HttpConfig, fetchFn: FetchFn): Http {
  const api = `${config.baseUrl.replace(/\/+$/, '')}/api/v1`
  const host = describeHttpHost(config.baseUrl, 'the forge URL', 'https://forge.example')
  const slowMs = config.slowMs ?? DEFAULT_SLOW_MS
  const { logger } = config

  return {
    async send(request) {
      const scrub = secretsOf(request.auth)
      const action = `${request.method} ${request.path}`
      const headers: Record<string, string> = { Accept: 'application/json', Authorization: authorization(request.auth) }
      if (request.body !== undefined) headers['Content-Type'] = 'application/json'
      const url =
        request.query === undefined ? `${api}${request.path}` : `${api}${request.path}?${queryString(request.query)}`
      const startedMs = Date.now()
      let slow = false
      const watch =
        logger === undefined || slowMs >= config.timeoutMs
          ? undefined
          : setTimeout(() => {
              slow = true
              logger.warn(FORGE_LOG_MESSAGES.slow, {
                forge: host,
                request: action,
                waited_ms: slowMs,
                timeout_ms: config.timeoutMs,
              })
            }, slowMs)
      try {
        const response = await fetchFn(url, {
          method: request.method,
          headers,
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          signal: AbortSignal.timeout(config.timeoutMs),
          // fetch keeps the Authorization header across a cross-origin
          // redirect, so following one would hand the token to whatever host it names.
          redirect: 'manual',
        })
        const text =
          request.maxBytes === undefined || !response.ok
            ? await response.text()
            : await readCapped(response, request.maxBytes, action)
        if (slow) {
          logger?.info(FORGE_LOG_MESSAGES.answeredSlowly, {
            forge: host,
            request: action,
            status: response.status,
            duration_ms: Date.now() - startedMs,
          })
        }
        return { status: response.status, headers: response.headers, text, action, scrub }
      } catch (error) {
        if (error instanceof AnswerTooLargeError) throw error
        if (isTimeoutError(error)) {
          logger?.warn(FORGE_LOG_MESSAGES.timedOut, { forge: host, request: action, timeout_ms: config.timeoutMs })
          throw appError('timeout', `the forge at ${host} did not answer ${action} within ${config.timeoutMs} ms`)
        }
        throw appError(
          'unavailable',
          `the forge at ${host} can't be reached for ${action} (${redactSecrets(describeError(error), scrub)})`,
        )
      } finally {
        clearTimeout(watch)
      }
    },
  }
}

/**
 * The body as text, or {@link AnswerTooLargeError} once it passes `maxBytes`:
 * at once for a `Content-Length` over it, else as the bytes come, the stream
 * then cancelled so the rest is never read.
 */
async function readCapped(response: Response, maxBytes: number, action: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN)
  if (declared > maxBytes) {
    await response.body?.cancel()
    throw new AnswerTooLargeError(action, maxBytes)
  }
  const reader = response.body?.getReader()
  if (reader === undefined) return ''
  const decoder = new TextDecoder()
  let bytes = 0
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    bytes += value.byteLength
    if (bytes > maxBytes) {
      await reader.cancel()
      throw new AnswerTooLargeError(action, maxBytes)
    }
    text += decoder.decode(value, { stream: true })
  }
  return text + decoder.decode()
}

/** Throws the `AppError` for a non-2xx answer; returns for a 2xx one. */
export function expectSuccess(answer: Answer, codes: StatusCodes = {}): void {
  if (answer.status >= 200 && answer.status < 300) return
  throw statusError(answer, codes)
}

export function statusError(answer: Answer, codes: StatusCodes = {}): AppError {
  const detail = forgeMessage(answer)
  const said = detail === '' ? `${answer.status}` : `${answer.status}: ${detail}`
  const code = codes[answer.status] ?? defaultCode(answer.status)
  if (answer.status >= 300 && answer.status < 400) {
    return appError(
      code,
      `the forge redirected ${answer.action} (${said}); the token is not sent on, so point the forge URL at the server that answers`,
    )
  }
  return appError(code, `the forge answered ${answer.action} with ${said}`)
}

function defaultCode(status: number): ErrorCode {
  switch (status) {
    case 400:
    case 422:
      return 'invalid'
    case 401:
      return 'unauthorized'
    case 403:
    // Quota exceeded and archived repo: the account may not write there.
    case 413:
    case 423:
      return 'forbidden'
    case 404:
      return 'not_found'
    case 409:
      return 'conflict'
    default:
      return 'unavailable'
  }
}

/** The JSON body checked against `schema`, or `unavailable` naming the first field that doesn't fit. */
export function parseBody<T extends TSchema>(schema: T, answer: Answer): Static<T> {
  let body: unknown
  try {
    body = JSON.parse(answer.text)
  } catch {
    throw appError('unavailable', `the forge answered with an unexpected shape: / (not JSON) for ${answer.action}`)
  }
  if (Value.Check(schema, body)) return body
  const first = Value.Errors(schema, body).First()
  const path = first === undefined ? '/' : first.path === '' ? '/' : first.path
  throw appError('unavailable', `the forge answered with an unexpected shape: ${path} for ${answer.action}`)
}

export type Page<T> = { items: T[]; answer: Answer }

/** How many items the whole list has, or `null` when the forge doesn't say. */
export function totalCount(answer: Answer): number | null {
  const raw = answer.headers.get('x-total-count')
  if (raw === null || !/^\d+$/.test(raw.trim())) return null
  return Number(raw.trim())
}

/** Whether the `Link` header names a next page; `null` without a `Link` header. */
function hasNextLink(answer: Answer): boolean | null {
  const link = answer.headers.get('link')
  if (link === null) return null
  return /rel="?next"?/.test(link)
}

/**
 * Every item across pages, in page order. Follows `Link: rel="next"` when the
 * forge sends it, else `X-Total-Count`, else pages on until one comes back
 * shorter than the first (the forge may clamp `limit` below what was asked).
 * `enough`, when given, stops the paging once the items so far satisfy it.
 */
export async function collectPages<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  enough?: (collected: readonly T[]) => boolean,
): Promise<T[]> {
  const all: T[] = []
  let pageSize = 0
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const { items, answer } = await fetchPage(page)
    all.push(...items)
    if (page === 1) pageSize = items.length
    if (enough?.(all) === true || !morePages(answer, items.length, pageSize, all.length)) return all
  }
  throw appError('unavailable', `the forge kept answering more pages after ${MAX_PAGES}`)
}

function morePages(answer: Answer, got: number, pageSize: number, collected: number): boolean {
  if (got === 0) return false
  const next = hasNextLink(answer)
  if (next !== null) return next
  const total = totalCount(answer)
  if (total !== null) return collected < total
  return got >= pageSize
}

/**
 * Like {@link collectPages}, but once the first page gives the total, the
 * remaining pages are fetched `concurrency` at a time.
 */
export async function collectPagesConcurrently<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  concurrency: number,
): Promise<T[]> {
  const first = await fetchPage(1)
  const total = totalCount(first.answer)
  const pageSize = first.items.length
  if (total === null || pageSize === 0 || total <= pageSize) {
    if (!morePages(first.answer, pageSize, pageSize, pageSize)) return first.items
    const rest = await collectPages((page) => fetchPage(page + 1))
    return [...first.items, ...rest]
  }
  const lastPage = Math.min(Math.ceil(total / pageSize), MAX_PAGES)
  const pages = Array.from({ length: lastPage - 1 }, (_, i) => i + 2)
  const fetched = await mapWithConcurrency(pages, concurrency, fetchPage)
  const all = [...first.items, ...fetched.flatMap((p) => p.items)]
  const last = fetched.at(-1)
  // Items added while paging push the list past the count read on page one.
  if (last !== undefined && morePages(last.answer, last.items.length, pageSize, all.length)) {
    all.push(...(await collectPages((page) => fetchPage(page + lastPage))))
  }
  return all
}

/** `fn` over `items`, at most `limit` at once, results in input order; the first failure rejects and stops new calls. */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length)
  let next = 0
  let failed = false
  async function worker(): Promise<void> {
    while (!failed && next < items.length) {
      const index = next
      next += 1
      const item = items[index]
      if (item === undefined) continue
      try {
        results[index] = await fn(item)
      } catch (error) {
        failed = true
        throw error
      }
    }
  }
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, () => worker())
  await Promise.all(workers)
  return results
}

/** `a/b c` → `a/b%20c`: each segment escaped, the slashes kept (paths and branch names). */
export function escapePath(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/')
}

export function escapeSegment(segment: string): string {
  return encodeURIComponent(segment)
}

function queryString(query: Query): string {
  return Object.entries(query)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
    .join('&')
}

function authorization(auth: Credentials): string {
  if (auth.kind === 'token') return `token ${auth.token}`
  return `Basic ${Buffer.from(`${auth.login}:${auth.password}`, 'utf8').toString('base64')}`
}

function secretsOf(auth: Credentials): string[] {
  if (auth.kind === 'token') return [auth.token]
  return [auth.password, Buffer.from(`${auth.login}:${auth.password}`, 'utf8').toString('base64')]
}

/** The forge's `message`, one line, capped and scrubbed; `''` when the body has none. */
function forgeMessage(answer: Answer): string {
  let text = ''
  try {
    const body: unknown = JSON.parse(answer.text)
    if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string')
      text = body.message
  } catch {
    text = ''
  }
  return capLine(redactSecrets(text, answer.scrub), MAX_DETAIL_CHARS)
}
