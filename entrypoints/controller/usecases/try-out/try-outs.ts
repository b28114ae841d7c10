/**
 * Try-outs (docs/behaviour.md, "Try-out"): typed classifications run against
 * a PR, started by the POST, run in the background and read back by id.
 * Nothing reaches the forge but the reads: no review, no comment, no commit.
 *
 * A try-out is one run, or for a repeat k runs of the same request on one
 * read of the PR (try-out-repeat.ts), or for a replay one run per listed PR
 * (try-out-replay.ts). While a run goes, each row the classifier reports as
 * it finishes is re-checked like a reply row and shown; the reply's rows
 * then replace them (try-out-slots.ts). The results are held in memory for
 * {@link TRY_OUT_KEEP_MS} after they finish, {@link TRY_OUTS_KEPT_MAX} at
 * most (try-out-results.ts), and each run is recorded in the run store
 * (try-out-record.ts).
 *
 * Try-outs take no review place: the concurrency limit is for requested
 * reviews, and the spec leaves try-outs out of it. They have a bound of
 * their own, {@link TRY_OUTS_RUNNING_MAX} running at once (a repeat or a
 * replay is one), past which `start` throws an `exhausted` AppError.
 */
import type { TryOutView } from '../../../../core/wire/types.ts'
import type { Clock } from '../../../../ports/clock.ts'
import type { ForgeReader } from '../../../../ports/forge.ts'
import type { Ids } from '../../../../ports/ids.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { RunQueue } from '../../../../ports/queue.ts'
import type { RulesReader } from '../repo-files/rules-loader.ts'
import type { PullReader } from '../run/pull-read.ts'
import type { RunExchangeOptions } from '../run/run-exchange.ts'
import type { RunStore } from '../run/run-store.ts'
import type { SpendLedger } from '../settings/spend-ledger.ts'
import { type ExamplesInput, examplesLines, examplesView, runExamples } from './try-out-examples.ts'
import { examplesRecord, tryOutRecord } from './try-out-record.ts'
import { runOnePr, type TryOutInput } from './try-out-repeat.ts'
import { type ReplayInput, runReplay } from './try-out-replay.ts'
import { createTryOutResults, type TryOutEntry } from './try-out-results.ts'
import { createRunAsker, guarded, newSlot } from './try-out-slots.ts'
import { onePrView, replayView } from './try-out-views.ts'

// What the route and the tests name stays here, beside createTryOuts.
export type { ExamplesInput, ReplayInput, TryOutInput }

/** How long a finished try-out's result stays readable. */
export const TRY_OUT_KEEP_MS = 60 * 60_000
/** The most results held in memory at once, running ones included. */
export const TRY_OUTS_KEPT_MAX = 1_000
/** The most try-outs running at once; a repeat, a replay or a try-out against the examples is one, however many runs it makes. */
export const TRY_OUTS_RUNNING_MAX = 4

/**
 * The forge reads a try-out makes, all with the controller's own token; the
 * POST lists a replay's PRs, or reads the examples file (as the rules are read).
 */
export type TryOutForge = PullReader & RulesReader & Pick<ForgeReader, 'listRecentPulls'>

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
  /** Asked before any other check of a new try-out; throws to refuse it (the controller, while it stops). */
  admit?: () => void
  /** The daily budget: every run reserves its cost first, and a refused one stops its try-out; none: no budget. */
  spend?: Pick<SpendLedger, 'reserve'>
}

export type TryOuts = {
  /** Starts the run (or a repeat's runs) in the background and answers its id at once; an `exhausted` AppError at the bound. */
  start(input: TryOutInput): string
  /** Starts a replay's runs in the background and answers its id at once; an `exhausted` AppError at the bound. */
  startReplay(input: ReplayInput): string
  /** Starts the runs on the labelled PRs in the background and answers its id at once; an `exhausted` AppError at the bound. */
  startExamples(input: ExamplesInput): string
  /** Throws an `exhausted` AppError (or what `admit` throws) when a new try-out would be refused now (the POST asks before its forge reads). */
  checkRoom(): void
  /** The result by id, or null for an unknown, evicted or expired one. */
  get(id: string): TryOutView | null
  /** Resolves once no try-out is running or being recorded (tests, shutdown). */
  idle(): Promise<void>
  /**
   * Stops every try-out in hand (the controller is stopping; they would be
   * dropped with the process): each run still waiting stops, which cancels
   * it at the classifier, no further run is sent, and each ends `failed`
   * with `reason`'s message. Try-outs started later are stopped at once.
   */
  stop(reason: Error): void
  /** How many results are held (expired ones pruned first). */
  size(): number
}

export function createTryOuts(deps: TryOutsDeps): TryOuts {
  const results = createTryOutResults({
    clock: deps.clock,
    logger: deps.logger,
    keepMs: deps.keepMs ?? TRY_OUT_KEEP_MS,
    maxKept: deps.maxKept ?? TRY_OUTS_KEPT_MAX,
    maxRunning: deps.maxRunning ?? TRY_OUTS_RUNNING_MAX,
  })
  const stopping = new AbortController()
  // One asker per try-out: the budget's stop belongs to the try-out it stopped; the drain's stops them all.
  const newAsker = () => createRunAsker({ ...deps, signal: stopping.signal })
  // Every new try-out, of any kind, and the POST's question before its forge reads pass here.
  const checkRoom = () => {
    deps.admit?.()
    results.checkRoom()
  }

  return {
    start(input) {
      checkRoom()
      const startedMs = deps.clock.nowMs()
      const id = deps.ids.runId()
      const slots = Array.from({ length: Math.max(1, input.repeat ?? 1) }, () =>
        newSlot(input.headSha === '' ? null : input.headSha),
      )
      const entry: TryOutEntry = { view: () => onePrView(id, input, slots), finishedMs: null }
      results.launch(id, entry, async (finish) => {
        await guarded(deps.logger, id, slots, () => runOnePr(newAsker(), id, input, slots))
        // The result shows (and its place is free) before the store write, which may wait on the queue's retries.
        const finishedMs = finish()
        const first = slots[0] ?? newSlot(null)
        const run = { id, repo: input.repo, pr: input.pr, requester: input.requester }
        await deps.runs.record(tryOutRecord(run, first, { startedMs, finishedMs }, entry.view().detail))
      })
      return id
    },
    startReplay(input) {
      checkRoom()
      const id = deps.ids.runId()
      const lines = input.pulls.map((pull) => ({ pull, slot: newSlot(pull.headSha === '' ? null : pull.headSha) }))
      const entry: TryOutEntry = { view: () => replayView(id, input, lines), finishedMs: null }
      results.launch(id, entry, async (finish) => {
        await runReplay({ ask: newAsker(), runs: deps.runs, clock: deps.clock, logger: deps.logger }, id, input, lines)
        finish()
      })
      return id
    },
    startExamples(input) {
      checkRoom()
      const startedMs = deps.clock.nowMs()
      const id = deps.ids.runId()
      const lines = examplesLines(input, () => newSlot(null))
      // Once it has ended nothing changes, so the score (every answer judged at 101 thresholds) is computed once.
      let ended: TryOutView | null = null
      const view = (): TryOutView => {
        if (ended !== null) return ended
        const now = examplesView(id, input, lines)
        if (now.status !== 'running') ended = now
        return now
      }
      const entry: TryOutEntry = { view, finishedMs: null }
      results.launch(id, entry, async (finish) => {
        await runExamples({ ask: newAsker(), logger: deps.logger }, id, input, lines)
        const finishedMs = finish()
        const run = { id, repo: input.repo, requester: input.requester, prs: input.applied.prs }
        await deps.runs.record(examplesRecord(run, { startedMs, finishedMs }, entry.view()))
      })
      return id
    },
    checkRoom,
    get: (id) => results.get(id),
    idle: () => results.idle(),
    stop(reason) {
      stopping.abort(reason)
    },
    size: () => results.size(),
  } satisfies TryOuts
}
