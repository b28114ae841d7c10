/**
 * A fake Anthropic Messages API for the cache benchmark: the request
 * flattening and token estimate of test/support/fake-anthropic.ts, plus the
 * two things that decide the cache strategy and that the test fake leaves
 * out on purpose (tests must not depend on timing):
 *
 * - A cache entry is readable only once the response that wrote it is
 *   committed. Requests that start in parallel before then all miss and all
 *   pay cache creation, as on the real API.
 * - Latency: a response takes a fixed base, plus prefill time per uncached
 *   and per cached prompt token, plus time per output token.
 *
 * Only the success path: the benchmark measures caching, not failures.
 */
import { createHash } from 'node:crypto'
import { asArray, estimateTokens, hasMarker, isRecord, withoutMarker } from '../../test/support/fake-anthropic.ts'

export type LatencyModel = {
  /** Fixed per request: network, queueing, routing. */
  baseMs: number
  /** Prefill per 1,000 prompt tokens the cache did not hold (input and cache creation). */
  uncachedMsPer1kTokens: number
  /** Prefill per 1,000 prompt tokens read from the cache. */
  cachedMsPer1kTokens: number
  /** Decode per output token. */
  outputMsPerToken: number
}

/**
 * When a request's cache entries become readable by later requests. The
 * Anthropic docs say "after the first response begins"; `response-end` is
 * the conservative reading (and what the benchmark's brief asks for). For
 * warm first it makes no difference: the rest start after the whole answer.
 */
export type CacheCommit = 'first-token' | 'response-end'

export type CachingFakeOptions = {
  /** The answer text of every call. */
  text: string
  latency: LatencyModel
  commit: CacheCommit
  /** A breakpoint whose prefix is shorter than this is not cached (the API's minimum cacheable length). */
  minCacheableTokens: number
}

export type CachingUsage = {
  input_tokens: number
  cache_creation_input_tokens: number
  cache_read_input_tokens: number
  output_tokens: number
}

/** One answered call, with the shared block's part of the usage counted apart. */
export type CallRecord = {
  usage: CachingUsage
  /** Tokens up to and including the first user-message breakpoint: the PR block and what precedes it. */
  sharedTokens: number
  /** How many of those were read from the cache. */
  sharedRead: number
  /** How many of those were written to it (the rest, below the minimum, were plain input). */
  sharedWritten: number
  startedMs: number
  endedMs: number
}

export type CachingFakeAnthropic = {
  url: string
  /** The calls answered since the start or the last `reset`, in order of arrival. */
  calls(): CallRecord[]
  /** Empties the cache and forgets the calls: the next run starts cold. */
  reset(): void
  stop(): Promise<void>
}

type Piece = { text: string; breakpoint: boolean; inMessages: boolean }

/** The request in the API's cache order (tools, system, messages); a breakpoint piece ends a cacheable prefix. */
function pieces(body: unknown): Piece[] {
  if (!isRecord(body)) return []
  const out: Piece[] = []
  for (const tool of asArray(body.tools))
    out.push({ text: JSON.stringify(tool), breakpoint: hasMarker(tool), inMessages: false })
  if (typeof body.system === 'string') out.push({ text: body.system, breakpoint: false, inMessages: false })
  else
    for (const block of asArray(body.system))
      out.push({ text: withoutMarker(block), breakpoint: hasMarker(block), inMessages: false })
  for (const message of asArray(body.messages)) {
    if (!isRecord(message)) continue
    const role = String(message.role)
    if (typeof message.content === 'string')
      out.push({ text: role + message.content, breakpoint: false, inMessages: true })
    else
      for (const block of asArray(message.content))
        out.push({ text: role + withoutMarker(block), breakpoint: hasMarker(block), inMessages: true })
  }
  return out
}

type Plan = {
  usage: Omit<CachingUsage, 'output_tokens'>
  fresh: string[]
  sharedTokens: number
  sharedRead: number
  sharedWritten: number
}

export function startCachingFakeAnthropic(options: CachingFakeOptions): CachingFakeAnthropic {
  const cache = new Set<string>()
  let calls: CallRecord[] = []
  // A reset while calls are in flight must not let their late commits warm the next run.
  let generation = 0
  const origin = performance.now()

  /** Reads the longest cached prefix; everything after it up to the last cacheable breakpoint is creation. */
  function plan(body: unknown): Plan {
    const hash = createHash('sha256')
    let tokens = 0
    let lastBreakpoint = 0
    let readUpTo = 0
    let sharedTokens = -1
    const fresh: string[] = []
    for (const piece of pieces(body)) {
      hash.update(piece.text)
      tokens += estimateTokens(piece.text)
      if (!piece.breakpoint) continue
      if (piece.inMessages && sharedTokens === -1) sharedTokens = tokens
      if (tokens < options.minCacheableTokens) continue
      const prefix = hash.copy().digest('hex')
      lastBreakpoint = tokens
      if (cache.has(prefix)) readUpTo = tokens
      else fresh.push(prefix)
    }
    if (sharedTokens === -1) sharedTokens = 0
    const sharedRead = Math.min(readUpTo, sharedTokens)
    const sharedWritten = Math.min(lastBreakpoint, sharedTokens) - sharedRead
    return {
      usage: {
        input_tokens: tokens - lastBreakpoint,
        cache_creation_input_tokens: lastBreakpoint - readUpTo,
        cache_read_input_tokens: readUpTo,
      },
      fresh,
      sharedTokens,
      sharedRead: Math.max(0, sharedRead),
      sharedWritten: Math.max(0, sharedWritten),
    }
  }

  function prefillMs(usage: Plan['usage']): number {
    const { latency } = options
    const uncached = usage.input_tokens + usage.cache_creation_input_tokens
    return (
      latency.baseMs +
      (uncached / 1000) * latency.uncachedMsPer1kTokens +
      (usage.cache_read_input_tokens / 1000) * latency.cachedMsPer1kTokens
    )
  }

  function respond(body: unknown): Response {
    const startedMs = performance.now() - origin
    const callGeneration = generation
    const planned = plan(body)
    const outputTokens = estimateTokens(options.text)
    const usage: CachingUsage = { ...planned.usage, output_tokens: outputTokens }
    const model = isRecord(body) && typeof body.model === 'string' ? body.model : 'unknown'
    const id = `msg_bench_${calls.length + 1}`
    const commit = () => {
      if (callGeneration !== generation) return
      for (const prefix of planned.fresh) cache.add(prefix)
    }
    const encoder = new TextEncoder()
    const event = (name: string, data: unknown) => encoder.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)
    const stream = new ReadableStream({
      async start(controller) {
        await Bun.sleep(prefillMs(planned.usage))
        if (options.commit === 'first-token') commit()
        controller.enqueue(
          event('message_start', {
            type: 'message_start',
            message: {
              id,
              type: 'message',
              role: 'assistant',
              model,
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { ...planned.usage, output_tokens: 1 },
            },
          }),
        )
        controller.enqueue(
          event('content_block_start', {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'text', text: '' },
          }),
        )
        await Bun.sleep(outputTokens * options.latency.outputMsPerToken)
        controller.enqueue(
          event('content_block_delta', {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'text_delta', text: options.text },
          }),
        )
        controller.enqueue(event('content_block_stop', { type: 'content_block_stop', index: 0 }))
        controller.enqueue(
          event('message_delta', {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: outputTokens },
          }),
        )
        controller.enqueue(event('message_stop', { type: 'message_stop' }))
        if (options.commit === 'response-end') commit()
        if (callGeneration === generation) {
          calls.push({
            usage,
            sharedTokens: planned.sharedTokens,
            sharedRead: planned.sharedRead,
            sharedWritten: planned.sharedWritten,
            startedMs,
            endedMs: performance.now() - origin,
          })
        }
        controller.close()
      },
    })
    return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } })
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 120,
    async fetch(request) {
      const url = new URL(request.url)
      if (request.method !== 'POST' || url.pathname !== '/v1/messages') {
        return Response.json(
          {
            type: 'error',
            error: { type: 'not_found_error', message: `bench fake: no route ${request.method} ${url.pathname}` },
          },
          { status: 404 },
        )
      }
      let body: unknown
      try {
        body = JSON.parse(await request.text())
      } catch {
        return Response.json(
          { type: 'error', error: { type: 'invalid_request_error', message: 'body is not JSON' } },
          { status: 400 },
        )
      }
      if (!isRecord(body) || body.stream !== true) {
        // The CLI always streams; a non-streaming call would mean it fell back after a broken stream.
        return Response.json(
          { type: 'error', error: { type: 'invalid_request_error', message: 'bench fake: streaming only' } },
          { status: 400 },
        )
      }
      return respond(body)
    },
  })

  return {
    url: `http://127.0.0.1:${server.port}`,
    calls: () => [...calls],
    reset() {
      generation += 1
      cache.clear()
      calls = []
    },
    stop: () => server.stop(true),
  } satisfies CachingFakeAnthropic
}
