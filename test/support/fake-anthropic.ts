/**
 * A fake Anthropic Messages API on 127.0.0.1 for running the real `claude`
 * binary in tests; it answers the way docs/runtimes.md ("The claude CLI",
 * the fake server section) says the CLI needs.
 *
 * `POST /v1/messages` answers with the configured text, as SSE when the body
 * asks for `stream` (the CLI always does) and as one JSON message otherwise.
 * Usage is an estimate (chars / 4) with prompt caching emulated: each
 * `cache_control` block (tools, then system, then messages) ends a prefix; a
 * prefix seen before is reported as cache read, the rest up to the last
 * breakpoint as cache creation, what follows as input. Like the real API it
 * rejects more than four breakpoints with a 400. Every request is recorded
 * (method, path, query, headers, parsed body) so a test can assert on it.
 */
import { createHash } from 'node:crypto'

export type FakeMode =
  | 'ok'
  | '401'
  | '429'
  | '500'
  | '529'
  /** 200 with a body that is not JSON. */
  | 'malformed'
  /** Accepts the request and never answers. */
  | 'hang'
  /** An SSE `error` event after the first text delta. */
  | 'stream_error'
  /** Plain JSON to a streaming request. */
  | 'json_for_stream'
  /** The SSE stream ends after the text delta. */
  | 'truncated'

export type FakeModeChange = {
  mode?: FakeMode
  /** With `mode`: only the next `count` message calls, then `ok`. */
  count?: number
  /** Seconds, sent as `retry-after` with 429 and 529. */
  retryAfter?: number
  /** The answer text. */
  text?: string
  /** Waits this long before answering each message call. */
  delayMs?: number
}

/**
 * Decides one message call from its body (e.g. by the question it asks):
 * a mode and/or text for that call, or null for the fake's current settings.
 */
export type FakeResponder = (body: unknown) => { mode?: FakeMode; text?: string } | null

export type FakeAnthropicOptions = FakeModeChange & {
  responder?: FakeResponder
  /** More `cache_control` blocks than this are refused with a 400 (the API's limit is 4). */
  maxCacheBreakpoints?: number
}

export type RecordedRequest = {
  method: string
  path: string
  query: string
  headers: Record<string, string>
  /** The parsed JSON body; the raw text when it is not JSON; `null` when empty. */
  body: unknown
}

export type FakeUsage = {
  input_tokens: number
  cache_creation_input_tokens: number
  cache_read_input_tokens: number
}

export type FakeAnthropic = {
  /** The base URL to give the client as `ANTHROPIC_BASE_URL`. */
  url: string
  /** Changes only the fields given; setting `mode` also resets `count`. */
  setMode(change: FakeModeChange): void
  /** Every request received since the start or the last `reset`, in order. */
  requests(): RecordedRequest[]
  /** `messages`: `/v1/messages` calls; `usages`: the usage reported for each successful one. */
  stats(): { messages: number; usages: FakeUsage[] }
  /** Forgets the emulated cache, the counters and the recorded requests. */
  reset(): void
  /** Sets (or clears) the per-call responder. */
  setResponder(responder: FakeResponder | null): void
  /** Sets (or clears) a hold awaited before each message call is answered: lets a test decide when an answer goes out. */
  setHold(hold: ((body: unknown) => Promise<void> | void) | null): void
  stop(): Promise<void>
}

type Piece = { text: string; breakpoint: boolean }

export const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4))

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

/** The text blocks of a Messages API body's user message: the shared context, then the question. */
export function userTexts(body: unknown): string[] {
  if (!isRecord(body)) return []
  const user = asArray(body.messages).find((message) => isRecord(message) && message.role === 'user')
  const content = isRecord(user) ? asArray(user.content) : []
  return content.flatMap((block) => (isRecord(block) && typeof block.text === 'string' ? [block.text] : []))
}

export function withoutMarker(block: unknown): string {
  if (!isRecord(block)) return JSON.stringify(block)
  const { cache_control: _marker, ...rest } = block
  return JSON.stringify(rest)
}

export function hasMarker(block: unknown): boolean {
  return isRecord(block) && block.cache_control !== undefined
}

/** A request flattened in the API's cache order; a piece with a breakpoint ends a cacheable prefix. */
function pieces(body: unknown): Piece[] {
  if (!isRecord(body)) return []
  const out: Piece[] = []
  for (const tool of asArray(body.tools)) out.push({ text: JSON.stringify(tool), breakpoint: hasMarker(tool) })
  if (typeof body.system === 'string') out.push({ text: body.system, breakpoint: false })
  else for (const block of asArray(body.system)) out.push({ text: withoutMarker(block), breakpoint: hasMarker(block) })
  for (const message of asArray(body.messages)) {
    if (!isRecord(message)) continue
    const role = String(message.role)
    if (typeof message.content === 'string') out.push({ text: role + message.content, breakpoint: false })
    else
      for (const block of asArray(message.content))
        out.push({ text: role + withoutMarker(block), breakpoint: hasMarker(block) })
  }
  return out
}

const errorBody = (type: string, message: string) => JSON.stringify({ type: 'error', error: { type, message } })

export function startFakeAnthropic(options: FakeAnthropicOptions = {}): FakeAnthropic {
  let mode: FakeMode = options.mode ?? 'ok'
  let modeCount = options.count ?? -1
  let retryAfter = options.retryAfter ?? 1
  let replyText = options.text ?? 'NO'
  let delayMs = options.delayMs ?? 0
  let responder: FakeResponder | null = options.responder ?? null
  let hold: ((body: unknown) => Promise<void> | void) | null = null
  const maxBreakpoints = options.maxCacheBreakpoints ?? 4
  let messageCalls = 0
  let recorded: RecordedRequest[] = []
  let usages: FakeUsage[] = []
  const seenPrefixes = new Set<string>()
  // Hung answers are released on stop, so no promise outlives the server.
  const hung = new Set<() => void>()

  function usageFor(body: unknown, record: boolean): FakeUsage {
    const hash = createHash('sha256')
    let tokens = 0
    let lastBreakpoint = 0
    let readUpTo = 0
    const fresh: string[] = []
    for (const piece of pieces(body)) {
      hash.update(piece.text)
      tokens += estimateTokens(piece.text)
      if (!piece.breakpoint) continue
      const prefix = hash.copy().digest('hex')
      lastBreakpoint = tokens
      if (seenPrefixes.has(prefix)) readUpTo = tokens
      else fresh.push(prefix)
    }
    if (record) for (const prefix of fresh) seenPrefixes.add(prefix)
    return {
      input_tokens: tokens - lastBreakpoint,
      cache_creation_input_tokens: lastBreakpoint - readUpTo,
      cache_read_input_tokens: readUpTo,
    }
  }

  function errorResponse(current: FakeMode): Response | null {
    const headers = { 'content-type': 'application/json', 'request-id': `req_fake_${messageCalls}` }
    switch (current) {
      case '401':
        return new Response(errorBody('authentication_error', 'invalid x-api-key'), { status: 401, headers })
      case '429':
        return new Response(errorBody('rate_limit_error', 'Number of requests has exceeded your rate limit'), {
          status: 429,
          headers: { ...headers, 'retry-after': String(retryAfter) },
        })
      case '500':
        return new Response(errorBody('api_error', 'Internal server error'), { status: 500, headers })
      case '529':
        return new Response(errorBody('overloaded_error', 'Overloaded'), {
          status: 529,
          headers: { ...headers, 'retry-after': String(retryAfter) },
        })
      default:
        return null
    }
  }

  function sse(events: Array<[string, unknown]>, failAt = -1): Response {
    const encoder = new TextEncoder()
    const stream = new ReadableStream({
      start(controller) {
        for (const [index, [event, data]] of events.entries()) {
          if (index === failAt) {
            controller.enqueue(encoder.encode(`event: error\ndata: ${errorBody('overloaded_error', 'Overloaded')}\n\n`))
            break
          }
          controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`))
        }
        controller.close()
      },
    })
    return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } })
  }

  async function messages(body: unknown): Promise<Response> {
    messageCalls += 1
    let current = mode
    if (modeCount === 0) current = 'ok'
    if (modeCount > 0) modeCount -= 1
    const decided = responder?.(body) ?? null
    if (decided?.mode !== undefined) current = decided.mode
    if (delayMs > 0) await Bun.sleep(delayMs)
    if (hold !== null) await hold(body)
    if (current === 'hang') {
      return new Promise<Response>((resolve) => {
        hung.add(() => resolve(new Response(errorBody('api_error', 'fake stopped'), { status: 503 })))
      })
    }
    const failure = errorResponse(current)
    if (failure) return failure
    const streaming = isRecord(body) && body.stream === true
    if (current === 'malformed') {
      return new Response(streaming ? 'data: {not json\n\n' : '{this is not json', {
        status: 200,
        headers: { 'content-type': streaming ? 'text/event-stream' : 'application/json' },
      })
    }
    const breakpoints = pieces(body).filter((piece) => piece.breakpoint).length
    if (breakpoints > maxBreakpoints) {
      return new Response(
        errorBody(
          'invalid_request_error',
          `A maximum of ${maxBreakpoints} blocks with cache_control may be provided. Found ${breakpoints}.`,
        ),
        { status: 400, headers: { 'content-type': 'application/json' } },
      )
    }
    const usage = usageFor(body, true)
    usages.push(usage)
    const text = decided?.text ?? replyText
    const outputTokens = estimateTokens(text)
    const id = `msg_fake_${messageCalls}`
    const model = isRecord(body) && typeof body.model === 'string' ? body.model : 'unknown'
    if (!streaming || current === 'json_for_stream') {
      return Response.json({
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { ...usage, output_tokens: outputTokens },
      })
    }
    const events: Array<[string, unknown]> = [
      [
        'message_start',
        {
          type: 'message_start',
          message: {
            id,
            type: 'message',
            role: 'assistant',
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...usage, output_tokens: 1 },
          },
        },
      ],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      ['ping', { type: 'ping' }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      [
        'message_delta',
        {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: outputTokens },
        },
      ],
      ['message_stop', { type: 'message_stop' }],
    ]
    if (current === 'truncated') return sse(events.slice(0, 4))
    return sse(events, current === 'stream_error' ? 4 : -1)
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0, // so `hang` hangs
    async fetch(request) {
      const url = new URL(request.url)
      const raw = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text()
      let body: unknown = raw === '' ? null : raw
      try {
        if (raw !== '') body = JSON.parse(raw)
      } catch {
        // kept as text: a test may want to see what a client sent
      }
      const headers: Record<string, string> = {}
      request.headers.forEach((value, name) => {
        headers[name] = value
      })
      recorded.push({ method: request.method, path: url.pathname, query: url.search, headers, body })
      if (request.method === 'POST' && url.pathname === '/v1/messages') return messages(body)
      if (request.method === 'POST' && url.pathname === '/v1/messages/count_tokens') {
        const usage = usageFor(body, false)
        return Response.json({
          input_tokens: usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens,
        })
      }
      return new Response(errorBody('not_found_error', `fake: no route ${request.method} ${url.pathname}`), {
        status: 404,
        headers: { 'content-type': 'application/json' },
      })
    },
  })

  return {
    url: `http://127.0.0.1:${server.port}`,
    setMode(change) {
      if (change.mode !== undefined) {
        mode = change.mode
        modeCount = change.count ?? -1
      }
      if (change.retryAfter !== undefined) retryAfter = change.retryAfter
      if (change.text !== undefined) replyText = change.text
      if (change.delayMs !== undefined) delayMs = change.delayMs
    },
    requests() {
      return [...recorded]
    },
    stats() {
      return { messages: messageCalls, usages: [...usages] }
    },
    reset() {
      seenPrefixes.clear()
      messageCalls = 0
      recorded = []
      usages = []
    },
    setResponder(next) {
      responder = next
    },
    setHold(next) {
      hold = next
    },
    async stop() {
      for (const release of hung) release()
      hung.clear()
      await server.stop(true)
    },
  } satisfies FakeAnthropic
}
