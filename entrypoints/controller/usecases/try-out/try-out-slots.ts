/**
 * One run of a try-out as it goes (docs/behaviour.md, "Try-out"): its slot
 * (waiting, running, then how it ended), the rows the classifier reports
 * before its reply, each re-checked like a reply row and shown, and the
 * reply's reading that ends it (docs/decisions.md, "Run progress"). A
 * repeat has a slot per run, a replay one per PR.
 */

import { describeError, errorKind } from '../../../../core/base/errors.ts'
import type { Result } from '../../../../core/base/result.ts'
import { type Aggregate, checkProgressRow } from '../../../../core/run/aggregate.ts'
import type { TryOutOutcome } from '../../../../core/run/run-record.ts'
import { readRunReply } from '../../../../core/run/run-reply.ts'
import { outOfScopeNames } from '../../../../core/run/scope.ts'
import type {
  Classification,
  Overall,
  RecordedRow,
  RedactionSummary,
  ReplayLineStatus,
  RepoRef,
  Row,
  RunRequest,
  Runtime,
  Settings,
} from '../../../../core/wire/types.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { RunQueue } from '../../../../ports/queue.ts'
import { sendBudgetedRun } from '../run/budgeted-run.ts'
import { type PullRead, type PullReader, runRequestFor } from '../run/pull-read.ts'
import type { RunExchangeOptions } from '../run/run-exchange.ts'
import type { SpendLedger } from '../settings/spend-ledger.ts'

/** What every try-out has, one PR or a replay. */
export type TryOutCommon = {
  forge: PullReader
  repo: RepoRef
  classifications: Classification[]
  /** As read at the POST (spec: a try-out reads them when it's posted). */
  settings: Settings
  /** The runtime repo_runtimes resolved for the repo at the POST; a repo sent to none got a 403 there. */
  runtime: Runtime
  /** The swarm UI user, from `Remote-User`. */
  requester: string
}

/** How a run ended, before it's shown and recorded. */
export type Ending = {
  outcome: TryOutOutcome
  detail: string | null
  /** Present when the classifier answered. */
  table: { rows: Row[]; overall: Overall } | null
  /** What the classifier's redaction took out; null without a reply that said. */
  redaction?: RedactionSummary | null
  /** The budget let it start no run: the try-out's later runs are skipped with the same words. */
  budgetStop?: true
}

/** A run's detail once today's budget is spent: the run, and every later one of its try-out, never started. */
export const BUDGET_SKIPPED = "skipped: today's budget is spent"

/** One run's state: the rows heard while it goes, then how it ended. */
export type Slot = {
  status: ReplayLineStatus
  headSha: string | null
  /** Rows the classifier reported before its reply, re-checked, by name. */
  heard: Map<string, RecordedRow>
  ended: {
    rows: RecordedRow[] | null
    overall: Overall | null
    detail: string | null
    redaction: RedactionSummary | null
  } | null
}

export function failed(detail: string, table: Ending['table'] = null): Ending {
  return { outcome: 'failed', detail, table }
}

/** A row as a result shows it: never a token count (docs/decisions.md, run reply). */
export function withoutUsage(row: Row): RecordedRow {
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

function endingOfReply(request: RunRequest, reply: Result<string, string>): Ending {
  if (!reply.ok) return failed(reply.error)
  const reading = readRunReply(request.id, request.classifications, reply.value, request.diff)
  switch (reading.kind) {
    case 'unreadable':
      return failed(reading.reason)
    case 'failed':
      // The classifier answered, if only to say the run failed: its rows, when it sent any, are shown.
      return {
        ...failed(reading.reason, { rows: reading.rows ?? [], overall: 'no-verdict' }),
        redaction: reading.redaction,
      }
    case 'answered':
      return {
        ...endingOfAnswer(request.classifications, reading.checked, reading.answeredNames),
        redaction: reading.redaction,
      }
  }
}

export function newSlot(headSha: string | null): Slot {
  return { status: 'waiting', headSha, heard: new Map(), ended: null }
}

export function endSlot(slot: Slot, ending: Ending): void {
  slot.status = ending.outcome
  slot.ended = {
    rows: ending.table?.rows.map(withoutUsage) ?? null,
    overall: ending.table?.overall ?? null,
    detail: ending.detail,
    redaction: ending.redaction ?? null,
  }
}

/** The rows a slot shows: the reply's once it ended, else the ones heard so far in the order sent (null for none). */
export function shownRows(slot: Slot, sent: readonly Classification[]): RecordedRow[] | null {
  if (slot.ended !== null) return slot.ended.rows
  const heard = sent.flatMap((classification) => slot.heard.get(classification.name) ?? [])
  return heard.length > 0 ? heard : null
}

export function rowOf(slot: Slot, name: string): RecordedRow | null {
  if (slot.ended !== null) return slot.ended.rows?.find((row) => row.name === name) ?? null
  return slot.heard.get(name) ?? null
}

export function isOver(slot: Slot): boolean {
  return slot.status === 'done' || slot.status === 'failed'
}

/** The run request of a try-out's run on PR `pr` as read. */
export function tryOutRunRequest(id: string, input: TryOutCommon, pr: number, read: PullRead): RunRequest {
  const { repo, classifications, settings, runtime } = input
  return runRequestFor({ id, trigger: 'try-out', repo, pr, read, classifications, settings, runtime })
}

/**
 * One try-out's runs: each sends one run within the daily budget and waits
 * for it, showing each row heard before the reply; the slot ends with it.
 * Once the budget refuses a run, or the controller stops, no later run of
 * the try-out starts: each ends at once with the same words, and `stopped`
 * says them so a try-out reads no more PRs for runs it won't send.
 */
export type RunAsker = {
  (slot: Slot, request: RunRequest): Promise<Ending>
  /** The ending every later run gets once the budget or the drain stopped the try-out; null while runs may start. */
  stopped(): Ending | null
}

export type RunAskerDeps = {
  queue: RunQueue
  exchange: Pick<RunExchangeOptions, 'runTimeoutMs' | 'replyMarginMs'>
  /** The daily budget's ledger; none: no budget. */
  spend?: Pick<SpendLedger, 'reserve'>
  /**
   * Once aborted (the controller stopping), a run in hand stops waiting (its
   * cancel goes to the classifier) and none is sent or reserved; its reason
   * is the detail, and the try-out's later runs end with it.
   */
  signal?: AbortSignal
}

/** A fresh asker for one try-out. */
export function createRunAsker(deps: RunAskerDeps): RunAsker {
  let stop: Ending | null = null
  const stopped = (): Ending | null => {
    if (stop !== null || deps.signal?.aborted !== true) return stop
    return failed(describeError(deps.signal.reason))
  }
  const ask = async (slot: Slot, request: RunRequest): Promise<Ending> => {
    if (stop !== null) {
      endSlot(slot, stop)
      return stop
    }
    const sent = request.classifications
    const outOfScope = outOfScopeNames(sent, request.diff)
    slot.status = 'running'
    let listening = true
    const answer = await sendBudgetedRun(deps, request, {
      ...deps.exchange,
      ...(deps.signal === undefined ? {} : { signal: deps.signal }),
      onRow(row) {
        // A row can cross the reply (they travel on different subjects): once the reply is in, it counts.
        if (!listening) return
        const checked = checkProgressRow(sent, row, outOfScope)
        if (checked !== null && !slot.heard.has(checked.name)) slot.heard.set(checked.name, withoutUsage(checked))
      },
    })
    listening = false
    let ending: Ending
    if (answer.kind === 'sent') ending = endingOfReply(request, answer.reply)
    else {
      const detail = answer.why === 'spent' ? BUDGET_SKIPPED : `skipped: ${answer.reason}`
      ending = { ...failed(detail), budgetStop: true }
      stop = ending
    }
    endSlot(slot, ending)
    return ending
  }
  return Object.assign(ask, { stopped })
}

/** Ends `slots` as not asked: with the budget's stop when the try-out has one, else `detail`. */
export function endNotAsked(ask: RunAsker, slots: readonly Slot[], detail: string): void {
  const ending = ask.stopped() ?? failed(detail)
  for (const slot of slots) endSlot(slot, ending)
}

/** Runs `flow`, and ends every slot it left open as failed when it throws (a bug: the page must not wait forever). */
export async function guarded(
  logger: Logger,
  id: string,
  slots: readonly Slot[],
  flow: () => Promise<void>,
): Promise<void> {
  try {
    await flow()
  } catch (error) {
    logger.error('review classifier try-out failed unexpectedly', { id, kind: errorKind(error) })
    for (const slot of slots) if (!isOver(slot)) endSlot(slot, failed('the try-out failed on an internal error'))
  }
}

/** `fn` over `items` in order, at most `limit` at once (a repeat's later runs, a replay's PRs); `fn` must not reject. */
export async function eachAtMost<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
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
