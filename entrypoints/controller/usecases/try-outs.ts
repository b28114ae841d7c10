/**
 * Try-outs (docs/behaviour.md, "Try-out"): one run of typed classifications against a PR,
 * started by the POST, run in the background and read back by id. Nothing
 * reaches the forge but the reads: no review, no comment, no commit.
 *
 * Results live in this process's memory only, for an hour after they finish
 * (a controller restart drops them, as it drops a run in progress). Expiry is
 * checked against the Clock port whenever the results are touched, so there
 * is no timer to keep the process alive or to stop. At most
 * {@link TRY_OUTS_KEPT_MAX} results are held: a new try-out past that evicts
 * the oldest finished one, or the oldest running one when none has finished
 * (that run still ends and goes into the run store, but its GET answers 404).
 *
 * Try-outs take no review place: the concurrency limit is for requested
 * reviews, and the spec leaves try-outs out of it.
 */
import type { Aggregate } from '../../../core/aggregate.ts'
import type { RunRecord, TryOutOutcome } from '../../../core/run-record.ts'
import { readRunReply } from '../../../core/run-reply.ts'
import { settingsForRunRequest } from '../../../core/settings.ts'
import type {
  Classification,
  Overall,
  RecordedRow,
  RepoRef,
  Row,
  RunRequest,
  Settings,
  TryOutView,
} from '../../../core/types.ts'
import type { Clock } from '../../../ports/clock.ts'
import type { ForgeReader } from '../../../ports/forge.ts'
import type { Ids } from '../../../ports/ids.ts'
import type { Logger } from '../../../ports/logger.ts'
import type { RunQueue } from '../../../ports/queue.ts'
import { readPullAtOneHead } from './pull-read.ts'
import { type RunExchangeOptions, sendRunRequest } from './run-exchange.ts'
import type { RunStore } from './stores.ts'

/** How long a finished try-out's result stays readable. */
export const TRY_OUT_KEEP_MS = 60 * 60_000
/** The most results held in memory at once, running ones included. */
export const TRY_OUTS_KEPT_MAX = 1_000

/** The forge reads a try-out makes, all with the controller's own token. */
export type TryOutForge = Pick<ForgeReader, 'getPullRequest' | 'listPullCommits' | 'getPullDiff'>

export type TryOutInput = {
  forge: TryOutForge
  repo: RepoRef
  pr: number
  /** The head the POST read; the run reads the PR again and keeps the head it read. */
  headSha: string
  classifications: Classification[]
  /** As read at the POST (spec: a try-out reads them when it's posted). */
  settings: Settings
  /** The swarm UI user, from `Remote-User`. */
  requester: string
}

export type TryOutsDeps = {
  queue: RunQueue
  runs: Pick<RunStore, 'record'>
  clock: Clock
  ids: Ids
  logger: Logger
  /** `RUN_TIMEOUT_S` in milliseconds, and what the reply's wait adds to it (run-exchange.ts). */
  exchange: Pick<RunExchangeOptions, 'runTimeoutMs' | 'replyMarginMs'>
  /** Defaults to {@link TRY_OUT_KEEP_MS}. */
  keepMs?: number
  /** Defaults to {@link TRY_OUTS_KEPT_MAX}. */
  maxKept?: number
}

export type TryOuts = {
  /** Starts the run in the background and answers its id at once. */
  start(input: TryOutInput): string
  /** The result by id, or null for an unknown, evicted or expired one. */
  get(id: string): TryOutView | null
  /** Resolves once no try-out is running or being recorded (tests, shutdown). */
  idle(): Promise<void>
  /** How many results are held (expired ones pruned first). */
  size(): number
}

type Entry = { view: TryOutView; finishedMs: number | null }

/** How a run ended, before it's shown and recorded. */
type Ending = {
  outcome: TryOutOutcome
  detail: string | null
  /** Present when the classifier answered. */
  table: { rows: Row[]; overall: Overall } | null
}

function failed(detail: string, table: Ending['table'] = null): Ending {
  return { outcome: 'failed', detail, table }
}

/** A row as a result shows it: never a token count (docs/decisions.md, run reply). */
function withoutUsage(row: Row): RecordedRow {
  const { usage: _usage, ...shown } = row
  return shown
}

/** Whether the reply answered exactly the classifications sent, each once. */
function answersEachSentOnce(sent: readonly Classification[], answeredNames: readonly string[]): boolean {
  if (answeredNames.length !== sent.length) return false
  const names = new Set(answeredNames)
  return names.size === sent.length && sent.every((classification) => names.has(classification.name))
}

/**
 * A reply the classifier sent with `ok: true`. A row it couldn't answer
 * (timeout, runtime error, malformed answer) is an answer about the prompt,
 * which is what a try-out is for: the try-out is `done` with `no-verdict`
 * and the row says why. A reply whose rows aren't the classifications sent
 * is the classifier's fault, not the prompt's: `failed`, rows still shown.
 */
function endingOfAnswer(sent: readonly Classification[], checked: Aggregate, answeredNames: readonly string[]): Ending {
  const table = { rows: checked.rows, overall: checked.overall }
  if (!answersEachSentOnce(sent, answeredNames)) {
    return failed(checked.reason ?? "the classifier's reply doesn't answer the classifications sent", table)
  }
  return { outcome: 'done', detail: null, table }
}

export function createTryOuts(deps: TryOutsDeps): TryOuts {
  const keepMs = deps.keepMs ?? TRY_OUT_KEEP_MS
  const maxKept = Math.max(1, deps.maxKept ?? TRY_OUTS_KEPT_MAX)
  // Insertion order is POST order, which eviction relies on.
  const entries = new Map<string, Entry>()
  const inFlight = new Set<Promise<void>>()

  function prune(): void {
    const now = deps.clock.nowMs()
    for (const [id, entry] of entries) {
      if (entry.finishedMs !== null && now >= entry.finishedMs + keepMs) entries.delete(id)
    }
  }

  function makeRoom(): void {
    while (entries.size >= maxKept) {
      const held = [...entries]
      const victim = held.find(([, entry]) => entry.finishedMs !== null) ?? held[0]
      if (victim === undefined) return
      const [id, entry] = victim
      entries.delete(id)
      if (entry.finishedMs === null) {
        deps.logger.warn('review classifier try-out evicted while running', { id, kept_max: maxKept })
      }
    }
  }

  async function run(id: string, input: TryOutInput, progress: { headSha: string | null }): Promise<Ending> {
    const read = await readPullAtOneHead(input.forge, input.repo, input.pr, progress)
    if (!read.ok) return failed(read.error)
    const request: RunRequest = {
      id,
      trigger: 'try-out',
      repo: `${input.repo.owner}/${input.repo.name}`,
      pr: input.pr,
      title: read.value.pull.title,
      commits: read.value.commits,
      diff: read.value.diff,
      classifications: input.classifications,
      ...settingsForRunRequest(input.settings),
    }
    const reply = await sendRunRequest(deps.queue, request, deps.exchange)
    if (!reply.ok) return failed(reply.error)
    const reading = readRunReply(id, input.classifications, reply.value)
    switch (reading.kind) {
      case 'unreadable':
        return failed(reading.reason)
      case 'failed':
        // The classifier answered, if only to say the run failed: its rows, when it sent any, are shown.
        return failed(reading.reason, { rows: reading.rows ?? [], overall: 'no-verdict' })
      case 'answered':
        return endingOfAnswer(input.classifications, reading.checked, reading.answeredNames)
    }
  }

  async function runAndRecord(entry: Entry, input: TryOutInput, startedMs: number): Promise<void> {
    const { id } = entry.view
    const progress = { headSha: entry.view.head_sha }
    let ending: Ending
    try {
      ending = await run(id, input, progress)
    } catch (error) {
      // Every outside failure comes back as a value; this is a bug, and the page must not wait forever.
      deps.logger.error('review classifier try-out failed unexpectedly', {
        id,
        kind: error instanceof Error ? error.name : typeof error,
      })
      ending = failed('the try-out failed on an internal error')
    }
    const rows = ending.table?.rows.map(withoutUsage) ?? null
    const finishedMs = deps.clock.nowMs()
    // The result shows before the store write, which may wait on the queue's retries.
    entry.view = {
      ...entry.view,
      status: ending.outcome,
      head_sha: progress.headSha,
      rows,
      overall: ending.table?.overall ?? null,
      detail: ending.detail,
    }
    entry.finishedMs = finishedMs
    const record: RunRecord = {
      id,
      trigger: 'try-out',
      repo: entry.view.repo,
      pr: entry.view.pr,
      requester: input.requester,
      ...(progress.headSha === null ? {} : { head_sha: progress.headSha }),
      started_unix: Math.floor(startedMs / 1000),
      finished_unix: Math.floor(finishedMs / 1000),
      outcome: ending.outcome,
      ...(ending.detail === null ? {} : { detail: ending.detail }),
      ...(ending.table === null ? {} : { rows: ending.table.rows.map(withoutUsage), overall: ending.table.overall }),
    }
    await deps.runs.record(record)
  }

  return {
    start(input) {
      prune()
      makeRoom()
      const startedMs = deps.clock.nowMs()
      const id = deps.ids.runId()
      const entry: Entry = {
        view: {
          id,
          status: 'running',
          repo: `${input.repo.owner}/${input.repo.name}`,
          pr: input.pr,
          head_sha: input.headSha === '' ? null : input.headSha,
          rows: null,
          overall: null,
          detail: null,
        },
        finishedMs: null,
      }
      entries.set(id, entry)
      const promise = runAndRecord(entry, input, startedMs).catch((error: unknown) => {
        // `RunStore.record` never throws by contract; a store that does must not become an unhandled rejection.
        deps.logger.error('review classifier try-out could not be recorded', {
          id,
          kind: error instanceof Error ? error.name : typeof error,
        })
      })
      inFlight.add(promise)
      void promise.finally(() => inFlight.delete(promise))
      return id
    },
    get(id) {
      prune()
      const entry = entries.get(id)
      return entry === undefined ? null : structuredClone(entry.view)
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight])
    },
    size() {
      prune()
      return entries.size
    },
  } satisfies TryOuts
}
