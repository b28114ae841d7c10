/**
 * The classifier service: takes one run request, asks the model one question
 * per classification, and answers the run reply. Everything outside (the
 * runtimes, the secret store, metrics, the log) comes in as ports, so the
 * same code runs against the real adapters and the in-memory fakes.
 */
import { acpBaseUrlAllowed } from '../../core/acp-base-urls.ts'
import { aggregateVerdict, type ClassificationResult, rowFromAnswer } from '../../core/aggregate.ts'
import { parseAnswer } from '../../core/answer.ts'
import { checkContextBudget } from '../../core/budget.ts'
import { costUsd, tokenCounts } from '../../core/cost.ts'
import { buildPromptFromContext, buildSharedContext, SYSTEM_PROMPT } from '../../core/prompt.ts'
import { RUNTIME_KEY_SECRETS } from '../../core/service-account.ts'
import type { Classification, Overall, Row, RunReply, RunRequest, Runtime, TokenType, Usage } from '../../core/types.ts'
import { decodeRunRequest } from '../../core/wire-decode.ts'
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import type { MetricLabels, Metrics } from '../../ports/metrics.ts'
import type { AskOptions, ClassifyResult, ModelRuntime, ModelSession, SessionSpec } from '../../ports/model-runtime.ts'
import type { RunSubscription, RunTell } from '../../ports/queue.ts'
import { readSecret, type SecretStore } from '../../ports/secret-store.ts'
import type { Place, SessionLimiter, SparePlace } from './session-limiter.ts'

const TOKEN_TYPES: readonly TokenType[] = ['input', 'output', 'cacheRead', 'cacheCreation']

export type ClassifierDeps = {
  runtimes: Record<Runtime, ModelRuntime>
  secrets: SecretStore
  metrics: Metrics
  logger: Logger
  clock: Clock
  limiter: SessionLimiter
  /** Each classification's deadline, counted from its session's start. */
  classificationTimeoutMs: number
  /** The shared context's size budget in bytes. */
  contextBudgetBytes: number
  /** `ACP_BASE_URLS`, normalised (core/acp-base-urls.ts): an ACP run naming another fails before its key is read; null or absent allows any. */
  acpBaseUrls?: readonly string[] | null
  /**
   * How a run's questions are started: `warm-first` (the default, docs/decisions.md)
   * or `all-parallel`, which exists so bench/cache.ts can measure the other side.
   */
  schedule?: Schedule
}

export type Schedule = 'warm-first' | 'all-parallel'

/** How long a drain lets the runs in hand go on before stopping their sessions. */
export const DRAIN_GRACE_MS = 20_000

export type Classifier = {
  /**
   * Answers one run request's JSON text; never rejects, whatever the input.
   * `onProgress` hears the run taken once its request is read, and each
   * question start and end as it happens; a listener that throws is ignored.
   */
  handle(requestText: string, onProgress?: RunTell): Promise<RunReply>
  /** Stops every session in hand (shutdown past its grace): their rows fail, their runs still answer. */
  abortAll(): void
  /**
   * On SIGTERM: `subscription` takes no new run and lets the runs in hand
   * answer; past `graceMs` (default {@link DRAIN_GRACE_MS}) their sessions
   * are stopped as by `abortAll`, and the runs still answer. Resolves once
   * every reply has gone out.
   */
  drain(subscription: RunSubscription, graceMs?: number): Promise<void>
}

function failedReply(id: string, error: string, rows: Row[] = []): RunReply {
  return { id, ok: false, error, rows, overall: 'no-verdict' }
}

/** The request's id when the JSON has one, so even a bad request's reply can be matched. */
function idOf(text: string): string {
  try {
    const value: unknown = JSON.parse(text)
    const id: unknown = typeof value === 'object' && value !== null ? Reflect.get(value, 'id') : undefined
    return typeof id === 'string' ? id.slice(0, 200) : ''
  } catch {
    return ''
  }
}

function usageTotals(rows: readonly Row[]): Usage {
  const total: Usage = { input: 0, output: 0, cache_read: 0, cache_write: 0 }
  for (const row of rows) {
    if (row.usage === undefined) continue
    total.input += row.usage.input
    total.output += row.usage.output
    total.cache_read += row.usage.cache_read
    total.cache_write += row.usage.cache_write
  }
  return total
}

export function createClassifier(deps: ClassifierDeps): Classifier {
  const shutdown = new AbortController()
  let runsHandled = 0

  function recordAcpUsage(request: RunRequest, usage: Usage): void {
    if (request.acp === null) return
    const labels: MetricLabels = { repo: request.repo, pr: request.pr, model: request.acp.model }
    deps.metrics.addCost(costUsd(usage, request.acp.prices), labels)
    const counts = tokenCounts(usage)
    for (const type of TOKEN_TYPES) deps.metrics.addTokens(counts[type], { ...labels, type })
  }

  /** One run in hand: what every one of its questions shares. */
  type RunInHand = {
    request: RunRequest
    runtime: ModelRuntime
    /** What every session of the run is opened with. */
    spec: SessionSpec
    /** Aborts when the service shuts down or the run stops before its questions (over budget). */
    signal: AbortSignal
    tell: RunTell
    /** Every session opened for the run and not ended yet, with its place, so none outlives the run. */
    opened: Map<ModelSession, Place>
    /** Sessions being closed in the background once answered; the run waits for them before it ends. */
    closing: Set<Promise<void>>
  }

  /** A session and the place it holds. */
  type Held = { session: ModelSession; place: Place }

  const SHUTTING_DOWN: ClassificationResult['error'] = {
    kind: 'runtime',
    detail: 'cancelled: the classifier is shutting down',
  }

  function openSession(run: RunInHand, place: Place): ModelSession {
    const session = run.runtime.open(run.spec)
    run.opened.set(session, place)
    return session
  }

  /** A place (waiting for one, first come, first served), then the session on it; null when the run was aborted meanwhile. */
  async function openNow(run: RunInHand): Promise<Held | null> {
    let place: Place
    try {
      place = await deps.limiter.acquire(run.signal)
    } catch {
      return null
    }
    return { session: openSession(run, place), place }
  }

  /**
   * A session started ahead of its turn on a spare place, when one is free
   * and nobody waits; taken back (its session ended) if another session
   * needs the place first.
   */
  function openAhead(run: RunInHand): { session: ModelSession; place: SparePlace } | null {
    let session: ModelSession | null = null
    const place = deps.limiter.trySpare(() => {
      void session?.close()
    })
    if (place === null) return null
    session = openSession(run, place)
    return { session, place }
  }

  /** Closes a session and gives its place back. */
  async function end(run: RunInHand, session: ModelSession): Promise<void> {
    const place = run.opened.get(session)
    run.opened.delete(session)
    await session.close()
    place?.release()
  }

  async function classifyOne(
    run: RunInHand,
    held: Held | null,
    classification: Classification,
    context: string,
    options: AskOptions = {},
  ): Promise<ClassificationResult> {
    const result =
      held === null ? shuttingDown(classification) : await askOne(run, held, classification, context, options)
    run.tell({
      kind: 'row',
      id: run.request.id,
      row: rowFromAnswer(classification, result.answer, result.error, result.usage),
      total: run.request.classifications.length,
    })
    return result
  }

  function shuttingDown(classification: Classification): ClassificationResult {
    return { name: classification.name, answer: null, error: SHUTTING_DOWN }
  }

  async function askOne(
    run: RunInHand,
    held: Held,
    classification: Classification,
    context: string,
    options: AskOptions,
  ): Promise<ClassificationResult> {
    const { request, tell } = run
    const prompt = buildPromptFromContext(context, classification)
    tell({ kind: 'question-started', id: request.id, name: classification.name, total: request.classifications.length })
    let result: ClassifyResult
    try {
      result = await held.session.ask(
        { context: prompt.blocks[0].text, question: prompt.blocks[1].text, deadlineMs: deps.classificationTimeoutMs },
        options,
      )
    } finally {
      // The clean-up (the process group gone, its directories removed) is off the answer's path:
      // the next questions are asked at once, and the run's end waits for it.
      const closing = end(run, held.session)
      run.closing.add(closing)
    }
    if (!result.ok) {
      return {
        name: classification.name,
        answer: null,
        error: { kind: result.error.kind, detail: result.error.detail },
      }
    }
    const usage = result.value.usage ?? undefined
    // Tokens were spent whether or not the answer parses; a session stopped
    // at its deadline reports none and adds nothing.
    if (request.runtime === 'acp' && usage !== undefined) recordAcpUsage(request, usage)
    const answer = parseAnswer(result.value.text)
    if (!answer.ok) {
      return {
        name: classification.name,
        answer: null,
        error: { kind: 'malformed-answer', detail: answer.error },
        ...(usage ? { usage } : {}),
      }
    }
    return { name: classification.name, answer: answer.value, error: null, ...(usage ? { usage } : {}) }
  }

  /**
   * Warm first (docs/decisions.md): the first question runs alone so the
   * provider writes the shared prefix to its cache; the rest then run in
   * parallel and read it from there. Their sessions start while the first
   * is asked (once its question is under way, so their start-up does not
   * slow its own), on spare places, and get their question the moment the
   * first answer is in. `all-parallel` opens and asks every question at once.
   * `first` is the first question's session, opened before the prompt was built.
   */
  async function classifyAll(
    run: RunInHand,
    first: Promise<Held | null>,
    context: string,
  ): Promise<ClassificationResult[]> {
    const [head, ...rest] = run.request.classifications
    if (head === undefined) return []
    if (deps.schedule === 'all-parallel') {
      const others = rest.map(() => openNow(run))
      return Promise.all(
        [first, ...others].map(async (held, at) => {
          const classification = run.request.classifications[at] ?? head
          return classifyOne(run, await held, classification, context)
        }),
      )
    }
    const ahead: Array<{ session: ModelSession; place: SparePlace } | null> = rest.map(() => null)
    let firstEnded = false
    const startAhead = () => {
      if (firstEnded) return
      for (let at = 0; at < rest.length; at += 1) ahead[at] = openAhead(run)
    }
    const warm = await classifyOne(run, await first, head, context, { onUnderway: startAhead })
    firstEnded = true
    const others = await Promise.all(
      rest.map(async (classification, at) => {
        const early = ahead[at] ?? null
        if (early?.place.keep() === true) return classifyOne(run, early, classification, context)
        // Taken back for another session (its process already ended), or never started: a place now.
        if (early !== null) await end(run, early.session)
        return classifyOne(run, await openNow(run), classification, context)
      }),
    )
    return [warm, ...others]
  }

  async function readKey(runtime: Runtime): Promise<{ key: string } | { error: string }> {
    const secret = RUNTIME_KEY_SECRETS[runtime]
    const read = await readSecret(deps.secrets, secret)
    if (read.ok) return { key: read.value }
    if (read.error.kind === 'missing')
      return { error: `no key for the ${runtime} runtime: secret/${secret.path} has no ${secret.field}` }
    return { error: `the ${runtime} runtime's key could not be read from the secret store: ${read.error.reason}` }
  }

  async function run(request: RunRequest, tell: RunInHand['tell']): Promise<RunReply> {
    // Where the ACP key would go is checked before the key is even read.
    if (request.runtime === 'acp' && !acpBaseUrlAllowed(deps.acpBaseUrls ?? null, request.acp?.base_url ?? '')) {
      return failedReply(
        request.id,
        `the run's acp.base_url ${JSON.stringify(request.acp?.base_url ?? null)} is not in the classifier's ACP_BASE_URLS, so no provider was called`,
      )
    }
    // The key first: every session's process needs it to start (it is in
    // the process's environment), and the lookup is the only wait before it.
    const key = await readKey(request.runtime)
    if ('error' in key) return failedReply(request.id, key.error)

    // The runtime's handle on this run: unique per request handled, so two
    // requests that reuse an id (a retry, a buggy sender) never share a process.
    runsHandled += 1
    const runKey = `${request.id}#${runsHandled}`
    const stopRun = new AbortController()
    const signal = AbortSignal.any([shutdown.signal, stopRun.signal])
    const inHand: RunInHand = {
      request,
      runtime: deps.runtimes[request.runtime],
      spec: {
        runId: runKey,
        system: SYSTEM_PROMPT,
        model: request.runtime === 'acp' && request.acp !== null ? request.acp.model : request.model,
        effort: request.effort,
        acp: request.acp,
        apiKey: key.key,
        labels: { repo: request.repo, pr: request.pr },
        signal,
      },
      signal,
      tell,
      opened: new Map(),
      closing: new Set(),
    }
    let results: ClassificationResult[]
    try {
      // The first session starts now; the prompt is built and checked while its process starts.
      const first = openNow(inHand)
      const context = buildSharedContext(request)
      const budget = checkContextBudget(context, deps.contextBudgetBytes)
      if (!budget.ok) {
        stopRun.abort(new Error('the run stops before its questions'))
        const held = await first
        if (held !== null) await end(inHand, held.session)
        return failedReply(request.id, budget.message)
      }
      results = await classifyAll(inHand, first, context)
    } finally {
      // Every session ended, answered, failed, aborted or never asked: then
      // the ACP runtime stops the run's process.
      await Promise.all([...inHand.opened.keys()].map((session) => end(inHand, session)))
      await Promise.all(inHand.closing)
      await inHand.runtime.endRun(runKey)
    }
    const aggregate = aggregateVerdict(request.classifications, results)
    const answered = aggregate.rows.filter((row) => row.verdict !== null).length
    if (answered === 0) {
      const kinds = [...new Set(aggregate.rows.map((row) => row.error?.kind ?? 'runtime'))].join(', ')
      return failedReply(request.id, `no classification got an answer (${kinds})`, aggregate.rows)
    }
    const overall: Overall = aggregate.overall
    return { id: request.id, ok: true, rows: aggregate.rows, overall }
  }

  function logReply(request: RunRequest | null, reply: RunReply, startedMs: number): void {
    const fields = {
      id: reply.id,
      trigger: request?.trigger,
      repo: request?.repo,
      pr: request?.pr,
      runtime: request?.runtime,
      model: request === null ? undefined : request.runtime === 'acp' ? request.acp?.model : request.model,
      ok: reply.ok,
      error: reply.error,
      overall: reply.overall,
      duration_ms: deps.clock.nowMs() - startedMs,
      usage: usageTotals(reply.rows),
      rows: reply.rows.map((row) => ({
        name: row.name,
        verdict: row.verdict,
        certainty: row.certainty,
        counted: row.counted,
        fails: row.fails,
        error: row.error,
        reason: row.reason,
      })),
    }
    if (reply.ok) deps.logger.info('review classifier run answered', fields)
    else deps.logger.warn('review classifier run failed', fields)
  }

  async function handle(requestText: string, onProgress?: RunTell): Promise<RunReply> {
    const startedMs = deps.clock.nowMs()
    const tell: RunTell = (event) => {
      try {
        onProgress?.(event)
      } catch {
        // A listener's failure is its own; the run goes on.
      }
    }
    const decoded = decodeRunRequest(requestText)
    if (!decoded.ok) {
      const reply = failedReply(idOf(requestText), `bad run request: ${decoded.error}`)
      logReply(null, reply, startedMs)
      return reply
    }
    tell({ kind: 'taken', id: decoded.value.id, total: decoded.value.classifications.length })
    let reply: RunReply
    try {
      reply = await run(decoded.value, tell)
    } catch (error) {
      // Nothing above should throw; if it does, the run still gets an answer.
      deps.logger.error('review classifier run crashed', { id: decoded.value.id, error })
      reply = failedReply(decoded.value.id, 'the classifier failed unexpectedly; see its log')
    }
    logReply(decoded.value, reply, startedMs)
    return reply
  }

  function abortAll(): void {
    shutdown.abort(new Error('shutting down'))
  }

  return {
    handle,
    abortAll,
    async drain(subscription, graceMs = DRAIN_GRACE_MS) {
      const grace = setTimeout(abortAll, graceMs)
      try {
        await subscription.drain()
      } finally {
        clearTimeout(grace)
      }
    },
  } satisfies Classifier
}
