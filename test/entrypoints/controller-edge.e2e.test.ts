/**
 * Who can reach the controller, on the real processes: the controller
 * listens on loopback unless `HOST` says otherwise; with `ALLOWED_HOSTS` it
 * answers no other `Host` (a page whose DNS name was rebound to 127.0.0.1
 * gets a 421); a state-changing request from another site's page is a 403
 * and one without a JSON body a 415; and the launcher's identity proxy in
 * front of it answers only its own loopback address, forwarding the pages'
 * own requests. Real nats-server, the controller as its own process
 * (test/support/service-world.ts), the proxy as the launcher starts it; no
 * forge, no classifier.
 */

import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { type IdentityProxy, startIdentityProxy } from '../../entrypoints/identity-proxy.ts'
import { cleanUp } from '../support/cleanup.ts'
import { connects, rawRequest } from '../support/raw-http.ts'
import type { ServiceProcess } from '../support/service-process.ts'
import { type ServiceWorld, startServiceWorld } from '../support/service-world.ts'

setDefaultTimeout(60_000)

const SETTINGS = '/api/review-classifier/settings'
const TRY_OUT = '/api/review-classifier/try-out'
const OPEN_PR = '/api/review-classifier/open-pr'
const CLASSIFICATIONS = [
  { name: 'datetime', description: 'All datetimes carry time zone information.', threshold: 80, polarity: 'positive' },
]
const EVIL_ACP = JSON.stringify({ acp: { base_url: 'https://evil.example/v1', model: 'm', prices: null } })

let world: ServiceWorld
/** Default HOST, `ALLOWED_HOSTS` set as the launcher sets it. */
let guarded: ServiceProcess
let guardedPort = 0
/** `HOST=127.0.0.2`, no `ALLOWED_HOSTS`. */
let elsewhere: ServiceProcess
let elsewherePort = 0
let proxy: IdentityProxy

async function listeningOn(service: ServiceProcess): Promise<{ host: string; port: number }> {
  return JSON.parse(await service.waitForLine('controller listening')) as { host: string; port: number }
}

/** The settings as the controller stores them, once its queue is connected (it connects lazily). */
async function storedSettings(): Promise<Record<string, unknown>> {
  const until = Date.now() + 20_000
  for (;;) {
    const response = await fetch(`http://127.0.0.1:${guardedPort}${SETTINGS}`)
    if (response.status === 200) return (await response.json()) as Record<string, unknown>
    if (Date.now() > until) throw new Error(`the settings answer ${response.status}: ${await response.text()}`)
    await Bun.sleep(100)
  }
}

beforeAll(async () => {
  world = await startServiceWorld({ swarm: 'edge', repos: null, classifier: null, controllerEnv: null })
  const [one, two] = await Promise.all([
    world.startController({ ALLOWED_HOSTS: '127.0.0.1,localhost,[::1]' }),
    world.startController({ HOST: '127.0.0.2' }),
  ])
  guarded = one.process
  guardedPort = one.port
  elsewhere = two.process
  elsewherePort = two.port
  proxy = startIdentityProxy({ target: `http://127.0.0.1:${guardedPort}`, user: 'ann', port: 0 })
})

afterAll(async () => {
  await cleanUp(proxy === undefined ? null : () => proxy.stop(), world === undefined ? null : () => world.stop())
})

describe('where the controller listens', () => {
  it('listens on 127.0.0.1 when HOST is unset, and on no other address', async () => {
    expect((await listeningOn(guarded)).host).toBe('127.0.0.1')
    expect(await connects('127.0.0.1', guardedPort)).toBe(true)
    // Another address of this machine (all of 127.0.0.0/8 is): taken by a 0.0.0.0 listener, refused by this one.
    expect(await connects('127.0.0.2', guardedPort)).toBe(false)
  })

  it('listens where HOST says, and without ALLOWED_HOSTS answers any Host', async () => {
    expect((await listeningOn(elsewhere)).host).toBe('127.0.0.2')
    expect(await connects('127.0.0.2', elsewherePort)).toBe(true)
    expect(await connects('127.0.0.1', elsewherePort)).toBe(false)
    const answer = await rawRequest(elsewherePort, { path: '/healthz', host: 'anything.example', address: '127.0.0.2' })
    expect(answer.status).toBe(200)
  })
})

describe('the controller with ALLOWED_HOSTS', () => {
  it('refuses a rebound Host with 421 before any route, and answers its own names', async () => {
    for (const [method, path, body] of [
      ['GET', '/healthz', ''],
      ['GET', '/api/pulls/repos', ''],
      ['PUT', SETTINGS, EVIL_ACP],
    ] as const) {
      const answer = await rawRequest(guardedPort, {
        method,
        path,
        host: `evil.example:${guardedPort}`,
        headers: { 'remote-user': 'mallory', 'content-type': 'application/json' },
        body,
      })
      expect(answer.status).toBe(421)
      expect(answer.headers['content-type']).toBe('application/problem+json')
      expect(JSON.parse(answer.body).detail).toContain('ALLOWED_HOSTS')
    }
    for (const host of [`localhost:${guardedPort}`, `[::1]:${guardedPort}`]) {
      expect((await rawRequest(guardedPort, { path: '/healthz', host })).status).toBe(200)
    }
    expect((await storedSettings()).acp).toBeNull()
  })
})

describe('state-changing requests on the controller process', () => {
  const base = () => `http://127.0.0.1:${guardedPort}`
  const routes = [
    ['PUT', SETTINGS, EVIL_ACP],
    ['POST', TRY_OUT, JSON.stringify({ repo: 'acme/widgets', pr: 1, classifications: CLASSIFICATIONS })],
    ['POST', OPEN_PR, JSON.stringify({ repo: 'acme/widgets', classifications: CLASSIFICATIONS })],
  ] as const

  it('answers 415 to a body that is not application/json and 403 to a foreign Origin, on each', async () => {
    await storedSettings()
    for (const [method, path, body] of routes) {
      const asForm = await fetch(`${base()}${path}`, {
        method,
        body,
        headers: { 'remote-user': 'mallory', 'content-type': 'text/plain' },
      })
      expect([path, asForm.status]).toEqual([path, 415])
      expect(asForm.headers.get('content-type')).toBe('application/problem+json')
      const foreign = await fetch(`${base()}${path}`, {
        method,
        body,
        headers: { 'remote-user': 'mallory', 'content-type': 'application/json', origin: 'https://evil.example' },
      })
      expect([path, foreign.status]).toEqual([path, 403])
    }
    expect((await storedSettings()).acp).toBeNull()
    expect(guarded.lines.filter((line) => line.includes('request refused before its route')).length).toBeGreaterThan(5)
  })

  it('takes the same JSON from a client that sends no Origin', async () => {
    const answer = await fetch(`${base()}${SETTINGS}`, {
      method: 'PUT',
      body: '{"effort":"low"}',
      headers: { 'remote-user': 'ops', 'content-type': 'application/json' },
    })
    expect(answer.status).toBe(200)
    expect((await storedSettings()).effort).toBe('low')
  })

  it('refuses with 400 a request target that a URL parser would resolve to another route', async () => {
    await storedSettings()
    // A gateway routing on the raw prefix sends these down the webhook's unauthenticated path.
    for (const [method, path, body] of [
      ['PUT', `/webhook/forge/review-request/../../..${SETTINGS}`, EVIL_ACP],
      ['PUT', `/webhook/forge/review-request/%2e%2e/%2E%2E/%2e%2e${SETTINGS}`, EVIL_ACP],
      ['GET', '/webhook/forge/review-request/../../../api/review-classifier/runs', ''],
      ['GET', '/webhook/forge/review-request/..%2f..%2f..%2fapi/review-classifier/runs', ''],
    ] as const) {
      const answer = await rawRequest(guardedPort, {
        method,
        path,
        host: `127.0.0.1:${guardedPort}`,
        headers: { 'remote-user': 'mallory', 'content-type': 'application/json' },
        body,
      })
      expect([path, answer.status]).toEqual([path, 400])
      expect(answer.headers['content-type']).toBe('application/problem+json')
    }
    expect((await storedSettings()).acp).toBeNull()
  })
})

describe("the launcher's identity proxy in front of the controller process", () => {
  it('refuses a rebound Host with 421, so the page never reaches the controller as the user', async () => {
    const answer = await rawRequest(proxy.port, {
      method: 'PUT',
      path: SETTINGS,
      host: `evil.example:${proxy.port}`,
      // What a rebound page sends: to its own origin, so the Origin and the Host agree.
      headers: { origin: `http://evil.example:${proxy.port}`, 'content-type': 'application/json' },
      body: EVIL_ACP,
    })
    expect(answer.status).toBe(421)
    expect(JSON.parse(answer.body)).toMatchObject({ title: 'Misdirected Request', status: 421 })
    expect((await storedSettings()).acp).toBeNull()
  })

  it("forwards the pages' own requests, by any of its loopback names, and the controller takes them", async () => {
    for (const name of ['127.0.0.1', 'localhost']) {
      const own = `${name}:${proxy.port}`
      const answer = await rawRequest(proxy.port, {
        method: 'PUT',
        path: SETTINGS,
        host: own,
        headers: { origin: `http://${own}`, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
        body: `{"model":"${name === 'localhost' ? 'sonnet' : 'opus'}"}`,
      })
      expect([own, answer.status]).toEqual([own, 200])
    }
    expect((await storedSettings()).model).toBe('sonnet')
    expect(guarded.lines.some((line) => line.includes('settings changed') && line.includes('"user":"ann"'))).toBe(true)
  })

  it("passes another site's Origin on for the controller to refuse with 403", async () => {
    const answer = await fetch(`${proxy.url}${SETTINGS}`, {
      method: 'PUT',
      body: EVIL_ACP,
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
    })
    expect(answer.status).toBe(403)
    expect((await storedSettings()).acp).toBeNull()
  })
})
