/**
 * The controller's listener: it reads the request target as the client
 * wrote it and refuses, before any route, one a URL parser would resolve
 * to another path; everything else reaches the app as it was sent.
 */
import { afterEach, describe, expect, it } from 'bun:test'
import { Elysia } from 'elysia'
import { createRecordingLogger } from '../../../../adapters/memory/logger.ts'
import { type ControllerServer, serveController } from '../../../../entrypoints/controller/http/server.ts'
import { rawRequest } from '../../../support/raw-http.ts'

let server: ControllerServer | null = null
const reached: string[] = []

afterEach(async () => {
  await server?.stop()
  server = null
  reached.length = 0
})

async function aServer(maxBodyBytes = 1024): Promise<number> {
  const app = new Elysia()
    .put('/api/review-classifier/settings', ({ request }) => {
      reached.push(`settings as ${request.headers.get('remote-user')}`)
      return { changed: true }
    })
    .post('/webhook/forge/review-request', async ({ request }) => {
      reached.push(`webhook ${(await request.text()).length}`)
      return new Response(JSON.stringify({ status: 'ignored' }), {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-seen-host': request.headers.get('host') ?? '' },
      })
    })
  server = await serveController((request) => app.handle(request), {
    hostname: '127.0.0.1',
    port: 0,
    maxBodyBytes,
    logger: createRecordingLogger(),
  })
  return server.port
}

describe('serveController', () => {
  it('refuses with 400 a target with dot segments, encoded slashes or a backslash, and no route runs', async () => {
    const port = await aServer()
    for (const path of [
      '/webhook/forge/review-request/../../../api/review-classifier/settings',
      '/webhook/forge/review-request/%2e%2e/%2e%2e/%2e%2e/api/review-classifier/settings',
      '/webhook/forge/review-request/..%2f..%2f..%2fapi/review-classifier/settings',
      '/webhook\\..\\api/review-classifier/settings',
    ]) {
      const answer = await rawRequest(port, {
        method: 'PUT',
        path,
        host: `127.0.0.1:${port}`,
        headers: { 'content-type': 'application/json', 'remote-user': 'mallory' },
        body: '{}',
      })
      expect(answer.status).toBe(400)
      expect(answer.headers['content-type']).toBe('application/problem+json')
      expect(JSON.parse(answer.body).status).toBe(400)
    }
    expect(reached).toEqual([])
  })

  it('hands the rest to the app as sent: method, path, headers and body', async () => {
    const port = await aServer()
    const settings = await rawRequest(port, {
      method: 'PUT',
      path: '/api/review-classifier/settings',
      host: `127.0.0.1:${port}`,
      headers: { 'content-type': 'application/json', 'remote-user': 'ann' },
      body: '{}',
    })
    expect([settings.status, settings.body]).toEqual([200, '{"changed":true}'])
    const webhook = await fetch(`http://127.0.0.1:${port}/webhook/forge/review-request?x=1`, {
      method: 'POST',
      body: 'abc',
    })
    expect(webhook.status).toBe(200)
    expect(webhook.headers.get('x-seen-host')).toBe(`127.0.0.1:${port}`)
    expect(await webhook.json()).toEqual({ status: 'ignored' })
    expect(reached).toEqual(['settings as ann', 'webhook 3'])
  })

  it('answers 413 to a body over its bound, declared or streamed, without the app', async () => {
    const port = await aServer(16)
    const declared = await fetch(`http://127.0.0.1:${port}/webhook/forge/review-request`, {
      method: 'POST',
      body: 'x'.repeat(17),
    })
    expect(declared.status).toBe(413)
    const streamed = await fetch(`http://127.0.0.1:${port}/webhook/forge/review-request`, {
      method: 'POST',
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('x'.repeat(10)))
          controller.enqueue(new TextEncoder().encode('x'.repeat(10)))
          controller.close()
        },
      }),
      duplex: 'half',
    } satisfies RequestInit & { duplex: 'half' })
    expect(streamed.status).toBe(413)
    expect(reached).toEqual([])
  })
})
