/**
 * The controller's HTTP listener. It is `node:http` (Bun's own), not
 * `Bun.serve`, for one reason: it hands over the request target as the
 * client wrote it (`IncomingMessage.url`). `Bun.serve` gives only
 * `request.url`, already through the URL parser, which resolves `..`
 * (`%2e%2e` too) and reads `\` as `/`: `/webhook/forge/review-request/../../../api/…`
 * arrives as the admin route it resolves to, so a gateway that routed it on
 * its raw prefix as the unauthenticated webhook can't be told apart
 * (docs/decisions.md, "Who may call the controller"). Here every target is
 * checked as written (core/wire/request-target.ts) and refused with 400 before
 * any route; the rest go to the Elysia app's `handle` as a `Request`.
 *
 * A body over `maxBodyBytes` is refused with 413 before the app sees it, as
 * `Bun.serve`'s `maxRequestBodySize` did; the webhook's own, lower limit
 * answers first below it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { capText } from '../../../core/base/text.ts'
import { parseAuthority } from '../../../core/wire/request-origin.ts'
import { requestTargetProblem } from '../../../core/wire/request-target.ts'
import type { Logger } from '../../../ports/logger.ts'
import { PROBLEM_CONTENT_TYPE, problem } from './problem.ts'

export type ControllerServerOptions = {
  hostname: string
  /** 0 picks a free port. */
  port: number
  /** The largest body taken; a larger one is answered 413 before the app sees it. */
  maxBodyBytes: number
  logger: Logger
}

export type ControllerServer = {
  /** The port it listens on (the one picked, for 0). */
  readonly port: number
  /** Stops taking connections, closes the idle ones, and resolves once the requests in hand are answered. */
  stop(): Promise<void>
}

/** What a request is handed to: the Elysia app's `handle`. */
export type RequestHandler = (request: Request) => Response | Promise<Response>

class BodyTooLarge extends Error {}

/** Set here from the bytes sent, never copied from the app's answer. */
const FRAMING_HEADERS = new Set(['set-cookie', 'content-length', 'transfer-encoding', 'connection'])

function sendProblem(res: ServerResponse, status: number, detail: string, close = false): void {
  const body = JSON.stringify(problem(status, detail))
  res.writeHead(status, {
    'content-type': PROBLEM_CONTENT_TYPE,
    'content-length': Buffer.byteLength(body),
    ...(close ? { connection: 'close' } : {}),
  })
  res.end(body)
}

/** The body, up to `max` bytes; rejects with {@link BodyTooLarge} past it. */
async function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
    size += bytes.byteLength
    if (size > max) throw new BodyTooLarge()
    chunks.push(bytes)
  }
  return Buffer.concat(chunks)
}

/** The headers as sent, repeated ones kept. */
function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers()
  const raw = req.rawHeaders
  for (let at = 0; at + 1 < raw.length; at += 2) headers.append(raw[at] ?? '', raw[at + 1] ?? '')
  return headers
}

export function serveController(handle: RequestHandler, options: ControllerServerOptions): Promise<ControllerServer> {
  const { logger } = options
  // The URL's host when the request's Host can't be one: the routes read the header, never this.
  const fallbackHost = options.hostname.includes(':') ? `[${options.hostname}]` : options.hostname

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? ''
    const refusal = requestTargetProblem(target)
    if (refusal !== null) {
      logger.warn('request refused before its route', {
        method: req.method,
        path: capText(target, 200),
        status: 400,
        reason: 'request-target',
      })
      sendProblem(res, 400, refusal)
      return
    }
    const declared = Number(req.headers['content-length'] ?? 0)
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
    let body: Buffer | null = null
    try {
      if (declared > options.maxBodyBytes) throw new BodyTooLarge()
      if (hasBody) body = await readBody(req, options.maxBodyBytes)
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error
      // The rest of the body isn't read: the connection goes with the answer.
      sendProblem(res, 413, `a request body may be at most ${options.maxBodyBytes} bytes`, true)
      return
    }
    const host = parseAuthority(req.headers.host ?? '') === null ? fallbackHost : (req.headers.host ?? fallbackHost)
    const request = new Request(`http://${host}${target}`, {
      method: req.method ?? 'GET',
      headers: headersOf(req),
      ...(body === null ? {} : { body }),
    })
    const response = await handle(request)
    const bytes = Buffer.from(await response.arrayBuffer())
    const headers: Record<string, string | string[]> = {}
    response.headers.forEach((value, name) => {
      if (!FRAMING_HEADERS.has(name)) headers[name] = value
    })
    const cookies = response.headers.getSetCookie()
    if (cookies.length > 0) headers['set-cookie'] = cookies
    headers['content-length'] = String(bytes.byteLength)
    res.writeHead(response.status, response.statusText, headers)
    res.end(req.method === 'HEAD' ? undefined : bytes)
  }

  const server: Server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => {
      logger.error('controller request failed', { method: req.method, error: String(error) })
      if (!res.headersSent) sendProblem(res, 500, 'the controller failed to answer this request')
      else res.destroy()
    })
  })

  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.hostname, () => {
      server.off('error', reject)
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : options.port
      resolve({
        port,
        stop: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            server.closeIdleConnections()
          }),
      })
    })
  })
}
