/**
 * The client side of ACP's JSON-RPC 2.0: one JSON message a line, both ways.
 * It knows nothing of processes: the caller feeds it what the agent writes
 * and gives it a way to write back, so it can drive a process, a socket or a
 * test double alike. Requests resolve to a `Result`, never reject: a closed
 * connection answers every pending request with an error.
 */
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { err, ok, type Result } from '../../core/base/result.ts'

export type RpcError = { code: number; message: string; data?: unknown }

const RpcErrorSchema = Type.Object({ code: Type.Number(), message: Type.String(), data: Type.Optional(Type.Unknown()) })

const Message = Type.Object({
  id: Type.Optional(Type.Union([Type.Number(), Type.String(), Type.Null()])),
  method: Type.Optional(Type.String()),
  params: Type.Optional(Type.Unknown()),
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(RpcErrorSchema),
})

/** JSON-RPC's code for a method the receiver does not offer. */
export const METHOD_NOT_FOUND = -32601

/** Our code for "the connection closed before the answer came". */
export const CONNECTION_CLOSED = -32099

export type AcpHandlers = {
  /** A notification from the agent (`session/update`). */
  onNotification(method: string, params: unknown): void
  /** A request from the agent (`session/request_permission`, `fs/*`); the answer goes back at once. */
  onRequest(method: string, params: unknown): Result<unknown, RpcError>
}

export type AcpConnection = {
  request(method: string, params: unknown): Promise<Result<unknown, RpcError>>
  notify(method: string, params: unknown): void
  /** Feeds what the agent wrote, in any chunking. */
  receive(chunk: string): void
  /** The agent is gone: every pending and later request gets a `CONNECTION_CLOSED` error. */
  close(reason: string): void
}

export function createAcpConnection(write: (line: string) => void, handlers: AcpHandlers): AcpConnection {
  const pending = new Map<number, (result: Result<unknown, RpcError>) => void>()
  let nextId = 0
  let buffered = ''
  let closedReason: string | null = null

  function send(message: Record<string, unknown>): void {
    if (closedReason !== null) return
    write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
  }

  function handleLine(line: string): void {
    if (line.trim() === '') return
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      return // not protocol: a stray print is no reason to fail the session
    }
    if (!Value.Check(Message, parsed)) return
    const { id, method } = parsed
    if (method !== undefined && id !== undefined && id !== null) {
      const answer = handlers.onRequest(method, parsed.params)
      send(answer.ok ? { id, result: answer.value } : { id, error: answer.error })
      return
    }
    if (method !== undefined) {
      handlers.onNotification(method, parsed.params)
      return
    }
    if (typeof id !== 'number') return
    const resolve = pending.get(id)
    if (resolve === undefined) return
    pending.delete(id)
    resolve(parsed.error !== undefined ? err(parsed.error) : ok(parsed.result ?? null))
  }

  return {
    request(method, params) {
      if (closedReason !== null) return Promise.resolve(err({ code: CONNECTION_CLOSED, message: closedReason }))
      const id = nextId
      nextId += 1
      return new Promise((resolve) => {
        pending.set(id, resolve)
        send({ id, method, params })
      })
    },
    notify(method, params) {
      send({ method, params })
    },
    receive(chunk) {
      buffered += chunk
      let newline = buffered.indexOf('\n')
      while (newline !== -1) {
        const line = buffered.slice(0, newline)
        buffered = buffered.slice(newline + 1)
        handleLine(line)
        newline = buffered.indexOf('\n')
      }
    },
    close(reason) {
      if (closedReason !== null) return
      closedReason = reason
      for (const resolve of pending.values()) resolve(err({ code: CONNECTION_CLOSED, message: reason }))
      pending.clear()
    },
  } satisfies AcpConnection
}
