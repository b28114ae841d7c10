/**
 * The launcher's identity proxy: every request reaches the controller with
 * the one `Remote-User` it was started with (a browser's own is replaced),
 * bodies, statuses and redirects pass as they are, it listens on
 * 127.0.0.1 only, and it answers only a `Host` that is its own loopback
 * address (a page whose DNS name is rebound to 127.0.0.1 gets a 421).
 */
import { afterEach, describe, expect, it } from 'bun:test'
import { type IdentityProxy, proxyUser, startIdentityProxy, upstreamUrl } from '../../entrypoints/identity-proxy.ts'
import { cleanUp } from '../support/cleanup.ts'
import { rawRequest } from '../support/raw-http.ts'

type Seen = { method: string; path: string; user: string | null; body: string; forwardedHost: string | null }

let upstream: ReturnType<typeof Bun.serve> | undefined
let proxy: IdentityProxy | undefined
const seen: Seen[] = []

afterEach(async () => {
  await cleanUp(
    proxy === undefined ? null : () => proxy?.stop(),
    upstream === undefined ? null : () => upstream?.stop(true),
  )
  proxy = undefined
  upstream = undefined
  seen.length = 0
})

function startBoth(user = 'ann'): IdentityProxy {
  upstream = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url)
      seen.push({
        method: request.method,
        path: `${url.pathname}${url.search}`,
        user: request.headers.get('remote-user'),
        body: await request.text(),
        forwardedHost: request.headers.get('x-forwarded-host'),
      })
      if (url.pathname === '/') return new Response(null, { status: 302, headers: { location: '/ui/' } })
      if (url.pathname === '/missing') return Response.json({ detail: 'no' }, { status: 404 })
      return Response.json({ ok: true }, { status: request.method === 'POST' ? 202 : 200 })
    },
  })
  proxy = startIdentityProxy({ target: `http://127.0.0.1:${upstream.port}`, user, port: 0 })
  return proxy
}

describe('the identity proxy', () => {
  it('names its user in Remote-User on every request, replacing whatever the browser sent', async () => {
    const { url } = startBoth('ann')
    await fetch(`${url}/api/review-classifier/runs?x=1`)
    await fetch(`${url}/api/review-classifier/try-out`, {
      method: 'POST',
      headers: { 'remote-user': 'mallory', 'content-type': 'application/json' },
      body: '{"repo":"acme/widgets"}',
    })
    const forwardedHost = new URL(url).host
    expect(seen).toEqual([
      { method: 'GET', path: '/api/review-classifier/runs?x=1', user: 'ann', body: '', forwardedHost },
      {
        method: 'POST',
        path: '/api/review-classifier/try-out',
        user: 'ann',
        body: '{"repo":"acme/widgets"}',
        forwardedHost,
      },
    ])
  })

  it('passes statuses, bodies and redirects back as they are', async () => {
    const { url } = startBoth()
    const posted = await fetch(`${url}/x`, { method: 'POST', body: '{}' })
    expect(posted.status).toBe(202)
    expect(await posted.json()).toEqual({ ok: true })
    const missing = await fetch(`${url}/missing`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ detail: 'no' })
    const root = await fetch(`${url}/`, { redirect: 'manual' })
    expect(root.status).toBe(302)
    expect(root.headers.get('location')).toBe('/ui/')
  })

  it('listens on 127.0.0.1 and answers 502 problem+json when the controller is down', async () => {
    const { url } = startBoth()
    expect(url).toStartWith('http://127.0.0.1:')
    await upstream?.stop(true)
    upstream = undefined
    const answer = await fetch(`${url}/ui/`)
    expect(answer.status).toBe(502)
    expect(answer.headers.get('content-type')).toBe('application/problem+json')
  })

  it('refuses with 421 a Host that is not its own loopback address and port, and forwards nothing', async () => {
    const { port } = startBoth()
    for (const host of [
      `evil.example:${port}`,
      `127.0.0.1.evil.example:${port}`,
      `127.0.0.1:${port + 1}`,
      '127.0.0.1',
    ]) {
      const answer = await rawRequest(port, {
        method: 'PUT',
        path: '/api/review-classifier/settings',
        host,
        headers: { 'content-type': 'application/json' },
        body: '{"acp":{"base_url":"https://evil.example/v1","model":"m"}}',
      })
      expect(answer.status).toBe(421)
      expect(answer.headers['content-type']).toBe('application/problem+json')
      expect(JSON.parse(answer.body)).toEqual({
        type: 'about:blank',
        title: 'Misdirected Request',
        status: 421,
        detail: `this proxy answers only at 127.0.0.1:${port}, localhost:${port}, [::1]:${port}; this request's Host is another`,
      })
    }
    // No Host at all: Bun refuses the HTTP/1.1 request itself.
    expect((await rawRequest(port, { path: '/api/review-classifier/runs', host: null })).status).toBe(400)
    expect(seen).toEqual([])
  })

  it('forwards a request addressed to its own loopback address by any of its names', async () => {
    const { port } = startBoth('ann')
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      const answer = await rawRequest(port, { path: '/api/review-classifier/runs', host })
      expect(answer.status).toBe(200)
    }
    expect(seen.map((s) => [s.user, s.forwardedHost])).toEqual([
      ['ann', `127.0.0.1:${port}`],
      ['ann', `localhost:${port}`],
      ['ann', `localhost:${port}`],
      ['ann', `[::1]:${port}`],
    ])
  })

  it('forwards a path that names another host to the controller, never to that host', async () => {
    const { port } = startBoth('ann')
    const elsewhere: string[] = []
    const other = Bun.serve({
      hostname: '127.0.0.2',
      port: 0,
      fetch(request) {
        elsewhere.push(`${request.url} as ${request.headers.get('remote-user')}`)
        return new Response('the other host')
      },
    })
    try {
      for (const path of [
        `//127.0.0.2:${other.port}/x`,
        `///127.0.0.2:${other.port}/x`,
        `/\\127.0.0.2:${other.port}/x`,
      ]) {
        const answer = await rawRequest(port, { path, host: `127.0.0.1:${port}` })
        expect(answer.body).not.toContain('the other host')
      }
      expect(elsewhere).toEqual([])
      // What arrived went to the controller, as a path of its own there.
      expect(seen.map((s) => [s.path.replace(/^\/+/, '/'), s.user])).toEqual(
        Array.from({ length: 3 }, () => [`/127.0.0.2:${other.port}/x`, 'ann']),
      )
    } finally {
      await other.stop(true)
    }
  })

  it('joins the path to the controller origin and refuses any URL that would leave it', () => {
    const target = new URL('http://127.0.0.1:8080')
    const joined = (path: string) => upstreamUrl(target, new URL(`http://127.0.0.1:8081${path}`))?.href ?? null
    expect(joined('/api/x?y=1')).toBe('http://127.0.0.1:8080/api/x?y=1')
    expect(joined('//evil.example/x')).toBe('http://127.0.0.1:8080//evil.example/x')
    expect(joined('/@evil.example/x')).toBe('http://127.0.0.1:8080/@evil.example/x')
  })

  it('names UI_USER when set, else the OS user', () => {
    expect(proxyUser({ UI_USER: ' ops ' })).toBe('ops')
    expect(proxyUser({})).not.toBe('')
  })
})
