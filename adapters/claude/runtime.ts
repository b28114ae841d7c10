/**
 * The API key runtime, and on a subscription's OAuth token the subscription
 * runtime (the same CLI, another credential variable): each session is one `claude --print`, in a private
 * HOME and TMPDIR that are removed after it, in one empty working directory
 * every session shares (the CLI writes that path into the request; one path
 * keeps the request the same across classifications).
 *
 * A session's process is spawned when the session is opened and left
 * waiting on its stdin: the CLI's start-up (~0.3 s of its ~0.4 s) happens
 * before it is needed, and the one stream-json line goes in when the session
 * is asked (docs/runtimes.md, "Start-up time and memory"). The deadline
 * counts from the ask. A session closed unasked has its process group
 * ended like any other.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { describeError } from '../../core/base/errors.ts'
import { err } from '../../core/base/result.ts'
import type { Logger } from '../../ports/logger.ts'
import type {
  AskOptions,
  ClassifyResult,
  ModelRuntime,
  ModelSession,
  Question,
  SessionSpec,
} from '../../ports/model-runtime.ts'
import type { ProcessRecords } from '../process/records.ts'
import {
  type ClaudeCredential,
  claudeArgs,
  claudeEnv,
  claudeStdinLine,
  DEFAULT_MAX_RETRIES,
  type PassEnv,
} from './invocation.ts'
import { failureDetail, outcomeOf } from './outcome.ts'
import { endProcessGroup, feedStdin, readTail, type StopReason, waitForGroupGone } from './process.ts'

export type ClaudeRuntimeConfig = {
  /** The `claude` binary (the pinned native one in the project's node_modules). */
  claudeBin: string
  /** What the session spec's key is: default `api-key`; the subscription runtime's is `oauth-token`. */
  credential?: ClaudeCredential
  /** Where the per-session HOME/TMPDIR directories live. */
  workDir: string
  /** The empty working directory all sessions share; default `<workDir>/cwd`. */
  sharedCwd?: string
  /** The classifier's pass-through variables (see `pickPassEnv`). */
  passEnv: PassEnv
  /** The OTLP/gRPC collector; telemetry is off when unset. */
  otlpEndpoint?: string
  /** The CLI's API retries per classification; default {@link DEFAULT_MAX_RETRIES}. */
  maxRetries?: number
  /** How long a process group has between SIGTERM and SIGKILL; default 1500 ms. */
  killGraceMs?: number
  /** Where each live process group is recorded, so a classifier killed with it in hand has it ended at the next start. */
  records?: ProcessRecords
}

const STDERR_TAIL_CHARS = 2_000
const DEFAULT_KILL_GRACE_MS = 1_500
const GROUP_GONE_WAIT_MS = 1_000

/** What the process printed: the full text for the outcome, and when its first line came (it prints none before it reads its stdin). */
type Output = { text: Promise<string>; firstLine: Promise<boolean> }

/** Reads stdout to its end, telling when the first line (the CLI's `system`/`init`) is in, or that none came. */
function readOutput(stream: ReadableStream<Uint8Array>): Output {
  let sawLine: (seen: boolean) => void = () => undefined
  const firstLine = new Promise<boolean>((resolve) => {
    sawLine = resolve
  })
  const text = (async () => {
    const decoder = new TextDecoder()
    let out = ''
    for await (const chunk of stream) {
      out += decoder.decode(chunk, { stream: true })
      if (out.includes('\n')) sawLine(true)
    }
    out += decoder.decode()
    sawLine(false)
    return out
  })()
  return { text, firstLine }
}

type Started = {
  child: Subprocess<'pipe', 'pipe', 'pipe'>
  output: Output
  stderrTail: Promise<string>
  /** Settles once the process has exited and its group was sent SIGKILL: the outcome is known. */
  exited: Promise<void>
  /** Settles once, after that, the group is gone and the directory removed. */
  finished: Promise<void>
}

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
      prepared = null // a later session tries again
      throw error
    })
    return prepared
  }

  function open(spec: SessionSpec): ModelSession {
    const fields = { repo: spec.labels.repo, pr: spec.labels.pr }
    let stopReason: StopReason | null = null
    let closed = false
    let asked = false
    let finishedAlready = false
    let killTimer: ReturnType<typeof setTimeout> | undefined
    let started: Started | null = null
    const openedAt = performance.now()

    function stop(reason: StopReason): void {
      if (stopReason !== null || finishedAlready) return
      stopReason = reason
      if (started === null) return // not spawned yet: the start sees the reason and spawns nothing
      const pid = started.child.pid
      endProcessGroup(pid, 'SIGTERM')
      killTimer = setTimeout(() => endProcessGroup(pid, 'SIGKILL'), killGraceMs)
    }
    const onAbort = () => stop('cancelled')
    spec.signal?.addEventListener('abort', onAbort, { once: true })
    const detach = () => spec.signal?.removeEventListener('abort', onAbort)

    async function removeDir(dir: string): Promise<void> {
      await rm(dir, { recursive: true, force: true }).catch((error: unknown) => {
        logger.warn('claude session directory not removed', { dir, error: describeError(error) })
      })
    }

    /** Spawns the process in its private directories; a string is why it could not. Never rejects. */
    const starting: Promise<Started | string> = (async () => {
      if (spec.signal?.aborted) stop('cancelled')
      let sessionDir: string | null = null
      try {
        if (stopReason !== null) return 'cancelled'
        await prepare()
        sessionDir = await mkdtemp(join(config.workDir, 'session-'))
        const home = join(sessionDir, 'home')
        const tmpDir = join(sessionDir, 'tmp')
        await Promise.all([mkdir(home), mkdir(tmpDir)])
        // Closed or stopped while the directories were made: nothing is spawned.
        if (stopReason !== null) {
          await removeDir(sessionDir)
          return 'cancelled'
        }
        const child = Bun.spawn([config.claudeBin, ...claudeArgs(spec)], {
          cwd: sharedCwd,
          env: claudeEnv({
            home,
            tmpDir,
            apiKey: spec.apiKey,
            credential: config.credential ?? 'api-key',
            passEnv: config.passEnv,
            labels: spec.labels,
            otlpEndpoint: config.otlpEndpoint,
            maxRetries,
            maxOutputTokens: spec.maxOutputTokens,
          }),
          stdin: 'pipe',
          stdout: 'pipe',
          stderr: 'pipe',
          // Its own process group, so the deadline ends whatever it started too.
          detached: true,
        })
        // At once, before anything is awaited: a classifier killed from here on leaves a record.
        const unrecord = config.records?.add({ pid: child.pid, runtime: 'claude' }) ?? (() => undefined)
        logger.debug('claude session started', { ...fields, pid: child.pid })
        const dir = sessionDir
        const exited = (async () => {
          try {
            await child.exited
          } finally {
            finishedAlready = true
            clearTimeout(killTimer)
            // Anything the CLI left running in its group goes with it.
            endProcessGroup(child.pid, 'SIGKILL')
          }
        })()
        // The clean-up is off the answer's path: `close` waits for it.
        const finished = (async () => {
          await exited
          if (await waitForGroupGone(child.pid, GROUP_GONE_WAIT_MS)) unrecord()
          else logger.warn('claude process group still alive after SIGKILL', { ...fields, pid: child.pid })
          await removeDir(dir)
          detach()
        })()
        started = {
          child,
          output: readOutput(child.stdout),
          stderrTail: readTail(child.stderr, STDERR_TAIL_CHARS),
          exited,
          finished,
        }
        return started
      } catch (error) {
        if (sessionDir !== null) await removeDir(sessionDir)
        const message = describeError(error)
        return failureDetail(`could not run claude: ${message}`, spec.apiKey)
      } finally {
        if (started === null) detach()
      }
    })()

    async function ask(question: Question, options: AskOptions = {}): Promise<ClassifyResult> {
      if (asked) return err({ kind: 'runtime', detail: 'this session was asked already' })
      asked = true
      const session = await starting
      if (typeof session === 'string') return err({ kind: 'runtime', detail: session })
      const { child } = session
      if (stopReason !== null) {
        await session.exited
        return err({ kind: 'runtime', detail: 'cancelled' })
      }
      const askedAt = performance.now()
      const deadline = setTimeout(() => stop('timeout'), question.deadlineMs)
      void session.output.firstLine.then((seen) => {
        if (seen && stopReason === null) options.onUnderway?.()
      })
      feedStdin(child.stdin, claudeStdinLine(question.context, question.question))
      logger.debug('claude question sent', { ...fields, pid: child.pid })
      try {
        await session.exited
      } finally {
        clearTimeout(deadline)
      }
      const exit = {
        exitCode: child.exitCode,
        signalCode: child.signalCode,
        stdout: await session.output.text,
        stderrTail: await session.stderrTail,
      }
      const result: ClassifyResult =
        stopReason === 'timeout'
          ? err({ kind: 'timeout', detail: `no answer within ${question.deadlineMs} ms` })
          : stopReason === 'cancelled'
            ? err({ kind: 'runtime', detail: 'cancelled' })
            : outcomeOf(exit, spec.apiKey)
      logger.debug('claude session ended', {
        ...fields,
        pid: child.pid,
        outcome: result.ok ? 'answered' : (stopReason ?? 'failed'),
        exit_code: exit.exitCode,
        signal: exit.signalCode,
        wall_ms: Math.round(performance.now() - askedAt),
        waited_ms: Math.round(askedAt - openedAt),
        max_rss_bytes: child.resourceUsage()?.maxRSS ?? null,
      })
      return result
    }

    async function close(): Promise<void> {
      if (!closed) {
        closed = true
        // Not asked, or asked and still running: its process goes now. Finished: nothing to stop.
        stop('cancelled')
      }
      const session = await starting
      if (typeof session === 'string') return
      await session.finished
      if (!asked) logger.debug('claude session closed unasked', { ...fields, pid: session.child.pid })
    }

    return { ask, close }
  }

  // Each session is its own process, gone when it ends: a run keeps nothing.
  async function endRun(_runId: string): Promise<void> {}

  return { open, endRun } satisfies ModelRuntime
}
