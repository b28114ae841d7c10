/**
 * The API key runtime: each classification is one `claude --print`, fed one
 * stream-json user message on stdin, in a private HOME and TMPDIR that are
 * removed after it, in one empty working directory every classification
 * shares (the CLI writes that path into the request; one path keeps the
 * request the same across classifications).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { err } from '../../core/result.ts'
import type { Logger } from '../../ports/logger.ts'
import type { ClassifyInput, ClassifyResult, ModelRuntime } from '../../ports/model-runtime.ts'
import { claudeArgs, claudeEnv, claudeStdinLine, DEFAULT_MAX_RETRIES, type PassEnv } from './invocation.ts'
import { failureDetail, outcomeOf } from './outcome.ts'
import { endProcessGroup, feedStdin, readTail, type StopReason, waitForGroupGone } from './process.ts'

export type ClaudeRuntimeConfig = {
  /** The `claude` binary (the pinned native one in the project's node_modules). */
  claudeBin: string
  /** Where the per-classification HOME/TMPDIR directories live. */
  workDir: string
  /** The empty working directory all classifications share; default `<workDir>/cwd`. */
  sharedCwd?: string
  /** The classifier's pass-through variables (see `pickPassEnv`). */
  passEnv: PassEnv
  /** The OTLP/gRPC collector; telemetry is off when unset. */
  otlpEndpoint?: string
  /** The CLI's API retries per classification; default {@link DEFAULT_MAX_RETRIES}. */
  maxRetries?: number
  /** How long a process group has between SIGTERM and SIGKILL; default 1500 ms. */
  killGraceMs?: number
}

const STDERR_TAIL_CHARS = 2_000
const DEFAULT_KILL_GRACE_MS = 1_500
const GROUP_GONE_WAIT_MS = 1_000

export function createClaudeRuntime(config: ClaudeRuntimeConfig, logger: Logger): ModelRuntime {
  const sharedCwd = config.sharedCwd ?? join(config.workDir, 'cwd')
  const maxRetries = config.maxRetries ?? DEFAULT_MAX_RETRIES
  const killGraceMs = config.killGraceMs ?? DEFAULT_KILL_GRACE_MS
  let prepared: Promise<void> | null = null

  function prepare(): Promise<void> {
    prepared ??= (async () => {
      await mkdir(config.workDir, { recursive: true })
      await mkdir(sharedCwd, { recursive: true })
    })().catch((error: unknown) => {
      prepared = null // a later classification tries again
      throw error
    })
    return prepared
  }

  async function classify(input: ClassifyInput): Promise<ClassifyResult> {
    if (input.signal?.aborted) return err({ kind: 'runtime', detail: 'cancelled' })
    let sessionDir: string | null = null
    try {
      await prepare()
      sessionDir = await mkdtemp(join(config.workDir, 'session-'))
      const home = join(sessionDir, 'home')
      const tmpDir = join(sessionDir, 'tmp')
      await Promise.all([mkdir(home), mkdir(tmpDir)])
      return await runSession(input, home, tmpDir)
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      return err({ kind: 'runtime', detail: failureDetail(`could not run claude: ${message}`, input.apiKey) })
    } finally {
      if (sessionDir !== null) {
        await rm(sessionDir, { recursive: true, force: true }).catch((error: unknown) => {
          logger.warn('claude session directory not removed', { dir: sessionDir, error: String(error) })
        })
      }
    }
  }

  async function runSession(input: ClassifyInput, home: string, tmpDir: string): Promise<ClassifyResult> {
    const started = performance.now()
    const child = Bun.spawn([config.claudeBin, ...claudeArgs(input)], {
      cwd: sharedCwd,
      env: claudeEnv({
        home,
        tmpDir,
        apiKey: input.apiKey,
        passEnv: config.passEnv,
        labels: input.labels,
        otlpEndpoint: config.otlpEndpoint,
        maxRetries,
      }),
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      // Its own process group, so the deadline ends whatever it started too.
      detached: true,
    })
    const fields = { repo: input.labels.repo, pr: input.labels.pr, pid: child.pid }
    logger.debug('claude session started', fields)

    let stopReason: StopReason | null = null
    let killTimer: ReturnType<typeof setTimeout> | undefined
    function stop(reason: StopReason) {
      if (stopReason !== null) return
      stopReason = reason
      endProcessGroup(child.pid, 'SIGTERM')
      killTimer = setTimeout(() => endProcessGroup(child.pid, 'SIGKILL'), killGraceMs)
    }
    const deadline = setTimeout(() => stop('timeout'), input.deadlineMs)
    const onAbort = () => stop('cancelled')
    input.signal?.addEventListener('abort', onAbort, { once: true })
    if (input.signal?.aborted) stop('cancelled')

    const stdout = new Response(child.stdout).text()
    const stderrTail = readTail(child.stderr, STDERR_TAIL_CHARS)
    feedStdin(child.stdin, claudeStdinLine(input.context, input.question))
    try {
      await child.exited
    } finally {
      clearTimeout(deadline)
      clearTimeout(killTimer)
      input.signal?.removeEventListener('abort', onAbort)
      // Anything the CLI left running in its group goes with it.
      endProcessGroup(child.pid, 'SIGKILL')
    }
    if (!(await waitForGroupGone(child.pid, GROUP_GONE_WAIT_MS)))
      logger.warn('claude process group still alive after SIGKILL', fields)
    const exit = {
      exitCode: child.exitCode,
      signalCode: child.signalCode,
      stdout: await stdout,
      stderrTail: await stderrTail,
    }
    const result: ClassifyResult =
      stopReason === 'timeout'
        ? err({ kind: 'timeout', detail: `no answer within ${input.deadlineMs} ms` })
        : stopReason === 'cancelled'
          ? err({ kind: 'runtime', detail: 'cancelled' })
          : outcomeOf(exit, input.apiKey)
    logger.debug('claude session ended', {
      ...fields,
      outcome: result.ok ? 'answered' : (stopReason ?? 'failed'),
      exit_code: exit.exitCode,
      signal: exit.signalCode,
      wall_ms: Math.round(performance.now() - started),
      max_rss_bytes: child.resourceUsage()?.maxRSS ?? null,
    })
    return result
  }

  // Each classification is its own process, gone when it answers: a run keeps nothing.
  async function endRun(_runId: string): Promise<void> {}

  return { classify, endRun } satisfies ModelRuntime
}
