/**
 * The checks every request passes before its route, on the whole controller
 * app (every route mounted as `createController` mounts them, memory
 * adapters behind): a state-changing request from another site's page is a
 * 403 and one whose body isn't `application/json` a 415, on each of the
 * four (try-out, open a PR, the settings PUT, the webhook), and nothing
 * happens; this site's own pages, curl and the forge pass. With
 * `allowedHosts`, another `Host` is a 421 on every route.
 */
import { describe, expect, it } from 'bun:test'
import { deliveryHeaders, goJson, reviewRequestPayload } from '../../../support/webhook.ts'
import { aController } from '../controller-world.ts'
import { approveAll, createWorld, REPO, type World } from '../review-world.ts'
import { aTryOutBody } from '../try-out-world.ts'
import { aRequest, expectProblem } from './http-support.ts'

const SECRET = 'guard-hook-secret-91c4'
const SETTINGS = '/api/review-classifier/settings'

type Route = {
  name: string
  method: 'POST' | 'PUT'
  path: string
  body: string
  /** What the route needs besides the body to be taken (Remote-User, the webhook's signature). */
  headers: () => Record<string, string>
  /** The status it answers when the guard lets it through. */
  taken: number
}

const WEBHOOK_BODY = goJson(reviewRequestPayload({ owner: REPO.owner, repo: REPO.name, pr: 42 }))

const ROUTES: Route[] = [
  {
    name: 'the try-out POST',
    method: 'POST',
    path: '/api/review-classifier/try-out',
    body: JSON.stringify(aTryOutBody()),
    headers: () => ({ 'remote-user': 'alice' }),
    taken: 202,
  },
  {
    name: 'the open-a-PR POST',
    method: 'POST',
    path: '/api/review-classifier/open-pr',
    body: JSON.stringify({ repo: 'acme/widgets', classifications: aTryOutBody().classifications }),
    headers: () => ({ 'remote-user': 'alice' }),
    taken: 201,
  },
  {
    name: 'the settings PUT',
    method: 'PUT',
    path: SETTINGS,
    body: '{"model":"opus"}',
    headers: () => ({ 'remote-user': 'alice' }),
    taken: 200,
  },
  {
    name: 'the webhook POST',
    method: 'POST',
    path: '/webhook/forge/review-request',
    body: WEBHOOK_BODY,
    headers: () => {
      const signed: Record<string, string> = {}
      deliveryHeaders(WEBHOOK_BODY, { secret: SECRET }).forEach((value, name) => {
        if (name !== 'content-type') signed[name] = value
      })
      return signed
    },
    taken: 202,
  },
]

async function aServedController(allowedHosts: readonly string[] | null = null): Promise<{
  world: World
  handle: (request: Request) => Promise<Response>
}> {
  const world = createWorld()
  await world.serve(approveAll)
  const controller = aController(world, { webhookSecret: SECRET, allowedHosts })
  return { world, handle: (request) => controller.app.handle(request) }
}

function send(route: Route, headers: Record<string, string>, url = `http://localhost${route.path}`): Request {
  return new Request(url, { method: route.method, body: route.body, headers: { ...route.headers(), ...headers } })
}

/** Nothing any of the routes does happened: no run asked, no review posted, no branch pushed, the settings as they were. */
async function expectNothingHappened(world: World, handle: (request: Request) => Promise<Response>): Promise<void> {
  expect(world.requests).toEqual([])
  expect(world.forge.reviews(REPO, 42)).toEqual([])
  expect(world.forge.pushedCommits(REPO)).toEqual([])
  expect(await (await handle(aRequest(SETTINGS))).json()).toMatchObject({ model: 'haiku' })
}

describe('a state-changing request from another site, or with a body that is not JSON', () => {
  for (const route of ROUTES) {
    it(`is refused on ${route.name}: 415 without application/json, 403 from a foreign Origin, and nothing happens`, async () => {
      const { world, handle } = await aServedController()
      for (const contentType of [null, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']) {
        const headers: Record<string, string> = contentType === null ? {} : { 'content-type': contentType }
        await expectProblem(
          await handle(send(route, headers)),
          415,
          /^the body must be JSON sent with Content-Type: application\/json \(this request's Content-Type: /,
        )
      }
      const json = { 'content-type': 'application/json' }
      for (const from of [
        { origin: 'https://evil.example' },
        { origin: 'http://localhost:9999' },
        { origin: 'null' },
        { 'sec-fetch-site': 'cross-site' },
        // A plain form from another site: its Origin decides before its content type.
        { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      ]) {
        await expectProblem(await handle(send(route, { ...json, ...from })), 403, /another site's page/)
      }
      await expectNothingHappened(world, handle)
      expect(world.logger.withMessage('request refused before its route')).toHaveLength(9)
    })

    it(`lets ${route.name} through from this site's page, from behind the proxy, and from a client with no Origin`, async () => {
      for (const headers of [
        { 'content-type': 'application/json' },
        {
          'content-type': 'Application/JSON; charset=utf-8',
          origin: 'http://localhost',
          'sec-fetch-site': 'same-origin',
        },
        // The launcher's proxy: the controller's own Host, the page's in X-Forwarded-Host.
        { 'content-type': 'application/json', origin: 'http://127.0.0.1:8081', 'x-forwarded-host': '127.0.0.1:8081' },
      ]) {
        const { handle } = await aServedController()
        expect((await handle(send(route, headers))).status).toBe(route.taken)
      }
    })
  }

  it('leaves the reads alone, whatever their Origin, and an unknown route is still a 404', async () => {
    const { handle } = await aServedController()
    const read = await handle(aRequest(SETTINGS, { headers: { origin: 'https://evil.example' } }))
    expect(read.status).toBe(200)
    await expectProblem(
      await handle(aRequest('/api/nothing', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } })),
      404,
    )
  })
})

describe('with allowed hosts', () => {
  it('answers a request addressed to one of them, and 421 to any other Host, on every route', async () => {
    const { world, handle } = await aServedController(['127.0.0.1', 'localhost', '[::1]'])
    expect((await handle(aRequest('/healthz'))).status).toBe(200)
    expect((await handle(new Request('http://[::1]:8080/healthz'))).status).toBe(200)
    for (const url of ['http://evil.example:8080/healthz', `http://evil.example:8080${SETTINGS}`]) {
      await expectProblem(await handle(new Request(url)), 421, /answers only requests addressed to 127\.0\.0\.1/)
    }
    const [settingsPut] = ROUTES.filter((route) => route.method === 'PUT')
    if (settingsPut === undefined) throw new Error('no PUT route')
    const rebound = send(settingsPut, { 'content-type': 'application/json' }, `http://evil.example:8080${SETTINGS}`)
    await expectProblem(await handle(rebound), 421)
    await expectNothingHappened(world, handle)
  })
})
