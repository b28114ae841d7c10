/**
 * A fake OpenAI-compatible chat-completions provider for driving the real
 * `opencode` offline (test use only), answering as docs/runtimes.md
 * ("opencode acp", provider requests) describes.
 *
 * It serves HTTPS on 127.0.0.1 with a self-signed certificate made at start
 * with `openssl`, because `acp.base_url` must be https://; the runtime under
 * test trusts it through `NODE_EXTRA_CA_CERTS` = `caFile`, the same variable
 * an operator's private CA would use. A second, plain listener (`proxyUrl`)
 * stands in for an HTTP proxy: point `HTTPS_PROXY` at it and every outbound
 * attempt (a `CONNECT host:443`) is recorded and refused, which is how the
 * tests prove opencode reaches nothing but the provider.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export type FakeUsage = { prompt: number; completion: number; cached: number; reasoning: number }

export type FakeMode =
  /** A proper SSE stream: the text, `finish_reason: "stop"`, then usage when asked for. */
  | { kind: 'answer'; text: string; usage?: FakeUsage }
  /** That HTTP status with an OpenAI-style error body; `retryAfterMs` sets `retry-after-ms`. */
  | { kind: 'status'; status: number; retryAfterMs?: number }
  /** Accepts the request and never answers. */
  | { kind: 'hang' }
  /** The text, usage and `[DONE]`, but no chunk carries a `finish_reason`. */
  | { kind: 'nofinish'; text: string }
  /** A complete non-streaming JSON body in answer to a streaming request. */
  | { kind: 'jsonbody'; text: string }

export type RecordedRequest = {
  method: string
  path: string
  headers: Record<string, string>
  body: unknown
}

export type FakeOpenAI = {
  /** The provider's base URL, `https://127.0.0.1:<port>/v1`. */
  url: string
  /** A plain-HTTP proxy that records what it is asked to reach and refuses it. */
  proxyUrl: string
  /** The PEM certificate the provider serves, for `NODE_EXTRA_CA_CERTS`. */
  caFile: string
  setMode(mode: FakeMode): void
  /** Every provider request so far, oldest first. */
  requests(): RecordedRequest[]
  /** Every first request line the proxy saw, e.g. `CONNECT registry.npmjs.org:443 HTTP/1.1`. */
  proxied(): string[]
  /** Runs before the provider answers each request (and is awaited): lets a test look at a live session. */
  onRequest(hook: ((request: RecordedRequest) => Promise<void> | void) | null): void
  stop(): Promise<void>
}

export type FakeOpenAIOptions = { mode?: FakeMode }

const DEFAULT_TEXT = '{"verdict":"match","certainty":90,"reason":"fake"}'

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const dir = await mkdtemp(join(tmpdir(), 'fake-openai-'))
  const caFile = join(dir, 'cert.pem')
  const keyFile = join(dir, 'key.pem')
  await makeCertificate(keyFile, caFile)

  let mode: FakeMode = options.mode ?? { kind: 'answer', text: DEFAULT_TEXT }
  let hook: ((request: RecordedRequest) => Promise<void> | void) | null = null
  const recorded: RecordedRequest[] = []
  const proxiedLines: string[] = []
  const previousPrompts: string[] = []

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    // A hung request must stay open until the client gives up, not 10 s.
    idleTimeout: 0,
    tls: { cert: Bun.file(caFile), key: Bun.file(keyFile) },
    async fetch(request) {
      const raw = await request.text()
      const url = new URL(request.url)
      const entry: RecordedRequest = {
        method: request.method,
        path: url.pathname,
        headers: Object.fromEntries(request.headers.entries()),
        body: parseJson(raw),
      }
      recorded.push(entry)
      if (hook !== null) await hook(entry)
      if (request.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
        return Response.json(errorBody(404), { status: 404 })
      }
      return respond(mode, entry.body, previousPrompts)
    },
  })

  const proxy = await startProxyCatcher(proxiedLines)

  return {
    url: `https://127.0.0.1:${server.port}/v1`,
    proxyUrl: `http://127.0.0.1:${proxy.port}`,
    caFile,
    setMode(next) {
      mode = next
    },
    requests() {
      return [...recorded]
    },
    proxied() {
      return [...proxiedLines]
    },
    onRequest(next) {
      hook = next
    },
    async stop() {
      await server.stop(true)
      await proxy.stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

async function makeCertificate(keyFile: string, certFile: string): Promise<void> {
  const child = Bun.spawn(
    [
      'openssl',
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdout: 'ignore', stderr: 'pipe' },
  )
  if ((await child.exited) !== 0) throw new Error(`openssl failed: ${await new Response(child.stderr).text()}`)
}

function parseJson(raw: string): unknown {
  try {
    return raw === '' ? null : JSON.parse(raw)
  } catch {
    return raw
  }
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined
}

function errorBody(status: number): { error: { message: string; type: string; code: string } } {
  const known: Record<number, [string, string]> = {
    400: ['invalid_request_error', 'Bad request (fake)'],
    401: ['invalid_request_error', 'Incorrect API key provided (fake)'],
    429: ['rate_limit_exceeded', 'Rate limit reached (fake)'],
    500: ['server_error', 'Internal server error (fake)'],
  }
  const [type, message] = known[status] ?? ['server_error', `HTTP ${status} (fake)`]
  return { error: { message, type, code: status === 401 ? 'invalid_api_key' : type } }
}

function respond(mode: FakeMode, body: unknown, previousPrompts: string[]): Response | Promise<Response> {
  if (mode.kind === 'hang') return new Promise<Response>(() => undefined)
  if (mode.kind === 'status') {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (mode.retryAfterMs !== undefined) headers['retry-after-ms'] = String(mode.retryAfterMs)
    return new Response(JSON.stringify(errorBody(mode.status)), { status: mode.status, headers })
  }
  const model = String(field(body, 'model') ?? 'fake/model')
  const id = `chatcmpl-fake-${Date.now()}`
  const created = Math.floor(Date.now() / 1000)
  const usage = usageFor(mode.kind === 'answer' ? mode.usage : undefined, body, mode.text, previousPrompts)
  if (mode.kind === 'jsonbody') {
    return Response.json({
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: mode.text }, finish_reason: 'stop' }],
      usage,
    })
  }
  const chunk = (extra: Record<string, unknown>) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, ...extra })}\n\n`
  const parts = [chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })]
  for (const piece of mode.text.match(/.{1,12}/gs) ?? []) {
    parts.push(chunk({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] }))
  }
  if (mode.kind === 'answer') parts.push(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }))
  if (field(field(body, 'stream_options'), 'include_usage') === true) parts.push(chunk({ choices: [], usage }))
  parts.push('data: [DONE]\n\n')
  return new Response(parts.join(''), { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } })
}

// Without a fixed usage, counts are estimates (4 characters a token), and the
// cached count simulates a prefix cache: the longest common prefix with an
// earlier prompt, rounded down to 64 tokens.
function usageFor(
  fixed: FakeUsage | undefined,
  body: unknown,
  text: string,
  previousPrompts: string[],
): Record<string, unknown> {
  let counts = fixed
  if (counts === undefined) {
    const prompt = JSON.stringify(field(body, 'messages') ?? [])
    let best = 0
    for (const previous of previousPrompts) {
      let i = 0
      const n = Math.min(previous.length, prompt.length)
      while (i < n && previous.charCodeAt(i) === prompt.charCodeAt(i)) i++
      best = Math.max(best, i)
    }
    previousPrompts.push(prompt)
    const tokens = (s: string) => Math.max(1, Math.ceil(s.length / 4))
    counts = {
      prompt: tokens(prompt),
      completion: tokens(text),
      cached: Math.floor(tokens(prompt.slice(0, best)) / 64) * 64,
      reasoning: 0,
    }
  }
  return {
    prompt_tokens: counts.prompt,
    completion_tokens: counts.completion,
    total_tokens: counts.prompt + counts.completion,
    prompt_tokens_details: { cached_tokens: counts.cached },
    completion_tokens_details: { reasoning_tokens: counts.reasoning },
  }
}

/** Records the first line of whatever a proxy client sends and answers 502. */
async function startProxyCatcher(lines: string[]): Promise<{ port: number; stop(): Promise<void> }> {
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.once('data', (data: Buffer) => {
      lines.push(data.toString('latin1').split('\r\n')[0] ?? '')
      socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n')
    })
    socket.on('error', () => undefined)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
