/**
 * The ACP runtime: one `opencode acp` process per run, in a private
 * directory removed when the run ends; each classification is one prompt on
 * a fresh session of its own on that process.
 *
 * One process per run, not one per classification: bench/results/opencode.md
 * measured a run of 5–10 classifications at 18–31 % of the wall time, with
 * a fraction of the CPU and memory, and every session stayed independent
 * (each provider request carries only its own question). The run's first
 * session to be opened starts the process (~2.6 s, mostly before
 * `initialize` answers), so the service opens it as soon as the run request
 * is decoded and its key read; every session opened runs its `session/new`
 * on the process as soon as the process is up, ahead of its question. A
 * deadline (counted from the ask) or an abort cancels its own session
 * (`session/cancel`) and leaves the process to the run's other sessions. The
 * process goes at `endRun`, which the service calls once the run's sessions
 * have all been closed; one left with no session open for the deadline plus
 * a minute is stopped anyway, so a caller that forgets `endRun` leaks
 * nothing for long. A process that dies fails the sessions asked on it; a
 * session asked after that starts another.
 */
import { mkdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { describeError } from '../../core/base/errors.ts'
import { err, ok, type Result } from '../../core/base/result.ts'
import { capLine, redactSecrets } from '../../core/base/text.ts'
import type { AcpProvider } from '../../core/wire/types.ts'
import type { Logger } from '../../ports/logger.ts'
import type {
  AskOptions,
  ClassifyResult,
  ModelFailure,
  ModelRuntime,
  ModelSession,
  Question,
  SessionSpec,
} from '../../ports/model-runtime.ts'
import type { ProcessRecords } from '../process/records.ts'
import { opencodeConfig, type PassEnv, pickPassEnv } from './config.ts'
import { type OpencodeProcess, startOpencodeProcess } from './process.ts'
import { initializeAgent, type NewSession, newSession, promptSession } from './session.ts'

export type OpencodeRuntimeConfig = {
  /** The `opencode` binary (`OPENCODE_BIN`). */
  opencodeBin: string
  /** `WORK_DIR`: holds the shared empty working directory and, by default, the per-run directories. */
  workDir: string
  /** Where the per-run directories go; default `<workDir>/runs`. */
  runsDir?: string
  /** The classifier's environment; only the proxy and CA variables are taken from it. */
  passEnv: Record<string, string | undefined>
  /** Where each live process group is recorded, so a classifier killed with it in hand has it ended at the next start. */
  records?: ProcessRecords
}

/** Longest failure detail; enough for the status and the gist of the message. */
export const DETAIL_MAX_CHARS = 300

/** How long past the deadline a run's idle process waits for its `endRun` before it is stopped anyway. */
export const IDLE_GRACE_MS = 60_000

type Stop = { kind: 'deadline' } | { kind: 'aborted' } | { kind: 'closed' }

type Launched = Result<OpencodeProcess, string>

/** A run's process: started by its first session, shared by the rest. */
type RunProcess = {
  started: Promise<Launched>
  /** Set once the process exited or failed to start: the next session asked starts another. */
  dead: boolean
  /** Sessions open on it (opened and neither answered nor closed). */
  inFlight: number
  idle: ReturnType<typeof setTimeout> | undefined
  /** Stops of the run's earlier processes that died, so `endRun` waits for their directories to go. */
  retired: Array<Promise<void>>
}

/** A session made ahead on a process: the process and what `session/new` answered. */
type Made = { proc: OpencodeProcess; run: RunProcess; session: NewSession }

/** Where and how a run's process starts: the same for every run of the runtime. */
type Launch = {
  opencodeBin: string
  cwd: string
  runsDir: string
  passEnv: PassEnv
  config: OpencodeRuntimeConfig
  logger: Logger
}

/** Never rejects. The config comes from the run's first session: a run's all share it. */
async function startRunProcess(launch: Launch, spec: SessionSpec, acp: AcpProvider): Promise<Launched> {
  const { opencodeBin, cwd, runsDir, passEnv, config, logger } = launch
  try {
    await mkdir(cwd, { recursive: true })
    const launched = await startOpencodeProcess(
      {
        opencodeBin,
        cwd,
        runsDir,
        passEnv,
        config: opencodeConfig({
          baseUrl: acp.base_url,
          model: spec.model,
          system: spec.system,
          effort: spec.effort,
          maxOutputTokens: spec.maxOutputTokens,
        }),
        apiKey: spec.apiKey,
        ...(config.records === undefined ? {} : { records: config.records }),
      },
      logger,
    )
    if (!launched.ok) return launched
    const init = await initializeAgent(launched.value.connection)
    if (!init.ok) {
      await launched.value.stop()
      return err(init.error)
    }
    return launched
  } catch (error) {
    return err(`opencode runtime failed: ${describeError(error)}`)
  }
}

/** A session that can only fail: the request can't run on this runtime. */
function failing(result: ClassifyResult): ModelSession {
  return { ask: async () => result, close: async () => undefined }
}

/** What stops an ask first: its deadline, the session's close or the run's signal; `stops` clear the timer and listener. */
function whenStopped(
  deadlineMs: number,
  closing: Promise<Stop>,
  signal: AbortSignal | undefined,
): { stopped: Promise<Stop>; stops: Array<() => void> } {
  const stops: Array<() => void> = []
  const stopped = new Promise<Stop>((resolveStop) => {
    // The first reason wins: a promise settles once.
    const settle = (reason: Stop) => resolveStop(reason)
    const timer = setTimeout(() => settle({ kind: 'deadline' }), deadlineMs)
    stops.push(() => clearTimeout(timer))
    void closing.then(settle)
    if (signal === undefined) return
    const onAbort = () => settle({ kind: 'aborted' })
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    stops.push(() => signal.removeEventListener('abort', onAbort))
  })
  return { stopped, stops }
}

/** The failure an ask ends with when `reason` stopped it before an answer. */
function stopFailureOf(
  reason: Stop,
  deadlineMs: number,
  fail: (kind: ModelFailure['kind'], detail: string) => ClassifyResult,
): ClassifyResult {
  return reason.kind === 'deadline'
    ? fail('timeout', `no answer within ${deadlineMs} ms`)
    : reason.kind === 'aborted'
      ? fail('runtime', 'cancelled')
      : fail('runtime', 'the session was closed')
}

export function createOpencodeRuntime(config: OpencodeRuntimeConfig, logger: Logger): ModelRuntime {
  const workDir = resolve(config.workDir)
  // One path for every classification: it is in the system message, so the cached prefix holds.
  const cwd = join(workDir, 'empty')
  const runsDir = config.runsDir === undefined ? join(workDir, 'runs') : resolve(config.runsDir)
  const opencodeBin = resolve(config.opencodeBin)
  const passEnv: PassEnv = pickPassEnv(config.passEnv)
  const runs = new Map<string, RunProcess>()
  const launch: Launch = { opencodeBin, cwd, runsDir, passEnv, config, logger }

  function processFor(spec: SessionSpec, acp: AcpProvider): RunProcess {
    const current = runs.get(spec.runId)
    if (current !== undefined && !current.dead) return current
    const run: RunProcess = {
      started: startRunProcess(launch, spec, acp),
      dead: false,
      inFlight: 0,
      idle: undefined,
      retired: current?.retired ?? [],
    }
    if (current !== undefined) clearTimeout(current.idle)
    runs.set(spec.runId, run)
    void run.started.then((launched) => {
      if (!launched.ok) {
        run.dead = true
        return
      }
      const proc = launched.value
      logger.debug('opencode process started', { run: spec.runId, pid: proc.pid, dir: proc.dirs.root })
      void proc.exited.then(() => {
        run.dead = true
        // A crash leaves the directory: the stop removes it (after `endRun`'s own stop, it is the same promise).
        run.retired.push(proc.stop())
      })
    })
    return run
  }

  function armIdle(runId: string, run: RunProcess, deadlineMs: number): void {
    clearTimeout(run.idle)
    run.idle = setTimeout(() => {
      if (runs.get(runId) !== run || run.inFlight > 0) return
      logger.warn('opencode process of a run stopped with no endRun after it', { run: runId })
      void endRun(runId)
    }, deadlineMs + IDLE_GRACE_MS)
    // The safety net must not keep the classifier alive on its own.
    run.idle.unref()
  }

  function open(spec: SessionSpec): ModelSession {
    const secrets = [spec.apiKey]
    const fail = (kind: ModelFailure['kind'], detail: string): ClassifyResult =>
      err({ kind, detail: shortDetail(detail, secrets) })
    const acp = spec.acp
    if (acp === null) return failing(fail('runtime', 'the ACP runtime needs a provider (acp) in the request'))
    if (spec.signal?.aborted === true) return failing(fail('runtime', 'cancelled'))

    let asked = false
    let closed = false
    let lastDeadlineMs = 0
    let onClosed: (() => void) | undefined
    const closing = new Promise<Stop>((resolveClose) => {
      onClosed = () => resolveClose({ kind: 'closed' })
    })
    let held: RunProcess | null = processFor(spec, acp)
    held.inFlight += 1
    clearTimeout(held.idle)

    /** The session stops holding its run's process: answered, failed or closed. */
    function letGo(): void {
      const run = held
      if (run === null) return
      held = null
      run.inFlight -= 1
      if (run.inFlight === 0 && runs.get(spec.runId) === run) armIdle(spec.runId, run, lastDeadlineMs)
    }

    /** `session/new` on a process of the run, as soon as it is up. */
    async function make(run: RunProcess): Promise<Result<Made, string> | Stop> {
      const launched = await Promise.race([run.started, closing])
      if ('kind' in launched) return launched
      if (!launched.ok) return err(launched.error)
      const proc = launched.value
      secrets.push(proc.serverPassword)
      const created = await Promise.race([newSession(proc, cwd), closing])
      if ('kind' in created) return created
      if (!created.ok) return err(created.error)
      logger.debug('opencode session made', { run: spec.runId, pid: proc.pid, session: created.value.sessionId })
      return ok({ proc, run, session: created.value })
    }
    const ahead = make(held)
    // Never left unhandled: a session closed unasked still settles it.
    void ahead.catch(() => undefined)

    async function ask(question: Question, options: AskOptions = {}): Promise<ClassifyResult> {
      if (asked) return fail('runtime', 'this session was asked already')
      asked = true
      if (closed) return fail('runtime', 'the session was closed')
      lastDeadlineMs = question.deadlineMs
      // ACP reads a prompt starting with "/" as a slash command and asks no model.
      if (question.context.startsWith('/')) {
        letGo()
        return fail('runtime', 'the shared context starts with "/", which opencode reads as a command')
      }
      const started = performance.now()
      const { stopped, stops } = whenStopped(question.deadlineMs, closing, spec.signal)
      const stopFailure = (reason: Stop) => stopFailureOf(reason, question.deadlineMs, fail)
      try {
        let made = await Promise.race([ahead, stopped])
        // Made ahead on a process that has died since: a new process of the run, and a session on it.
        if (!('kind' in made) && made.ok && made.value.run.dead && acp !== null) {
          letGo()
          held = processFor(spec, acp)
          held.inFlight += 1
          clearTimeout(held.idle)
          made = await Promise.race([make(held), stopped])
        }
        if ('kind' in made) return stopFailure(made)
        if (!made.ok) return fail('runtime', made.error)
        const { proc, session } = made.value
        const sessionId = session.sessionId
        logger.debug('opencode session starting', {
          run: spec.runId,
          pid: proc.pid,
          dir: proc.dirs.root,
          session: sessionId,
          repo: spec.labels.repo,
          pr: spec.labels.pr,
        })
        const answer = promptSession(proc, session, {
          model: spec.model,
          effort: spec.effort,
          context: question.context,
          question: question.question,
        })
        // The prompt's request is written; its provider call follows at once.
        options.onUnderway?.()
        const outcome = await Promise.race([answer, stopped])
        // Only this session stops: the run's others go on on the same process.
        if ('kind' in outcome) proc.connection.notify('session/cancel', { sessionId })
        logger.debug('opencode session ended', {
          run: spec.runId,
          pid: proc.pid,
          session: sessionId,
          wall_ms: Math.round(performance.now() - started),
          peak_rss_mib: await proc.peakRssMiB(),
          outcome: 'kind' in outcome ? outcome.kind : outcome.ok ? 'answered' : 'failed',
        })
        if ('kind' in outcome) return stopFailure(outcome)
        return outcome.ok ? ok(outcome.value) : fail('runtime', outcome.error)
      } catch (error) {
        return fail('runtime', `opencode runtime failed: ${describeError(error)}`)
      } finally {
        for (const clear of stops) clear()
        letGo()
      }
    }

    async function close(): Promise<void> {
      if (closed) return
      closed = true
      // An ask in flight is stopped (its session cancelled); a session made ahead and never asked
      // is left to the process, which the run's end stops.
      onClosed?.()
      if (!asked) letGo()
    }

    return { ask, close }
  }

  /** Stops the run's process (closing stdin, then the group kill) and removes its directory. */
  async function endRun(runId: string): Promise<void> {
    const run = runs.get(runId)
    if (run === undefined) return
    runs.delete(runId)
    clearTimeout(run.idle)
    const launched = await run.started
    if (launched.ok) {
      await launched.value.stop()
      logger.debug('opencode process stopped', { run: runId, pid: launched.value.pid })
    }
    await Promise.all(run.retired)
  }

  return { open, endRun } satisfies ModelRuntime
}

/** One line, capped, with every secret replaced, whatever opencode echoed back. */
export function shortDetail(text: string, secrets: readonly string[]): string {
  return capLine(redactSecrets(text, secrets), DETAIL_MAX_CHARS)
}
