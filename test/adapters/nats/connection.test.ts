import { afterAll, afterEach, beforeAll, describe, expect, it } from 'bun:test'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { connectNats, type NatsClient, natsUrlAuth, redactNatsUrl } from '../../../adapters/nats/connection.ts'
import { isAppError } from '../../../core/base/errors.ts'
import { cleanUp } from '../../support/cleanup.ts'
import { type NatsServer, startNatsServer } from '../../support/nats-server.ts'
import { aClosedPort, failureOf, testReconnectWaitMs, waitUntil } from './harness.ts'

const fakePassword = 'fake-s3cret-pw'

describe('redactNatsUrl', () => {
  it('drops credentials and keeps scheme, host and port', () => {
    expect(redactNatsUrl(`nats://svc:${fakePassword}@nats.internal:4222`)).toBe('nats://nats.internal:4222')
    expect(redactNatsUrl(`tls://${fakePassword}@127.0.0.1:4222`)).toBe('tls://127.0.0.1:4222')
    expect(redactNatsUrl(`svc:${fakePassword}@127.0.0.1:4222`)).toBe('127.0.0.1:4222')
    expect(redactNatsUrl('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222')
  })
})

describe('connectNats', () => {
  const servers: NatsServer[] = []
  const clients: NatsClient[] = []
  afterEach(async () => {
    await cleanUp(
      () => Promise.all(clients.splice(0).map((c) => c.close(1000))),
      () => Promise.all(servers.splice(0).map((s) => s.cleanup())),
    )
  })

  it('fails the first connect to a port where nothing listens with unavailable naming the URL, not its credentials', async () => {
    const port = await aClosedPort()
    const logger = createRecordingLogger()
    const started = performance.now()
    const failure = await failureOf(
      connectNats({
        url: `nats://svc:${fakePassword}@127.0.0.1:${port}`,
        name: 'test',
        firstConnectTimeoutMs: 1500,
        logger,
      }),
    )
    const elapsed = performance.now() - started
    expect(isAppError(failure, 'unavailable')).toBe(true)
    const message = isAppError(failure) ? failure.message : ''
    expect(message).toContain(`nats://127.0.0.1:${port}`)
    expect(message).toContain('1500 ms')
    expect(message).not.toContain(fakePassword)
    expect(JSON.stringify(logger.entries)).not.toContain(fakePassword)
    expect(logger.withMessage('nats first connect failed')).toHaveLength(1)
    // Bounded: it gave up near its deadline, not after the client's own 20 s connect timeout.
    expect(elapsed).toBeLessThan(15_000)
  })

  it('keeps trying the first connect until a server comes up within the bound', async () => {
    const server = await startNatsServer()
    servers.push(server)
    await server.stop()
    const logger = createRecordingLogger()
    const connecting = connectNats({ url: server.url, name: 'test', firstConnectTimeoutMs: 30_000, logger })
    await Bun.sleep(300)
    await server.restart()
    const client = await connecting
    clients.push(client)
    expect(client.isConnected()).toBe(true)
    expect(logger.withMessage('nats connected')).toHaveLength(1)
  })

  it('reports and logs a disconnect and the reconnect, and keeps reconnecting past the default attempt limit', async () => {
    const server = await startNatsServer()
    servers.push(server)
    const logger = createRecordingLogger()
    const client = await connectNats({
      url: server.url,
      name: 'test',
      firstConnectTimeoutMs: 10_000,
      reconnectTimeWaitMs: testReconnectWaitMs,
      logger,
    })
    clients.push(client)
    await server.stop('SIGKILL')
    await waitUntil('the client notices the outage', () => !client.isConnected())
    expect(logger.withMessage('nats disconnected')).toHaveLength(1)
    // The client's default (10 attempts) would have closed the connection for good by now.
    await waitUntil(
      'more reconnect attempts than the default limit',
      () => logger.withMessage('nats reconnecting').length > 12,
    )
    expect(client.connection.isClosed()).toBe(false)
    await server.restart()
    await waitUntil('the client reconnects', () => client.isConnected())
    expect(logger.withMessage('nats reconnected')).toHaveLength(1)
    expect(logger.withMessage('nats disconnected')[0]?.level).toBe('warn')
  })

  it('tells a waiter of the reconnect, and one that gives up or outlives the connection that it did not come', async () => {
    const server = await startNatsServer()
    servers.push(server)
    const client = await connectNats({
      url: server.url,
      name: 'test',
      firstConnectTimeoutMs: 10_000,
      reconnectTimeWaitMs: testReconnectWaitMs,
      logger: createRecordingLogger(),
    })
    clients.push(client)
    expect(await client.whenConnected()).toBe(true)
    await server.stop('SIGKILL')
    await waitUntil('the client notices the outage', () => !client.isConnected())
    const stop = new AbortController()
    const abandoned = client.whenConnected({ signal: stop.signal })
    const reconnect = client.whenConnected()
    stop.abort()
    expect(await abandoned).toBe(false)
    expect(await client.whenConnected({ timeoutMs: 50 })).toBe(false)
    await server.restart()
    expect(await reconnect).toBe(true)
    expect(client.isConnected()).toBe(true)
    await server.stop('SIGKILL')
    await waitUntil('the client notices the outage', () => !client.isConnected())
    const closing = client.whenConnected()
    await client.close(500)
    expect(await closing).toBe(false)
  })

  it('closes within its bound while the server is down, and reports not connected after', async () => {
    const server = await startNatsServer()
    servers.push(server)
    const logger = createRecordingLogger()
    const client = await connectNats({ url: server.url, name: 'test', firstConnectTimeoutMs: 10_000, logger })
    await server.stop('SIGKILL')
    await waitUntil('the client notices the outage', () => !client.isConnected())
    await client.close(500)
    expect(client.connection.isClosed()).toBe(true)
    expect(client.isConnected()).toBe(false)
  })
})

describe('connectNats with credentials', () => {
  const password = 'svc-pw-0c7e1a9d'
  let server: NatsServer
  const clients: NatsClient[] = []
  beforeAll(async () => {
    server = await startNatsServer({ auth: { user: 'svc', password } })
  })
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close(1000)))
  })
  afterAll(async () => {
    await server?.cleanup()
  })

  function withUrl(url: string, logger = createRecordingLogger()) {
    return connectNats({ url, name: 'test', firstConnectTimeoutMs: 30_000, logger })
  }

  it('signs in with a user and password, given as auth or in the URL (which the client alone would ignore)', async () => {
    const logger = createRecordingLogger()
    const given = await connectNats({
      url: server.url,
      auth: { kind: 'user', user: 'svc', password },
      name: 'test',
      firstConnectTimeoutMs: 5_000,
      logger,
    })
    clients.push(given)
    expect(given.isConnected()).toBe(true)
    const inUrl = await withUrl(`nats://svc:${password}@127.0.0.1:${server.port}`, logger)
    clients.push(inUrl)
    expect(inUrl.isConnected()).toBe(true)
    expect(inUrl.safeUrl).toBe(server.url)
    expect(JSON.stringify(logger.entries)).not.toContain(password)
  })

  it('fails at once, not at its deadline, when the server refuses: no credentials, or a wrong password', async () => {
    const logger = createRecordingLogger()
    const anonymous = await failureOf(withUrl(server.url, logger))
    expect(isAppError(anonymous, 'unavailable') ? anonymous.message : String(anonymous)).toBe(
      `NATS at ${server.url} refused the connection's credentials (Authorization Violation; none were given: set NATS_USER and NATS_PASSWORD, or NATS_CREDS)`,
    )
    const wrong = await failureOf(withUrl(`nats://svc:not-${password}@127.0.0.1:${server.port}`, logger))
    const message = isAppError(wrong) ? wrong.message : String(wrong)
    expect(message).toContain(
      'refused the connection\'s credentials (Authorization Violation; user "svc" with a password)',
    )
    expect(message).not.toContain(password)
    expect(JSON.stringify(logger.entries)).not.toContain(password)
    expect(logger.withMessage('nats first connect failed').map((entry) => entry.fields.auth)).toEqual(['none', 'user'])
  })
})

describe('natsUrlAuth', () => {
  it('reads a user and password or a token out of a URL, percent-decoded', () => {
    expect(natsUrlAuth('nats://127.0.0.1:4222')).toEqual({ kind: 'none' })
    expect(natsUrlAuth('nats://svc:p%3Aw@h:4222')).toEqual({ kind: 'user', user: 'svc', password: 'p:w' })
    expect(natsUrlAuth('nats://svc:@h:4222')).toEqual({ kind: 'user', user: 'svc', password: '' })
    expect(natsUrlAuth('tls://t0ken@h:4222')).toEqual({ kind: 'token', token: 't0ken' })
  })
})
