import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { createInbox } from '@nats-io/transport-node'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import type { NatsClient } from '../../../adapters/nats/connection.ts'
import { createNatsRunQueue, createNatsRunResponder, runQueueGroup, runSubject } from '../../../adapters/nats/queue.ts'
import { isAppError } from '../../../core/base/errors.ts'
import type { RunHandler, RunSubscription } from '../../../ports/queue.ts'
import { queueContract } from '../../ports/queue.contract.ts'
import { aRunReply, aRunRequest } from '../../support/builders.ts'
import { cleanUp } from '../../support/cleanup.ts'
import { type NatsServer, startNatsServer } from '../../support/nats-server.ts'
import { expectNothingFor } from '../../support/waits.ts'
import { aClient, aRelay, failureOf, type Relay, waitUntil } from './harness.ts'

const subject = runSubject('swarm')

queueContract('nats', async () => {
  const server = await startNatsServer()
  const clients: NatsClient[] = [await aClient(server, 'controller')]
  const requester = clients[0]
  if (requester === undefined) throw new Error('no requester')
  return {
    queue: createNatsRunQueue(requester, { subject }),
    heartbeatMs: 20,
    async addResponder() {
      const client = await aClient(server, `classifier-${clients.length}`)
      clients.push(client)
      return createNatsRunResponder(client, { subject, heartbeatMs: 20 }, { logger: client.logger })
    },
    async cleanup() {
      // Closing drains each responder's subscription, so its requests in hand still answer.
      await Promise.all(clients.map((c) => c.close(2000)))
      await server.cleanup()
    },
  }
})

function idOf(text: string): string {
  const parsed: unknown = JSON.parse(text)
  return typeof parsed === 'object' && parsed !== null && 'id' in parsed ? String(parsed.id) : ''
}

function gate(): { opened: Promise<void>; open(): void } {
  let open: () => void = () => {}
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { opened, open }
}

describe('runSubject', () => {
  it('puts the run subject under the swarm prefix', () => {
    expect(runSubject('swarm')).toBe('swarm.review-classifier.try-out')
    expect(runSubject('$SWARM')).toBe('$SWARM.review-classifier.try-out')
  })

  it('refuses a prefix with wildcards, spaces or empty tokens', () => {
    for (const bad of ['', 'a b', 'swarm.*', '>', 'swarm.', '.swarm']) {
      expect(
        isAppError(
          failureSync(() => runSubject(bad)),
          'invalid',
        ),
      ).toBe(true)
    }
  })
})

function failureSync(call: () => unknown): unknown {
  try {
    call()
  } catch (error) {
    return error
  }
  return null
}

describe('createNatsRunQueue and createNatsRunResponder', () => {
  let server: NatsServer
  const clients: NatsClient[] = []
  const relays: Relay[] = []
  async function connected(name: string): Promise<NatsClient> {
    const client = await aClient(server, name)
    clients.push(client)
    return client
  }
  async function serving(
    name: string,
    handler: RunHandler,
    { url = server.url, heartbeatMs }: { url?: string; heartbeatMs?: number } = {},
  ): Promise<{ client: NatsClient; subscription: RunSubscription }> {
    const client = await aClient({ url }, name)
    clients.push(client)
    const subscription = await createNatsRunResponder(
      client,
      { subject, queue: runQueueGroup, ...(heartbeatMs === undefined ? {} : { heartbeatMs }) },
      { logger: client.logger },
    ).serve(handler)
    return { client, subscription }
  }
  beforeEach(async () => {
    server = await startNatsServer()
  })
  afterEach(async () => {
    await cleanUp(
      () => Promise.all(clients.splice(0).map((c) => c.close(1000))),
      () => Promise.all(relays.splice(0).map((r) => r.stop())),
      () => server.cleanup(),
    )
  })

  it("keeps the reply subject to the one reply a plain request gets, with the progress on the run's own subject", async () => {
    const plain = await connected('a plain request/reply client')
    const held = gate()
    await serving(
      'classifier',
      async (text, tell) => {
        tell({ kind: 'taken', id: idOf(text), total: 1 })
        await held.opened
        return aRunReply({ id: idOf(text) })
      },
      { heartbeatMs: 10 },
    )
    const progress: string[] = []
    plain.connection.subscribe('swarm.review-classifier.progress.plain-1', {
      callback: (_error, msg) => {
        progress.push(JSON.parse(msg.string()).kind)
      },
    })
    const inbox = createInbox()
    const onReplySubject: string[] = []
    plain.connection.subscribe(inbox, {
      callback: (_error, msg) => {
        onReplySubject.push(msg.string())
      },
    })
    await plain.connection.flush()
    plain.connection.publish(subject, JSON.stringify(aRunRequest({ id: 'plain-1' })), { reply: inbox })
    await waitUntil('a few heartbeats on the progress subject', () => progress.length >= 3)
    held.open()
    await waitUntil('the reply', () => onReplySubject.length >= 1)
    await expectNothingFor(() => onReplySubject.length > 1, 'a second message on the reply subject', 100)
    expect(idOf(onReplySubject[0] ?? '{}')).toBe('plain-1')
    expect(progress[0]).toBe('taken')
    expect(progress.slice(1).every((kind) => kind === 'heartbeat')).toBe(true)
  })

  it('answers "classifier not running" at once once the last classifier has gone', async () => {
    const queue = createNatsRunQueue(await connected('controller'), { subject })
    const { client } = await serving('classifier', async (text) => aRunReply({ id: idOf(text) }))
    expect(idOf(await queue.request(aRunRequest({ id: 'before' }), 10_000))).toBe('before')
    await client.close()
    const failure = await failureOf(queue.request(aRunRequest(), 60_000))
    expect(isAppError(failure, 'unavailable')).toBe(true)
    expect(isAppError(failure) ? failure.message : '').toBe('classifier not running')
  })

  it('answers the request in hand when the classifier drains and then closes its connection', async () => {
    const queue = createNatsRunQueue(await connected('controller'), { subject })
    const started = gate()
    const release = gate()
    const { client, subscription } = await serving('classifier', async (text) => {
      started.open()
      await release.opened
      return aRunReply({ id: idOf(text), overall: 'request-changes' })
    })
    const inFlight = queue.request(aRunRequest({ id: 'in-hand' }), 20_000)
    await started.opened
    // The classifier's shutdown: drain the subscription, then the connection.
    const shutdown = subscription.drain().then(() => client.close())
    release.open()
    expect(JSON.parse(await inFlight)).toEqual(aRunReply({ id: 'in-hand', overall: 'request-changes' }))
    await shutdown
    expect(client.connection.isClosed()).toBe(true)
  })

  it('refuses a request over the server max_payload with invalid naming the size, before sending it', async () => {
    const queue = createNatsRunQueue(await connected('controller'), { subject })
    const received: string[] = []
    await serving('classifier', async (text) => {
      received.push(idOf(text))
      return aRunReply({ id: idOf(text) })
    })
    const huge = aRunRequest({ id: 'huge', diff: 'x'.repeat(1_100_000) })
    const failure = await failureOf(queue.request(huge, 10_000))
    expect(isAppError(failure, 'invalid')).toBe(true)
    const bytes = new TextEncoder().encode(JSON.stringify(huge)).byteLength
    expect(isAppError(failure) ? failure.message : '').toBe(
      `the run request is ${bytes} bytes, over the NATS server's max_payload of 1048576 bytes`,
    )
    // A diff over the 600 KB prompt budget but under max_payload still travels: the classifier rejects it itself.
    expect(idOf(await queue.request(aRunRequest({ id: 'big', diff: 'y'.repeat(900_000) }), 10_000))).toBe('big')
    expect(received).toEqual(['big'])
  })

  it('reads the limit from the server it is connected to, as a configured max_payload sets it', async () => {
    const small = await startNatsServer({ maxPayloadBytes: 65_536 })
    try {
      const client = await aClient(small, 'controller')
      clients.push(client)
      const failure = await failureOf(
        createNatsRunQueue(client, { subject }).request(aRunRequest({ diff: 'z'.repeat(70_000) }), 10_000),
      )
      expect(isAppError(failure, 'invalid')).toBe(true)
      expect(isAppError(failure) ? failure.message : '').toContain("over the NATS server's max_payload of 65536 bytes")
    } finally {
      await small.cleanup()
    }
  })

  it('replaces a reply over max_payload with an ok: false reply saying so', async () => {
    const queue = createNatsRunQueue(await connected('controller'), { subject })
    await serving('classifier', async (text) =>
      aRunReply({ id: idOf(text), ok: false, error: 'e'.repeat(1_100_000), rows: [] }),
    )
    const reply: unknown = JSON.parse(await queue.request(aRunRequest({ id: 'big-reply' }), 10_000))
    expect(reply).toMatchObject({ id: 'big-reply', ok: false, rows: [], overall: 'no-verdict' })
    expect(JSON.stringify(reply)).toContain("over the NATS server's max_payload of 1048576 bytes")
  })

  it('fails at once with unavailable to request or serve while disconnected', async () => {
    const controller = await connected('controller')
    const queue = createNatsRunQueue(controller, { subject })
    await server.stop('SIGKILL')
    await waitUntil('the controller notices the outage', () => !controller.isConnected())
    const failure = await failureOf(queue.request(aRunRequest(), 60_000))
    expect(isAppError(failure, 'unavailable')).toBe(true)
    const responder = createNatsRunResponder(controller, { subject }, { logger: createRecordingLogger() })
    expect(
      isAppError(await failureOf(responder.serve(async (text) => aRunReply({ id: idOf(text) }))), 'unavailable'),
    ).toBe(true)
  })

  it('delivers the reply of a run that finishes after a server restart, and serves the next run', async () => {
    const controller = await connected('controller')
    const queue = createNatsRunQueue(controller, { subject })
    const started = gate()
    const release = gate()
    const { client: classifier } = await serving('classifier', async (text) => {
      if (idOf(text) === 'across-restart') {
        started.open()
        await release.opened
      }
      return aRunReply({ id: idOf(text) })
    })
    const inFlight = queue.request(aRunRequest({ id: 'across-restart' }), 30_000)
    await started.opened
    await server.stop('SIGKILL')
    await waitUntil('both sides notice the outage', () => !controller.isConnected() && !classifier.isConnected())
    await server.restart()
    await waitUntil('both sides reconnect', () => controller.isConnected() && classifier.isConnected())
    // Connected is not yet resubscribed: a round trip on the controller's connection means the server
    // has its reply inbox again (a reply published before that is dropped, and the run times out).
    await controller.connection.flush()
    release.open()
    expect(idOf(await inFlight)).toBe('across-restart')
    expect(idOf(await queue.request(aRunRequest({ id: 'after-restart' }), 10_000))).toBe('after-restart')
  })

  it('holds a reply finished during the outage until the classifier is reconnected', async () => {
    const controller = await connected('controller')
    const queue = createNatsRunQueue(controller, { subject })
    // The classifier goes through a relay so the test can let it back in only after the controller.
    const relay = await aRelay(server.port)
    relays.push(relay)
    const started = gate()
    const release = gate()
    let finished = false
    const { client: classifier } = await serving(
      'classifier',
      async (text) => {
        started.open()
        await release.opened
        finished = true
        return aRunReply({ id: idOf(text) })
      },
      { url: relay.url },
    )
    const inFlight = queue.request(aRunRequest({ id: 'finished-while-down' }), 30_000)
    await started.opened
    relay.setOpen(false)
    await server.stop('SIGKILL')
    await waitUntil('both sides notice the outage', () => !controller.isConnected() && !classifier.isConnected())
    release.open()
    await waitUntil('the run finishes while the server is down', () => finished)
    await server.restart()
    // The controller must be back first: a reply published before its inbox is resubscribed is dropped by the server.
    await waitUntil('the controller reconnects', () => controller.isConnected())
    expect(classifier.isConnected()).toBe(false)
    relay.setOpen(true)
    expect(idOf(await inFlight)).toBe('finished-while-down')
  })
})
