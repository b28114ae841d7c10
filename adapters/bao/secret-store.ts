/**
 * The secret store on OpenBao's KV v2 engine, over its HTTP API with a small
 * fetch client (docs/decisions.md, "Secrets": no SDK). Shapes and statuses are those of
 * docs/infra.md section B.
 *
 * `write` POSTs `{ data: { [field]: value } }`, which stores the whole map as
 * a new version: any other field at that path is dropped. Every secret this
 * service owns holds one field, so replacing is what the caller means, and it
 * needs only the `create`/`update` capabilities. A read-modify-write (or a
 * merge PATCH) would keep foreign fields but would need `read` (or `patch`)
 * as well and a retry loop on a CAS mismatch, for fields nobody here writes.
 *
 * Messages name the path, the status and bao's own error text, never the
 * token or a secret value (both are also scrubbed from bao's text, in case a
 * proxy or a plugin echoes them).
 */
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { type AppError, appError, describeError } from '../../core/base/errors.ts'
import { capLine, redactSecrets } from '../../core/base/text.ts'
import { nameSegments, secretPathSegments } from '../../core/settings/secret-path.ts'
import type { SecretStore } from '../../ports/secret-store.ts'
import { describeHttpHost, isTimeoutError } from '../http/errors.ts'
import type { TokenSource } from './token-source.ts'

export type BaoSecretStoreConfig = {
  /** The server's base URL, e.g. `https://bao.internal:8200`; a trailing `/` is ignored. */
  addr: string
  token: TokenSource
  /** The KV v2 mount; default `secret`. */
  mount?: string
  /** Per request, headers and body; default 10 s. */
  timeoutMs?: number
}

/** The part of `fetch` the adapter uses, so a test can hand in a stub that answers what no server would. */
export type FetchFn = (url: string, init: RequestInit) => Promise<Response>

const DEFAULT_TIMEOUT_MS = 10_000
/** Enough of bao's error text to say what went wrong; a proxy's HTML page is not worth more. */
const MAX_DETAIL_CHARS = 300

/** `GET …/data/<path>`: the fields read. `data.data` is `null` for a deleted latest version. */
const ReadResponse = Type.Object({
  data: Type.Object({
    data: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  }),
})

/** Every status of 400 or more carries `{"errors":[…]}`, possibly empty. */
const ErrorResponse = Type.Object({ errors: Type.Array(Type.String()) })

export function createBaoSecretStore(config: BaoSecretStoreConfig, fetchFn: FetchFn = fetch): SecretStore {
  const base = config.addr.replace(/\/+$/, '')
  const server = describeHttpHost(base, 'the OpenBao address (BAO_ADDR)', 'https://bao.internal:8200')
  const mount = nameSegments((config.mount ?? 'secret').replace(/^\/+|\/+$/g, ''), 'OpenBao mount')
    .map(encodeURIComponent)
    .join('/')
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS

  /** `scrub`: what no message may show (the token sent, the value written). */
  type Answer = { status: number; body: unknown; scrub: string[] }

  async function send(method: 'GET' | 'POST', apiPath: string, secrets: string[], body?: unknown): Promise<Answer> {
    const token = await config.token.current()
    const scrub = [token, ...secrets]
    const headers: Record<string, string> = { 'X-Vault-Token': token }
    if (body !== undefined) headers['Content-Type'] = 'application/json'
    try {
      const response = await fetchFn(`${base}/v1/${apiPath}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        // fetch keeps custom headers across a cross-origin redirect, so
        // following one would hand the token to whatever host it names.
        redirect: 'manual',
      })
      const text = await response.text()
      return { status: response.status, body: parseJson(text), scrub }
    } catch (error) {
      if (isTimeoutError(error)) {
        throw appError('timeout', `OpenBao at ${server} did not answer ${method} /v1/${apiPath} within ${timeoutMs} ms`)
      }
      // No `cause`: the runtime's error is not ours to vouch for, so only its scrubbed message is kept.
      throw appError(
        'unavailable',
        `OpenBao at ${server} can't be reached for ${method} /v1/${apiPath} (${redactSecrets(describeError(error), scrub)})`,
      )
    }
  }

  function failure(answer: Answer, action: string): AppError {
    const detail = baoErrors(answer.body, answer.scrub)
    const said = detail === '' ? `${answer.status}` : `${answer.status}: ${detail}`
    switch (answer.status) {
      case 400:
        return appError('invalid', `OpenBao rejected ${action} (${said})`)
      case 401:
      case 403:
        return appError(
          'forbidden',
          `OpenBao refused ${action} (${said}): the token's policy doesn't grant it, or the token is invalid or expired`,
        )
      case 404:
        return appError('unavailable', `OpenBao has no KV v2 engine for ${action} (${said}); check the mount`)
      case 301:
      case 302:
      case 303:
      case 307:
      case 308:
        return appError(
          'unavailable',
          `OpenBao at ${server} redirected ${action} (${answer.status}); the token is not sent on, so point BAO_ADDR at the server that answers`,
        )
      case 503:
        return appError('unavailable', `OpenBao at ${server} is sealed or unavailable (${said}) for ${action}`)
      default:
        return appError('unavailable', `OpenBao failed ${action} (${said})`)
    }
  }

  function apiPathOf(segments: string[]): string {
    return `${mount}/data/${segments.map(encodeURIComponent).join('/')}`
  }

  return {
    async read(path, field) {
      const apiPath = apiPathOf(secretPathSegments(path, field))
      const action = `reading ${path}`
      const answer = await send('GET', apiPath, [])
      if (answer.status === 404) {
        // A missing secret answers `{"errors":[]}` and a deleted one a normal
        // body with `data.data: null`: both are "no key". Only the router's
        // "no handler" (no such mount) is an operator's mistake to surface.
        if (baoErrors(answer.body, answer.scrub).includes('no handler for route')) throw failure(answer, action)
        return null
      }
      if (answer.status < 200 || answer.status > 299) throw failure(answer, action)
      if (!Value.Check(ReadResponse, answer.body)) {
        throw appError(
          'unavailable',
          `OpenBao's answer to ${action} isn't a KV v2 secret (status ${answer.status}); is the mount KV version 2?`,
        )
      }
      const fields = answer.body.data.data
      if (fields === null || !Object.hasOwn(fields, field)) return null
      const value = fields[field]
      if (typeof value !== 'string') {
        throw appError('unavailable', `field ${field} of secret ${path} isn't a string; store it as text`)
      }
      // An empty key is never usable; as "no key" the caller reports the real
      // problem instead of an authentication failure further on.
      return value === '' ? null : value
    },

    async write(path, field, value) {
      const apiPath = apiPathOf(secretPathSegments(path, field))
      if (value === '')
        throw appError('invalid', `refusing to write an empty value to ${path}: it would read back as no secret`)
      const answer = await send('POST', apiPath, [value], { data: { [field]: value } })
      if (answer.status < 200 || answer.status > 299) throw failure(answer, `writing ${path}`)
    },
  } satisfies SecretStore
}

function parseJson(text: string): unknown {
  if (text === '') return null
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/** bao's error strings, one line (its multierror text spans several), capped and scrubbed. */
function baoErrors(body: unknown, secrets: string[]): string {
  if (!Value.Check(ErrorResponse, body)) return ''
  return capLine(redactSecrets(body.errors.join('; '), secrets), MAX_DETAIL_CHARS)
}
