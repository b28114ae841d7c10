/**
 * The classifier service: takes one run request, asks the model one question
 * per classification, and answers the run reply. Everything outside (the
 * runtimes, the secret store, metrics, the log) comes in as ports, so the
 * same code runs against the real adapters and the in-memory fakes.
 *
 * Here: the run's checks, its key and its budget, and the drain. Beside it:
 * the order its questions are asked in (schedule.ts), one question
 * (question.ts) and the sessions they hold (run-in-hand.ts), the key
 * (runtime-key.ts), the ACP spend (acp-usage.ts) and the run's log line
 * (run-log.ts).
 */

import { describeError, isAppError } from '../../core/base/errors.ts'
import { REDACTION_DEADLINE_MS } from '../../core/redaction/redact.ts'
import { redactionSummary } from '../../core/redaction/redaction-report.ts'
import { aggregateVerdict, type ClassificationResult } from '../../core/run/aggregate.ts'
import { budgetCheckOf, checkContextBudget } from '../../core/run/budget.ts'
import { assembleSharedContext, prepareContextParts, SYSTEM_PROMPT } from '../../core/run/prompt.ts'
import { scopesAsSent } from '../../core/run/scope-question.ts'
import { type ScopedRun, scopeRun } from '../../core/run/scope-run.ts'
import { unaskedReply } from '../../core/run/unasked-run.ts'
import { decodeRunRequest } from '../../core/run/wire-decode.ts'
import { acpBaseUrlAllowed } from '../../core/settings/acp-base-urls.ts'
import type { Overall, RedactionSummary, Row, RunReply, RunRequest, Runtime } from '../../core/wire/types.ts'
import type { Clock } from '../../ports/clock.ts'
import type { KvBuckets } from '../../ports/kv.ts'
import type { Logger } from '../../ports/logger.ts'
import type { Metrics } from '../../ports/metrics.ts'
import type { ModelRuntime, SessionSpec } from '../../ports/model-runtime.ts'
import type { RunSubscription, RunTell } from '../../ports/queue.ts'
import type { Redactor } from '../../ports/redactor.ts'
import type { SecretStore } from '../../ports/secret-store.ts'
import { createSessionCostRecorder } from '../common/settings/spend-writes.ts'
import { createQuestionAsker } from './question.ts'
import { endSession, openNow, type RunInHand, type RunSpend } from './run-in-hand.ts'
import { logReply } from './run-log.ts'
import { readRuntimeKey } from './runtime-key.ts'
import { classifyAll, type Schedule, type ScheduleDeps } from './schedule.ts'
import type { SessionLimiter } from './session-limiter.ts'

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
  /**
   * The queue's KV buckets: each session's cost is written to the daily
   * budget's ledger (`review-classifier-spend`) as it ends, whether or not
   * anyone still waits for the run. None (the local check): nothing is written.
   */
  buckets?: KvBuckets
  /**
   * Where a run's shared context is redacted: a worker thread
   * (adapters/worker/redactor.ts) in the services, so a long redaction
   * never holds the event loop; the tests may redact in place.
   */
  redactor: Redactor
  /** How long a run's redaction may take before the run ends as no verdict; default {@link REDACTION_DEADLINE_MS}. */
  redactionDeadlineMs?: number
  /** `ACP_BASE_URLS`, normalised (core/settings/acp-base-urls.ts): an ACP run naming another fails before its key is read; null or absent allows any. */
  acpBaseUrls?: readonly string[] | null
  /**
   * How a run's questions are started: `warm-first` (the default, docs/decisions.md)
   * or `all-parallel`, which exists so bench/cache.ts can measure the other side.
   */
  schedule?: Schedule
}

export type { Schedule }

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
   * The requester stopped waiting for the run with this id (a cancel on the
   * queue): its sessions end at once, their processes with them, and it
   * answers as cancelled. An id not in hand is ignored.
   */
  cancel(id: string): void
  /**
   * On SIGTERM: `subscription` takes no new run and lets the runs in hand
   * answer; past `graceMs` (default {@link DRAIN_GRACE_MS}) their sessions
   * are stopped as by `abortAll`, and the runs still answer. Resolves once
   * every reply has gone out.
   */
  drain(subscription: RunSubscription, graceMs?: number): Promise<void>
}

/** Why a cancelled run's sessions are stopped. */
const CANCELLED_BECAUSE = 'the controller stopped waiting for this run'
/** A cancelled run's reply error. */
export const CANCELLED_REASON = `cancelled: ${CANCELLED_BECAUSE}`
/** Lower-case sentence for after `**No verdict:** `: why the run's redaction did not give a context. */
function redactionFailedMessage(error: unknown, deadlineMs: number, shuttingDown: boolean): string {
  if (shuttingDown) return 'the classifier stopped while it redacted the PR, so nothing was sent to the model'
  if (isAppError(error, 'timeout')) {
    return `the PR's redaction took longer than ${deadlineMs / 1000} s, so it was stopped and nothing was sent to the model`
  }
  return "the PR's redaction failed, so nothing was sent to the model; see the classifier's log"
}

function failedReply(id: string, error: string, rows: Row[] = [], redaction?: RedactionSummary): RunReply {
  return { id, ok: false, error, rows, overall: 'no-verdict', ...(redaction === undefined ? {} : { redaction }) }
}

/** What every session of the run is opened with. */
function sessionSpecOf(request: RunRequest, runKey: string, apiKey: string, signal: AbortSignal): SessionSpec {
  return {
    runId: runKey,
    system: SYSTEM_PROMPT,
    model: request.runtime === 'acp' && request.acp !== null ? request.acp.model : request.model,
    effort: request.effort,
    maxOutputTokens: request.max_output_tokens,
    acp: request.acp,
    apiKey,
    labels: { repo: request.repo, pr: request.pr },
    signal,
  }
}

/** The run's reply from its classifications' results: a failure when none got an answer. */
/** The run's reply from its results: rows for every rule sent, those out of scope not asked. */
function replyOf(
  request: RunRequest,
  results: ClassificationResult[],
  redaction: RedactionSummary,
  outOfScope: ReadonlySet<string>,
): RunReply {
  const aggregate = aggregateVerdict(request.classifications, results, outOfScope)
  const answered = aggregate.rows.filter((row) => row.in_scope !== false && row.verdict !== null).length
  if (answered === 0) {
    const kinds = [...new Set(aggregate.rows.map((row) => row.error?.kind ?? 'runtime'))].join(', ')
    return failedReply(request.id, `no classification got an answer (${kinds})`, aggregate.rows, redaction)
  }
  const overall: Overall = aggregate.overall
  return { id: request.id, ok: true, rows: aggregate.rows, overall, redaction }
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

export function createClassifier(deps: ClassifierDeps): Classifier {
  const shutdown = new AbortController()
  let runsHandled = 0
  /** The runs in hand by request id, each with its cancel (two requests may share an id). */
  const inHandById = new Map<string, Set<AbortController>>()
  const schedule: ScheduleDeps = {
    schedule: deps.schedule ?? 'warm-first',
    limiter: deps.limiter,
    ask: createQuestionAsker({
      ...deps,
      ...(deps.buckets === undefined
        ? {}
        : { recordCost: createSessionCostRecorder({ buckets: deps.buckets, clock: deps.clock, logger: deps.logger }) }),
    }),
  }

  async function run(request: RunRequest, tell: RunTell, spend: RunSpend, cancelled: AbortSignal): Promise<RunReply> {
    // Nothing in scope: answered here, before any key, redaction or model process (core/run/unasked-run.ts).
    const unasked = unaskedReply(request)
    if (unasked !== null) return unasked
    const scoped = scopeRun(request)
    // Where the ACP key would go is checked before the key is even read.
    if (request.runtime === 'acp' && !acpBaseUrlAllowed(deps.acpBaseUrls ?? null, request.acp?.base_url ?? '')) {
      return failedReply(
        request.id,
        `the run's acp.base_url ${JSON.stringify(request.acp?.base_url ?? null)} is not in the classifier's ACP_BASE_URLS, so no provider was called`,
      )
    }
    // The key first: every session's process needs it to start (it is in
    // the process's environment), and the lookup is the only wait before it.
    const key = await readRuntimeKey(deps.secrets, request.runtime)
    if ('error' in key) return failedReply(request.id, key.error)

    // The budget first, on the context as it would be unredacted: a PR over
    // it is refused without paying for its redaction (issue 27).
    const parts = prepareContextParts(request)
    const unredacted = budgetCheckOf(parts.bytes, deps.contextBudgetBytes)
    if (!unredacted.ok) return failedReply(request.id, unredacted.message)
    // Redacted once for the run, so every question's prompt has the same
    // placeholders (and bytes), on the redactor's thread, under a deadline:
    // past it, the run ends before any model process starts, nothing sent.
    const deadlineMs = deps.redactionDeadlineMs ?? REDACTION_DEADLINE_MS
    let shared: ReturnType<typeof assembleSharedContext>
    let scopes: ScopedRun['scopes']
    try {
      const deadline = AbortSignal.any([shutdown.signal, cancelled, AbortSignal.timeout(deadlineMs)])
      const redacted = await deps.redactor.redact(parts.redaction, deadline)
      shared = assembleSharedContext(request, redacted)
      // A question names its files as the redaction left them: a name that held a secret is withheld.
      scopes = scopesAsSent(scoped.scopes, redacted.diff.join(''))
    } catch (error) {
      deps.logger.warn('review classifier run not redacted; nothing was sent', {
        id: request.id,
        error: describeError(error),
      })
      return failedReply(request.id, redactionFailedMessage(error, deadlineMs, shutdown.signal.aborted))
    }
    const { context } = shared
    const redaction: RedactionSummary = redactionSummary(shared)
    // Placeholders can be longer than what they replace, so the context is checked again as sent.
    const budget = checkContextBudget(context, deps.contextBudgetBytes)
    if (!budget.ok) return failedReply(request.id, budget.message, [], redaction)

    // The runtime's handle on this run: unique per request handled, so two
    // requests that reuse an id (a retry, a buggy sender) never share a process.
    runsHandled += 1
    const runKey = `${request.id}#${runsHandled}`
    const stopRun = new AbortController()
    const signal = AbortSignal.any([shutdown.signal, stopRun.signal, cancelled])
    const inHand: RunInHand = {
      request: scoped.asked,
      scopes,
      runtime: deps.runtimes[request.runtime],
      spec: sessionSpecOf(request, runKey, key.key, signal),
      signal,
      tell,
      opened: new Map(),
      closing: new Set(),
      spend,
    }
    let results: ClassificationResult[]
    try {
      results = await classifyAll(schedule, inHand, openNow(deps.limiter, inHand), context)
    } finally {
      // Every session ended, answered, failed, aborted or never asked: then
      // the ACP runtime stops the run's process.
      await Promise.all([...inHand.opened.keys()].map((session) => endSession(inHand, session)))
      await Promise.all(inHand.closing)
      await inHand.runtime.endRun(runKey)
    }
    return replyOf(request, results, redaction, scoped.outOfScope)
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
      logReply(deps.logger, null, reply, deps.clock.nowMs() - startedMs)
      return reply
    }
    tell({ kind: 'taken', id: decoded.value.id, total: decoded.value.classifications.length })
    let reply: RunReply
    // Filled in by each question as it ends, so a failed run's reply still carries what its answers cost.
    const spend: RunSpend = { usd: 0, recordedUsd: 0, writes: [] }
    // Held from here, before anything is awaited, so a cancel that follows the request finds it.
    const { id } = decoded.value
    const cancel = new AbortController()
    const sameId = inHandById.get(id) ?? new Set<AbortController>()
    sameId.add(cancel)
    inHandById.set(id, sameId)
    try {
      reply = await run(decoded.value, tell, spend, cancel.signal)
    } catch (error) {
      // Nothing above should throw; if it does, the run still gets an answer.
      deps.logger.error('review classifier run crashed', { id, error })
      reply = failedReply(id, 'the classifier failed unexpectedly; see its log')
    } finally {
      sameId.delete(cancel)
      if (sameId.size === 0) inHandById.delete(id)
    }
    // Nobody waits for it any more: it says why it stopped, with the rows it got.
    if (cancel.signal.aborted) reply = failedReply(id, CANCELLED_REASON, reply.rows, reply.redaction)
    // The ledger has every session's cost before the reply settles the run's
    // reservation, a cancelled run's too: the provider billed what it asked.
    await Promise.all(spend.writes)
    reply = {
      ...reply,
      cost_usd: spend.usd,
      ...(deps.buckets === undefined ? {} : { cost_recorded_usd: spend.recordedUsd }),
    }
    logReply(deps.logger, decoded.value, reply, deps.clock.nowMs() - startedMs)
    return reply
  }

  function abortAll(): void {
    shutdown.abort(new Error('the classifier is shutting down'))
  }

  function cancel(id: string): void {
    const runs = inHandById.get(id)
    if (runs === undefined) return
    deps.logger.info('review classifier run cancelled', { id })
    for (const controller of runs) controller.abort(new Error(CANCELLED_BECAUSE))
  }

  return {
    handle,
    abortAll,
    cancel,
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
