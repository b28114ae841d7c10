/**
 * One real nats-server for a describe block's tests, with the clients and run
 * subscriptions they make on it: started before the tests, and after them
 * every subscription drained, every client closed and the server stopped,
 * whatever failed on the way.
 */
import { afterAll, beforeAll } from 'bun:test'
import type { NatsClient } from '../../adapters/nats/connection.ts'
import type { RunSubscription } from '../../ports/queue.ts'
import { aClient } from '../adapters/nats/harness.ts'
import { cleanUp } from './cleanup.ts'
import { type NatsServer, startNatsServer } from './nats-server.ts'

export type SharedNats = {
  /** A client named `name`, closed after the block. */
  client(name: string): Promise<NatsClient>
  /** Drains `subscription` after the block, before the clients close. */
  serving(subscription: RunSubscription): void
}

export function useSharedNats(): SharedNats {
  let server: NatsServer | null = null
  const clients: NatsClient[] = []
  const subscriptions: RunSubscription[] = []
  beforeAll(async () => {
    server = await startNatsServer()
  })
  afterAll(async () => {
    await cleanUp(
      () => Promise.all(subscriptions.splice(0).map((s) => s.drain())),
      () => Promise.all(clients.splice(0).map((c) => c.close(1000))),
      () => server?.cleanup(),
    )
  })
  return {
    async client(name) {
      if (server === null) throw new Error('the shared nats-server has not started')
      const connected = await aClient(server, name)
      clients.push(connected)
      return connected
    },
    serving(subscription) {
      subscriptions.push(subscription)
    },
  }
}
