/** What the HTTP adapters (OpenBao, Forgejo) need to describe a failed call without leaking anything. */
import { appError } from '../../core/base/errors.ts'

/** `fetch` aborted by `AbortSignal.timeout` (Bun rejects with a `TimeoutError` DOMException). */
export function isTimeoutError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'name' in error && error.name === 'TimeoutError'
}

/**
 * Host and port only, for messages: a URL may carry credentials or a long
 * path. `what` and `example` name the setting when the URL is not http(s).
 */
export function describeHttpHost(baseUrl: string, what: string, example: string): string {
  const url = URL.parse(baseUrl)
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '') {
    throw appError('invalid', `${what} is not an http(s) URL, e.g. ${example}`)
  }
  return url.host
}
