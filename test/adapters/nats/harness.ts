/** Shared pieces of the NATS adapter tests: a client per test, waiting on a condition, failures as values. */
import { connect as connectTcp, createServer, type Socket } from 'node:net'
import { createRecordingLogger, type RecordingLogger } from '../../../adapters/memory/logger.ts'
import { connectNats, type NatsClient } from '../../../adapters/nats/connection.ts'
import type { NatsServer } from '../../support/nats-server.ts'

/** Short reconnect wait so restart tests don't sit out the client's 2 s default. */
export const testReconnectWaitMs = 100

export async function aClient(
  server: Pick<NatsServer, 'url'>,
  name = 'test',
): Promise<NatsClient & { logger: RecordingLogger }> {
  const logger = createRecordingLogger()
  const client = await connectNats({
    url: server.url,
    name,
    firstConnectTimeoutMs: 10_000,
    reconnectTimeWaitMs: testReconnectWaitMs,
    logger,
  })
  return Object.assign(client, { logger })
}

/** Polls `condition` until true; fails with `what` after a generous deadline. */
export async function waitUntil(what: string, condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await Bun.sleep(20)
  }
}

export async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (error: unknown) => error,
  )
}

/** A port nothing listens on: bound by the OS, then released. */
export async function aClosedPort(): Promise<number> {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = listener.port
  listener.stop(true)
  return port
}

/**
 * A TCP relay in front of the server, for one client whose reconnect a test
 * must hold back (to order two clients' reconnects without timing). While
 * closed it drops new connections, and the client keeps retrying.
 */
export type Relay = { url: string; setOpen(open: boolean): void; stop(): Promise<void> }

export async function aRelay(targetPort: number): Promise<Relay> {
  let open = true
  const sockets = new Set<Socket>()
  const relay = createServer((client) => {
    if (!open) {
      client.destroy()
      return
    }
    const upstream = connectTcp({ host: '127.0.0.1', port: targetPort })
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      // Either side going away ends both, as a dropped connection would.
      socket.on('error', () => undefined)
      socket.on('close', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve))
  const address = relay.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    url: `nats://127.0.0.1:${port}`,
    setOpen(value) {
      open = value
    },
    async stop() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => relay.close(() => resolve()))
    },
  }
}
