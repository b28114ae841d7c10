/**
 * The ACP runtime: one `opencode acp` process per run, in a private
 * directory removed when the run ends; each classification is one prompt on
 * a fresh session of its own on that process.
 *
 * One process per run, not one per classification: bench/results/opencode.md
 * measured a run of 5–10 classifications at 18–31 % of the wall time, with
 * a fraction of the CPU and memory, and every session stayed independent
 * (each provider request carries only its own question). A deadline or an
 * abort cancels its own session (`session/cancel`) and leaves the process to
 * the run's other sessions. The process goes at `endRun`, which the service
 * calls once the run's classifications have all ended; one left with no
 * classification in flight for the deadline plus a minute is stopped anyway,
 * so a caller that forgets `endRun` leaks nothing for long. A process that
 * dies fails the sessions on it; the run's next classification starts another.
 */
import { mkdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { err, ok, type Result } from '../../core/result.ts'
import { capLine, redactSecrets } from '../../core/text.ts'
import type { AcpProvider } from '../../core/types.ts'
import type { Logger } from '../../ports/logger.ts'
import type { ClassifyInput, ClassifyResult, ModelFailure, ModelRuntime } from '../../ports/model-runtime.ts'
import { opencodeConfig, type PassEnv, pickPassEnv } from './config.ts'
import { type OpencodeProcess, startOpencodeProcess } from './process.ts'
import { askOnce, initializeAgent } from './session.ts'

export type OpencodeRuntimeConfig = {
  /** The `opencode` binary (`OPENCODE_BIN`). */
  opencodeBin: string
  /** `WORK_DIR`: holds the shared empty working directory and the per-run directories. */
  workDir: string
  /** The classifier's environment; only the proxy and CA variables are taken from it. */
  passEnv: Record<string, string | undefined>
}

/** Longest failure detail; enough for the status and the gist of the message. */
export const DETAIL_MAX_CHARS = 300

/** How long past the deadline a run's idle process waits for its `endRun` before it is stopped anyway. */
export const IDLE_GRACE_MS = 60_000

type Stop = { kind: 'deadline' } | { kind: 'aborted' }

type Launched = Result<OpencodeProcess, string>

/** A run's process: started by its first classification, shared by the rest. */
type RunProcess = {
  started: Promise<Launched>
  /** Set once the process exited or failed to start: the next classification starts another. */
  dead: boolean
  inFlight: number
  idle: ReturnType<typeof setTimeout> | undefined
  /** Stops of the run's earlier processes that died, so `endRun` waits for their directories to go. */
  retired: Array<Promise<void>>
}

export function createOpencodeRuntime(config: OpencodeRuntimeConfig, logger: Logger): ModelRuntime {
  const workDir = resolve(config.workDir)
  // One path for every classification: it is in the system message, so the cached prefix holds.
  const cwd = join(workDir, 'empty')
  const runsDir = join(workDir, 'runs')
  const opencodeBin = resolve(config.opencodeBin)
  const passEnv: PassEnv = pickPassEnv(config.passEnv)
  const runs = new Map<string, RunProcess>()

  /** Never rejects. The config comes from the run's first classification: a run's all share it. */
  async function start(input: ClassifyInput, acp: AcpProvider): Promise<Launched> {
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
            model: input.model,
            system: input.system,
            effort: input.effort,
          }),
          apiKey: input.apiKey,
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
      return err(`opencode runtime failed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  function processFor(input: ClassifyInput, acp: AcpProvider): RunProcess {
    const current = runs.get(input.runId)
    if (current !== undefined && !current.dead) return current
    const run: RunProcess = {
      started: start(input, acp),
      dead: false,
      inFlight: 0,
      idle: undefined,
      retired: current?.retired ?? [],
    }
    if (current !== undefined) clearTimeout(current.idle)
    runs.set(input.runId, run)
    void run.started.then((launched) => {
      if (!launched.ok) {
        run.dead = true
        return
      }
      const proc = launched.value
      logger.debug('opencode process started', { run: input.runId, pid: proc.pid, dir: proc.dirs.root })
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

  async function classify(input: ClassifyInput): Promise<ClassifyResult> {
    const secrets = [input.apiKey]
    const fail = (kind: ModelFailure['kind'], detail: string): ClassifyResult =>
      err({ kind, detail: shortDetail(detail, secrets) })
    const stopFailure = (stop: Stop): ClassifyResult =>
      stop.kind === 'deadline'
        ? fail('timeout', `no answer within ${input.deadlineMs} ms`)
        : fail('runtime', 'cancelled: the classifier is shutting down')
    const acp = input.acp
    if (acp === null) return fail('runtime', 'the ACP runtime needs a provider (acp) in the request')
    // ACP reads a prompt starting with "/" as a slash command and asks no model.
    if (input.context.startsWith('/'))
      return fail('runtime', 'the shared context starts with "/", which opencode reads as a command')
    if (input.signal?.aborted === true) return stopFailure({ kind: 'aborted' })

    const started = performance.now()
    const stops: Array<() => void> = []
    let stop: Stop | null = null
    const stopped = new Promise<Stop>((resolveStop) => {
      const settle = (reason: Stop) => {
        stop ??= reason
        resolveStop(reason)
      }
      const timer = setTimeout(() => settle({ kind: 'deadline' }), input.deadlineMs)
      stops.push(() => clearTimeout(timer))
      const signal = input.signal
      if (signal === undefined) return
      const onAbort = () => settle({ kind: 'aborted' })
      signal.addEventListener('abort', onAbort, { once: true })
      stops.push(() => signal.removeEventListener('abort', onAbort))
    })

    const run = processFor(input, acp)
    run.inFlight += 1
    clearTimeout(run.idle)
    try {
      const launched = await Promise.race([run.started, stopped])
      if ('kind' in launched) return stopFailure(launched)
      if (!launched.ok) return fail('runtime', launched.error)
      const proc = launched.value
      secrets.push(proc.serverPassword)
      logger.debug('opencode session starting', {
        run: input.runId,
        pid: proc.pid,
        dir: proc.dirs.root,
        repo: input.labels.repo,
        pr: input.labels.pr,
      })

      let sessionId: string | null = null
      const answer = askOnce(proc, {
        cwd,
        model: input.model,
        effort: input.effort,
        context: input.context,
        question: input.question,
        onSession: (id) => {
          sessionId = id
        },
        stopped: () => stop !== null,
      })
      const outcome = await Promise.race([answer, stopped])
      // Only this session stops: the run's others go on on the same process.
      if ('kind' in outcome && sessionId !== null) proc.connection.notify('session/cancel', { sessionId })
      logger.debug('opencode session ended', {
        run: input.runId,
        pid: proc.pid,
        session: sessionId,
        wall_ms: Math.round(performance.now() - started),
        peak_rss_mib: await proc.peakRssMiB(),
        outcome: 'kind' in outcome ? outcome.kind : outcome.ok ? 'answered' : 'failed',
      })
      if ('kind' in outcome) return stopFailure(outcome)
      return outcome.ok ? ok(outcome.value) : fail('runtime', outcome.error)
    } catch (error) {
      return fail('runtime', `opencode runtime failed: ${error instanceof Error ? error.message : String(error)}`)
    } finally {
      for (const clear of stops) clear()
      run.inFlight -= 1
      if (run.inFlight === 0 && runs.get(input.runId) === run) armIdle(input.runId, run, input.deadlineMs)
    }
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

  return { classify, endRun } satisfies ModelRuntime
}

/** One line, capped, with every secret replaced, whatever opencode echoed back. */
export function shortDetail(text: string, secrets: readonly string[]): string {
  return capLine(redactSecrets(text, secrets), DETAIL_MAX_CHARS)
}
