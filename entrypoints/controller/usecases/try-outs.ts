/**
 * Try-outs (docs/behaviour.md, "Try-out"): typed classifications run against
 * a PR, started by the POST, run in the background and read back by id.
 * Nothing reaches the forge but the reads: no review, no comment, no commit.
 *
 * A try-out is one run, or for a repeat k runs of the same request on one
 * read of the PR (the first alone, to warm the provider's cache, then the
 * rest a few at a time), or for a replay one run per listed PR, a few PRs at
 * a time (core/try-out-runs.ts says how many). While a run goes, each row
 * the classifier reports as it finishes is re-checked like a reply row and
 * shown; the reply's rows then replace them (docs/decisions.md, "Run progress").
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
 * reviews, and the spec leaves try-outs out of it. They have a bound of
 * their own, {@link TRY_OUTS_RUNNING_MAX} running at once (a repeat or a
 * replay is one), past which `start` throws {@link TryOutsFullError}.
 */
import { type Aggregate, checkProgressRow } from '../../../core/aggregate.ts'
import { errorKind } from '../../../core/errors.ts'
import { repoName } from '../../../core/repo.ts'
import type { RunRecord, TryOutOutcome } from '../../../core/run-record.ts'
import { readRunReply } from '../../../core/run-reply.ts'
import { repeatRunId, replayRunId, runsAtOnce, summariseAnswers } from '../../../core/try-out-runs.ts'
import type {
  Classification,
  Overall,
  RecordedRow,
  ReplayLine,
  ReplayLineStatus,
  RepoRef,
  Row,
  RunRequest,
  Settings,
  TryOutView,
} from '../../../core/types.ts'
import type { Clock } from '../../../ports/clock.ts'
import type { ForgePullRequest, ForgeReader } from '../../../ports/forge.ts'
import type { Ids } from '../../../ports/ids.ts'
import type { Logger } from '../../../ports/logger.ts'
import type { RunQueue } from '../../../ports/queue.ts'
import { type PullRead, type PullReader, readPullAtOneHead, runRequestFor } from './pull-read.ts'
import { type RunExchangeOptions, sendRunRequest } from './run-exchange.ts'
import type { RunStore } from './run-store.ts'

/** How long a finished try-out's result stays readable. */
export const TRY_OUT_KEEP_MS = 60 * 60_000
/** The most results held in memory at once, running ones included. */
export const TRY_OUTS_KEPT_MAX = 1_000
/** The most try-outs running at once; a repeat or a replay is one, however many runs it makes. */
export const TRY_OUTS_RUNNING_MAX = 4

/** A try-out refused because {@link TRY_OUTS_RUNNING_MAX} (or the configured bound) are running; the route's 429. */
export class TryOutsFullError extends Error {
  override readonly name = 'TryOutsFullError'
  constructor(readonly running: number) {
    super(`${running} try-outs are running, the most this controller runs at once; try again when one finishes`)
  }
}

/** The forge reads a try-out makes, all with the controller's own token; the POST lists a replay's PRs. */
export type TryOutForge = PullReader & Pick<ForgeReader, 'listRecentPulls'>

type TryOutCommon = {
  forge: PullReader
  repo: RepoRef
  classifications: Classification[]
  /** As read at the POST (spec: a try-out reads them when it's posted). */
  settings: Settings
  /** The swarm UI user, from `Remote-User`. */
  requester: string
}

/** One PR, asked once, or `repeat` times. */
export type TryOutInput = TryOutCommon & {
  pr: number
  /** The head the POST read; the run reads the PR again and keeps the head it read. */
  headSha: string
  /** How many times to ask each classification (`repeat` in the POST); absent is once, shown without a repeat. */
  repeat?: number
}

/** The repo's last PRs, as the POST listed them (newest first). */
export type ReplayInput = TryOutCommon & {
  /** How many PRs the POST asked for (`replay`). */
  count: number
  pulls: ForgePullRequest[]
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
  /** Defaults to {@link TRY_OUTS_RUNNING_MAX}. */
  maxRunning?: number
}

export type TryOuts = {
  /** Starts the run (or a repeat's runs) in the background and answers its id at once; {@link TryOutsFullError} at the bound. */
  start(input: TryOutInput): string
  /** Starts a replay's runs in the background and answers its id at once; {@link TryOutsFullError} at the bound. */
  startReplay(input: ReplayInput): string
  /** Throws {@link TryOutsFullError} when a new try-out would be refused now (the POST asks before its forge reads). */
  checkRoom(): void
  /** The result by id, or null for an unknown, evicted or expired one. */
  get(id: string): TryOutView | null
  /** Resolves once no try-out is running or being recorded (tests, shutdown). */
  idle(): Promise<void>
  /** How many results are held (expired ones pruned first). */
  size(): number
}

/** How a run ended, before it's shown and recorded. */
type Ending = {
  outcome: TryOutOutcome
  detail: string | null
  /** Present when the classifier answered. */
  table: { rows: Row[]; overall: Overall } | null
}

/** One run's state: the rows heard while it goes, then how it ended. */
type Slot = {
  status: ReplayLineStatus
  headSha: string | null
  /** Rows the classifier reported before its reply, re-checked, by name. */
  heard: Map<string, RecordedRow>
  ended: { rows: RecordedRow[] | null; overall: Overall | null; detail: string | null } | null
}

type Entry = {
  view(): TryOutView
  finishedMs: number | null
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

function newSlot(headSha: string | null): Slot {
  return { status: 'waiting', headSha, heard: new Map(), ended: null }
}

function endSlot(slot: Slot, ending: Ending): void {
  slot.status = ending.outcome
  slot.ended = {
    rows: ending.table?.rows.map(withoutUsage) ?? null,
    overall: ending.table?.overall ?? null,
    detail: ending.detail,
  }
}

/** The rows a slot shows: the reply's once it ended, else the ones heard so far in the order sent (null for none). */
function shownRows(slot: Slot, sent: readonly Classification[]): RecordedRow[] | null {
  if (slot.ended !== null) return slot.ended.rows
  const heard = sent.flatMap((classification) => slot.heard.get(classification.name) ?? [])
  return heard.length > 0 ? heard : null
}

function rowOf(slot: Slot, name: string): RecordedRow | null {
  if (slot.ended !== null) return slot.ended.rows?.find((row) => row.name === name) ?? null
  return slot.heard.get(name) ?? null
}

function isOver(slot: Slot): boolean {
  return slot.status === 'done' || slot.status === 'failed'
}

/** `fn` over `items` in order, at most `limit` at once; `fn` must not reject. */
async function eachAtMost<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next]
      next += 1
      if (item !== undefined) await fn(item)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
}

export function createTryOuts(deps: TryOutsDeps): TryOuts {
  const keepMs = deps.keepMs ?? TRY_OUT_KEEP_MS
  const maxKept = Math.max(1, deps.maxKept ?? TRY_OUTS_KEPT_MAX)
  const maxRunning = Math.max(1, deps.maxRunning ?? TRY_OUTS_RUNNING_MAX)
  let running = 0
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

  /** Sends one run and waits for it, showing each row heard before the reply; the slot ends with it. */
  async function ask(slot: Slot, request: RunRequest): Promise<Ending> {
    const sent = request.classifications
    slot.status = 'running'
    let listening = true
    const reply = await sendRunRequest(deps.queue, request, {
      ...deps.exchange,
      onRow(row) {
        // A row can cross the reply (they travel on different subjects): once the reply is in, it counts.
        if (!listening) return
        const checked = checkProgressRow(sent, row)
        if (checked !== null && !slot.heard.has(checked.name)) slot.heard.set(checked.name, withoutUsage(checked))
      },
    })
    listening = false
    const ending = endingOfReply(request, reply)
    endSlot(slot, ending)
    return ending
  }

  function endingOfReply(request: RunRequest, reply: Awaited<ReturnType<typeof sendRunRequest>>): Ending {
    if (!reply.ok) return failed(reply.error)
    const reading = readRunReply(request.id, request.classifications, reply.value)
    switch (reading.kind) {
      case 'unreadable':
        return failed(reading.reason)
      case 'failed':
        // The classifier answered, if only to say the run failed: its rows, when it sent any, are shown.
        return failed(reading.reason, { rows: reading.rows ?? [], overall: 'no-verdict' })
      case 'answered':
        return endingOfAnswer(request.classifications, reading.checked, reading.answeredNames)
    }
  }

  function runRequest(id: string, input: TryOutCommon, pr: number, read: PullRead): RunRequest {
    const { repo, classifications, settings } = input
    return runRequestFor({ id, trigger: 'try-out', repo, pr, read, classifications, settings })
  }

  /** Runs `flow`, and ends every slot it left open as failed when it throws (a bug: the page must not wait forever). */
  async function guarded(id: string, slots: readonly Slot[], flow: () => Promise<void>): Promise<void> {
    try {
      await flow()
    } catch (error) {
      deps.logger.error('review classifier try-out failed unexpectedly', {
        id,
        kind: errorKind(error),
      })
      for (const slot of slots) if (!isOver(slot)) endSlot(slot, failed('the try-out failed on an internal error'))
    }
  }

  /** One PR: read once, then asked once, or `repeat` times (the first run alone, the rest a few at a time). */
  async function runOnePr(id: string, input: TryOutInput, slots: Slot[]): Promise<void> {
    const [first, ...rest] = slots
    if (first === undefined) return
    first.status = 'running'
    const progress = { headSha: first.headSha }
    const read = await readPullAtOneHead(input.forge, input.repo, input.pr, progress)
    for (const slot of slots) slot.headSha = progress.headSha
    if (!read.ok) {
      for (const slot of slots) endSlot(slot, failed(read.error))
      return
    }
    const firstEnding = await ask(first, runRequest(id, input, input.pr, read.value))
    if (firstEnding.outcome === 'failed') {
      for (const slot of rest) endSlot(slot, failed('not asked: the first run failed'))
      return
    }
    const later = rest.map((slot, i) => ({ slot, runId: repeatRunId(id, i + 2) }))
    await eachAtMost(later, runsAtOnce(input.classifications.length), async ({ slot, runId }) => {
      await ask(slot, runRequest(runId, input, input.pr, read.value))
    })
  }

  function onePrView(id: string, input: TryOutInput, slots: readonly Slot[]): TryOutView {
    const sent = input.classifications
    const first = slots[0] ?? newSlot(null)
    const count = slots.length
    const running = slots.some((slot) => !isOver(slot))
    const failedAt = slots.findIndex((slot) => slot.status === 'failed')
    const failure = slots[failedAt]?.ended?.detail ?? null
    const view: TryOutView = {
      id,
      status: running ? 'running' : failedAt >= 0 ? 'failed' : 'done',
      repo: repoName(input.repo),
      pr: input.pr,
      head_sha: first.headSha,
      rows: shownRows(first, sent),
      overall: first.ended?.overall ?? null,
      detail: running || failure === null ? null : count > 1 ? `run ${failedAt + 1} of ${count}: ${failure}` : failure,
    }
    if (input.repeat === undefined) return view
    const classifications = sent.map(({ name }) => {
      const answers = slots.flatMap((slot) => rowOf(slot, name) ?? [])
      return { name, answers, ...summariseAnswers(answers) }
    })
    return { ...view, repeat: { count, classifications } }
  }

  function lineView(line: { pull: ForgePullRequest; slot: Slot }, sent: readonly Classification[]): ReplayLine {
    const { pull, slot } = line
    return {
      pr: pull.number,
      title: pull.title,
      url: pull.htmlUrl,
      status: slot.status,
      head_sha: slot.headSha,
      rows: shownRows(slot, sent),
      overall: slot.ended?.overall ?? null,
      detail: slot.ended?.detail ?? null,
    }
  }

  function record(
    id: string,
    input: TryOutCommon,
    pr: number,
    slot: Slot,
    startedMs: number,
    finishedMs: number,
    detail: string | null,
  ): Promise<void> {
    const outcome: TryOutOutcome = slot.status === 'done' && detail === null ? 'done' : 'failed'
    const entry: RunRecord = {
      id,
      trigger: 'try-out',
      repo: repoName(input.repo),
      pr,
      requester: input.requester,
      ...(slot.headSha === null ? {} : { head_sha: slot.headSha }),
      started_unix: Math.floor(startedMs / 1000),
      finished_unix: Math.floor(finishedMs / 1000),
      outcome,
      ...(detail === null ? {} : { detail }),
      ...(slot.ended?.rows === null || slot.ended?.rows === undefined
        ? {}
        : { rows: slot.ended.rows, overall: slot.ended.overall ?? 'no-verdict' }),
    }
    return deps.runs.record(entry)
  }

  function checkRoom(): void {
    if (running >= maxRunning) throw new TryOutsFullError(running)
  }

  /**
   * Holds the entry and runs `work` in the background, tracked for `idle`.
   * It counts as running until `work` calls `finish` (its runs are over; the
   * store write may follow), or ends.
   */
  function launch(id: string, entry: Entry, work: (finish: () => number) => Promise<void>): void {
    prune()
    makeRoom()
    entries.set(id, entry)
    running += 1
    const finish = (): number => {
      if (entry.finishedMs === null) {
        entry.finishedMs = deps.clock.nowMs()
        running -= 1
      }
      return entry.finishedMs
    }
    const promise = work(finish).catch((error: unknown) => {
      // `RunStore.record` never throws by contract; a store that does must not become an unhandled rejection.
      deps.logger.error('review classifier try-out could not be recorded', {
        id,
        kind: errorKind(error),
      })
    })
    inFlight.add(promise)
    void promise.finally(() => {
      finish()
      inFlight.delete(promise)
    })
  }

  return {
    start(input) {
      checkRoom()
      const startedMs = deps.clock.nowMs()
      const id = deps.ids.runId()
      const slots = Array.from({ length: Math.max(1, input.repeat ?? 1) }, () =>
        newSlot(input.headSha === '' ? null : input.headSha),
      )
      const entry: Entry = { view: () => onePrView(id, input, slots), finishedMs: null }
      launch(id, entry, async (finish) => {
        await guarded(id, slots, () => runOnePr(id, input, slots))
        // The result shows (and its place is free) before the store write, which may wait on the queue's retries.
        const finishedMs = finish()
        const first = slots[0] ?? newSlot(null)
        await record(id, input, input.pr, first, startedMs, finishedMs, entry.view().detail)
      })
      return id
    },
    startReplay(input) {
      checkRoom()
      const id = deps.ids.runId()
      const lines = input.pulls.map((pull) => ({ pull, slot: newSlot(pull.headSha === '' ? null : pull.headSha) }))
      const slots = lines.map((line) => line.slot)
      const view = (): TryOutView => {
        const running = slots.some((slot) => !isOver(slot))
        const none = !running && slots.length > 0 && slots.every((slot) => slot.status === 'failed')
        return {
          id,
          status: running ? 'running' : none ? 'failed' : 'done',
          repo: repoName(input.repo),
          pr: null,
          head_sha: null,
          rows: null,
          overall: null,
          detail: none ? `none of the ${slots.length} PRs could be run; each line says why` : null,
          replay: { count: input.count, pulls: lines.map((line) => lineView(line, input.classifications)) },
        }
      }
      const entry: Entry = { view, finishedMs: null }
      launch(id, entry, async (finish) => {
        await eachAtMost(lines, runsAtOnce(input.classifications.length), async ({ pull, slot }) => {
          const runId = replayRunId(id, pull.number)
          const startedMs = deps.clock.nowMs()
          await guarded(runId, [slot], async () => {
            slot.status = 'running'
            const progress = { headSha: slot.headSha }
            const read = await readPullAtOneHead(input.forge, input.repo, pull.number, progress)
            slot.headSha = progress.headSha
            if (!read.ok) endSlot(slot, failed(read.error))
            else await ask(slot, runRequest(runId, input, pull.number, read.value))
          })
          // Each PR is a run of its own in the store, under its own id, as soon as it ends.
          await record(
            runId,
            input,
            pull.number,
            slot,
            startedMs,
            deps.clock.nowMs(),
            slot.ended?.detail ?? null,
          ).catch((error: unknown) => {
            // `RunStore.record` never throws by contract; one that does must not stop the other PRs.
            deps.logger.error('review classifier try-out could not be recorded', {
              id: runId,
              kind: errorKind(error),
            })
          })
        })
        finish()
      })
      return id
    },
    checkRoom,
    get(id) {
      prune()
      const entry = entries.get(id)
      return entry === undefined ? null : structuredClone(entry.view())
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
