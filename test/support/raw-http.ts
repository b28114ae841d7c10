/**
 * An HTTP/1.1 request written byte for byte on a socket, for the headers
 * `fetch` sets itself: a `Host` naming another site, as a page whose DNS
 * name was rebound to 127.0.0.1 sends it. One request per connection
 * (`Connection: close`); the answer is read to the end.
 */
import { connect } from 'node:net'

export type RawAnswer = { status: number; headers: Record<string, string>; body: string }

export type RawRequest = {
  method?: string
  path?: string
  /** The `Host` header; `null` sends none. */
  host: string | null
  headers?: Record<string, string>
  body?: string
  /** Where to connect; default 127.0.0.1. */
  address?: string
}

export function rawRequest(port: number, request: RawRequest): Promise<RawAnswer> {
  const lines = [`${request.method ?? 'GET'} ${request.path ?? '/'} HTTP/1.1`]
  if (request.host !== null) lines.push(`Host: ${request.host}`)
  for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`${name}: ${value}`)
  const body = request.body ?? ''
  if (body !== '') lines.push(`Content-Length: ${Buffer.byteLength(body)}`)
  lines.push('Connection: close', '', body)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: request.address ?? '127.0.0.1', port })
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const split = text.indexOf('\r\n\r\n')
      const [statusLine = '', ...headerLines] = text.slice(0, split === -1 ? text.length : split).split('\r\n')
      const status = Number(statusLine.split(' ')[1])
      if (!Number.isInteger(status)) {
        reject(new Error(`not an HTTP answer: ${JSON.stringify(text.slice(0, 200))}`))
        return
      }
      const headers: Record<string, string> = {}
      for (const line of headerLines) {
        const colon = line.indexOf(':')
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
      }
      resolve({ status, headers, body: split === -1 ? '' : text.slice(split + 4) })
    })
    socket.write(lines.join('\r\n'))
  })
}

/** Whether a TCP connection to `address:port` is taken (`true`) or refused (`false`). */
export function connects(address: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') resolve(false)
      else reject(error)
    })
  })
}
