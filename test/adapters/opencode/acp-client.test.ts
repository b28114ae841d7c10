import { describe, expect, it } from 'bun:test'
import { CONNECTION_CLOSED, createAcpConnection } from '../../../adapters/opencode/acp-client.ts'
import { err, ok } from '../../../core/base/result.ts'

function aConnection() {
  const written: unknown[] = []
  const notifications: Array<[string, unknown]> = []
  const connection = createAcpConnection((line) => written.push(JSON.parse(line)), {
    onNotification: (method, params) => notifications.push([method, params]),
    onRequest: (method) =>
      method === 'session/request_permission'
        ? ok({ outcome: { outcome: 'cancelled' } })
        : err({ code: -32601, message: 'no' }),
  })
  return { connection, written, notifications }
}

describe('createAcpConnection', () => {
  it('matches a response to its request by id, across chunk boundaries', async () => {
    const { connection, written } = aConnection()
    const first = connection.request('initialize', { protocolVersion: 1 })
    const second = connection.request('session/new', { cwd: '/w' })
    expect(written).toEqual([
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } },
      { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/w' } },
    ])
    connection.receive('{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}\n{"jsonrpc":"2.0","id":0,')
    connection.receive('"error":{"code":-32603,"message":"boom"}}\n')
    expect(await second).toEqual(ok({ sessionId: 's' }))
    expect(await first).toEqual(err({ code: -32603, message: 'boom' }))
  })

  it('hands notifications over and skips lines that are not protocol', () => {
    const { connection, notifications } = aConnection()
    connection.receive('starting up\n{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}\n')
    expect(notifications).toEqual([['session/update', { sessionId: 's' }]])
  })

  it("answers the agent's requests at once", () => {
    const { connection, written } = aConnection()
    connection.receive('{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{}}\n')
    connection.receive('{"jsonrpc":"2.0","id":"p2","method":"fs/read_text_file","params":{}}\n')
    expect(written).toEqual([
      { jsonrpc: '2.0', id: 'p1', result: { outcome: { outcome: 'cancelled' } } },
      { jsonrpc: '2.0', id: 'p2', error: { code: -32601, message: 'no' } },
    ])
  })

  it('answers pending and later requests with an error once closed', async () => {
    const { connection } = aConnection()
    const pending = connection.request('session/prompt', {})
    connection.close('opencode exited (1)')
    expect(await pending).toEqual(err({ code: CONNECTION_CLOSED, message: 'opencode exited (1)' }))
    expect(await connection.request('session/new', {})).toEqual(
      err({ code: CONNECTION_CLOSED, message: 'opencode exited (1)' }),
    )
  })
})
