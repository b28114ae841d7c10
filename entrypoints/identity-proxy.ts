/**
 * The one-machine stand-in for the gateway (docs/behaviour.md, "Swarm UI"):
 * a small HTTP proxy on 127.0.0.1 in front of the controller that names
 * one user in `Remote-User` on every request, whatever the browser sent, so
 * the operator's pages work locally out of the box. The controller itself
 * still only reads the header. The launcher (`entrypoints/local.ts`) starts
 * it; it is never a way in from another machine.
 *
 * Nor from a web page under another name: it answers only a `Host` that is
 * its own loopback address with its port (127.0.0.1, localhost or [::1]),
 * so a page whose DNS name is rebound to 127.0.0.1 gets a 421 and never
 * reaches the controller as the user. The `Origin` passes through, for the
 * controller's own check.
 */
import { userInfo } from 'node:os'
import { LOOPBACK_HOSTNAMES, normalizeHostname, parseAuthority } from '../core/wire/request-origin.ts'

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the ones only the proxy may set. */
const DROPPED_REQUEST_HEADERS = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'host',
  'remote-user',
]
const DROPPED_RESPONSE_HEADERS = ['connection', 'keep-alive', 'transfer-encoding', 'content-encoding', 'content-length']

export type IdentityProxyOptions = {
  /** Where the controller listens, e.g. `http://127.0.0.1:8080`. */
  target: string
  /** Who the proxy says you are. */
  user: string
  /** Default 127.0.0.1: the proxy names anyone who reaches it, so it must not listen beyond this machine. */
  hostname?: string
  /** 0 picks a free port. */
  port: number
}

export type IdentityProxy = {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly port: number
  stop(): Promise<void>
}

/** The user the proxy names: `UI_USER` when set, else the OS user. */
export function proxyUser(env: Record<string, string | undefined>): string {
  const fromEnv = env.UI_USER?.trim() ?? ''
  if (fromEnv !== '') return fromEnv
  try {
    return userInfo().username
  } catch {
    return env.USER?.trim() || 'admin'
  }
}

function problem(status: number, title: string, detail: string): Response {
  return new Response(JSON.stringify({ type: 'about:blank', title, status, detail }), {
    status,
    headers: { 'content-type': 'application/problem+json' },
  })
}

/**
 * The controller's URL for what the browser asked, or null when it would go
 * anywhere else. The path is joined to the target's origin as text, never
 * resolved against it: resolved, `//127.0.0.2:9999/x` is another host's
 * address, and the proxy would carry `Remote-User` there.
 */
export function upstreamUrl(target: URL, incoming: URL): URL | null {
  let upstream: URL
  try {
    upstream = new URL(`${target.origin}${incoming.pathname}${incoming.search}`)
  } catch {
    return null
  }
  return upstream.origin === target.origin ? upstream : null
}

export function startIdentityProxy(options: IdentityProxyOptions): IdentityProxy {
  const target = new URL(options.target)
  const hostname = options.hostname ?? '127.0.0.1'
  // The loopback names, and the address it listens on should that be another.
  const own = normalizeHostname(hostname)
  const ownNames = own === null || LOOPBACK_HOSTNAMES.includes(own) ? LOOPBACK_HOSTNAMES : [...LOOPBACK_HOSTNAMES, own]
  const isOwnHost = (authority: string, port: number): boolean => {
    const parsed = parseAuthority(authority)
    return parsed !== null && parsed.port === port && ownNames.includes(parsed.hostname)
  }
  const server = Bun.serve({
    hostname,
    port: options.port,
    // The try-out pages poll; the controller answers each request at once, so no long idle is needed here.
    idleTimeout: 30,
    async fetch(request, self) {
      const port = self.port ?? options.port
      // The header itself: without one (HTTP/1.0) the request has no URL to read it from.
      if (!isOwnHost(request.headers.get('host') ?? '', port)) {
        const names = ownNames.map((name) => `${name}:${port}`).join(', ')
        return problem(
          421,
          'Misdirected Request',
          `this proxy answers only at ${names}; this request's Host is another`,
        )
      }
      const incoming = new URL(request.url)
      const upstream = upstreamUrl(target, incoming)
      if (upstream === null) {
        return problem(400, 'Bad Request', `this proxy forwards only to the controller at ${target.origin}`)
      }
      const headers = new Headers(request.headers)
      for (const name of DROPPED_REQUEST_HEADERS) headers.delete(name)
      headers.set('remote-user', options.user)
      headers.set('x-forwarded-host', incoming.host)
      headers.set('x-forwarded-proto', incoming.protocol.replace(':', ''))
      const hasBody = request.method !== 'GET' && request.method !== 'HEAD'
      let answer: Response
      try {
        answer = await fetch(upstream, {
          method: request.method,
          headers,
          redirect: 'manual',
          ...(hasBody ? { body: await request.arrayBuffer() } : {}),
        })
      } catch {
        return problem(502, 'Bad Gateway', `the controller at ${target.origin} doesn't answer`)
      }
      const responseHeaders = new Headers(answer.headers)
      for (const name of DROPPED_RESPONSE_HEADERS) responseHeaders.delete(name)
      const body = request.method === 'HEAD' ? null : await answer.arrayBuffer()
      return new Response(body, { status: answer.status, statusText: answer.statusText, headers: responseHeaders })
    },
  })
  const port = server.port ?? options.port
  return {
    url: `http://${hostname}:${port}`,
    port,
    async stop() {
      await server.stop(true)
    },
  }
}
