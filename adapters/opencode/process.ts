/**
 * One `opencode acp` process in a private directory of its own: the dirs,
 * the plugin seed and our config written before the start, the process
 * leading its own process group so stopping it leaves nothing behind, and
 * the directory removed when it stops, whatever happened before.
 *
 * A process carries several sessions (`subscribe` routes each session's
 * updates): the runtime runs all of a run's classifications on one.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { describeError } from '../../core/base/errors.ts'
import { err, ok, type Result } from '../../core/base/result.ts'
import type { Logger } from '../../ports/logger.ts'
import type { ProcessRecords } from '../process/records.ts'
import { type AcpConnection, createAcpConnection, METHOD_NOT_FOUND } from './acp-client.ts'
import { opencodeEnv, type PassEnv, PLUGIN_SEED_FILES, type RunDirs, runDirs } from './config.ts'

/** How long a process may take to exit after its stdin closes (it takes ~100 ms) before it is killed. */
const EXIT_GRACE_MS = 500
const KILL_WAIT_MS = 2_000
const STDERR_TAIL_CHARS = 2_000

export type OpencodeProcessConfig = {
  opencodeBin: string
  /** The shared, empty working directory: its path is in the system message. */
  cwd: string
  /** Where the private directory is made. */
  runsDir: string
  passEnv: PassEnv
  /** Our config, written to the file `OPENCODE_CONFIG` names. */
  config: Record<string, unknown>
  apiKey: string
  /** Where the process group is recorded while it lives (see adapters/process/records.ts). */
  records?: ProcessRecords
}

export type SessionUpdateListener = (update: unknown) => void

export type OpencodeProcess = {
  pid: number
  dirs: RunDirs
  connection: AcpConnection
  /** The per-process secret besides the key, to be redacted like it. */
  serverPassword: string
  /** Settles when the process has exited, whatever the cause; never rejects. */
  exited: Promise<void>
  /** Routes `session/update` notifications of one session; returns the unsubscribe. */
  subscribe(sessionId: string, listener: SessionUpdateListener): () => void
  /** Peak resident memory so far (VmHWM), where /proc has it. */
  peakRssMiB(): Promise<number | null>
  /** Closes stdin, kills the process group if it lingers, removes the private directory. Never rejects. */
  stop(): Promise<void>
}

const UpdateNotification = Type.Object({ sessionId: Type.String(), update: Type.Unknown() })
const PermissionRequest = Type.Object({
  options: Type.Array(Type.Object({ optionId: Type.String(), kind: Type.String() })),
})

export async function startOpencodeProcess(
  config: OpencodeProcessConfig,
  logger: Logger,
): Promise<Result<OpencodeProcess, string>> {
  let dirs: RunDirs | null = null
  try {
    await mkdir(config.runsDir, { recursive: true })
    dirs = runDirs(await mkdtemp(join(config.runsDir, 'opencode-')))
    for (const dir of [
      dirs.home,
      join(dirs.opencodeConfig, 'node_modules'),
      dirs.data,
      dirs.state,
      dirs.cache,
      dirs.tmp,
    ]) {
      await mkdir(dir, { recursive: true })
    }
    for (const file of PLUGIN_SEED_FILES) await writeFile(join(dirs.opencodeConfig, file.path), file.text)
    await writeFile(dirs.configFile, JSON.stringify(config.config, null, 2), { mode: 0o600 })
  } catch (error) {
    if (dirs !== null) await rm(dirs.root, { recursive: true, force: true }).catch(() => undefined)
    return err(`could not prepare opencode's directory: ${describeError(error)}`)
  }
  return ok(spawnIn(dirs, config, logger))
}

function spawnIn(dirs: RunDirs, config: OpencodeProcessConfig, logger: Logger): OpencodeProcess {
  const serverPassword = randomBytes(24).toString('base64url')
  const child = spawn(config.opencodeBin, ['acp'], {
    cwd: config.cwd,
    env: opencodeEnv({ dirs, apiKey: config.apiKey, serverPassword, passEnv: config.passEnv }),
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group, so the group kill reaches anything it starts.
    detached: true,
  })
  // At once, before anything is awaited: a classifier killed from here on leaves a record.
  const unrecord =
    child.pid === undefined
      ? () => undefined
      : (config.records?.add({ pid: child.pid, runtime: 'opencode' }) ?? (() => undefined))
  logger.debug('opencode process spawned', { pid: child.pid ?? null, dir: dirs.root })
  const listeners = new Map<string, SessionUpdateListener>()
  let stderrTail = ''
  let exited = false
  const exit = new Promise<void>((resolve) => {
    child.once('close', (code, signal) => {
      exited = true
      const tail = stderrTail.trim().split('\n').slice(-3).join(' ')
      connection.close(`opencode exited (${code ?? signal})${tail === '' ? '' : `: ${tail}`}`)
      resolve()
    })
    child.once('error', (error) => {
      exited = true
      connection.close(`opencode could not start: ${error.message}`)
      resolve()
    })
  })

  const connection = createAcpConnection(
    (line) => {
      if (child.stdin.writable) child.stdin.write(line)
    },
    {
      onNotification(method, params) {
        if (method !== 'session/update' || !Value.Check(UpdateNotification, params)) return
        listeners.get(params.sessionId)?.(params.update)
      },
      onRequest(method, params) {
        if (method !== 'session/request_permission')
          return err({ code: METHOD_NOT_FOUND, message: `${method} is not offered` })
        // Deny-all means none should come; any that does is refused.
        logger.warn('opencode asked for a permission, refused', { pid: child.pid })
        const reject = Value.Check(PermissionRequest, params)
          ? params.options.find((option) => option.kind.startsWith('reject'))
          : undefined
        return ok({
          outcome: reject === undefined ? { outcome: 'cancelled' } : { outcome: 'selected', optionId: reject.optionId },
        })
      },
    },
  )
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => connection.receive(chunk))
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS)
  })
  child.stdin.on('error', () => undefined) // a write after exit; `close` reports the exit

  const pid = child.pid ?? -1

  function killGroup(): void {
    if (pid <= 0) return
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {
      // ESRCH: the group is already gone
    }
  }

  async function waitExit(ms: number): Promise<boolean> {
    if (exited) return true
    let timer: ReturnType<typeof setTimeout> | undefined
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms)
    })
    const done = await Promise.race([exit.then(() => true as const), timedOut])
    clearTimeout(timer)
    return done
  }

  let stopping: Promise<void> | null = null
  return {
    pid,
    dirs,
    connection,
    serverPassword,
    exited: exit,
    subscribe(sessionId, listener) {
      listeners.set(sessionId, listener)
      return () => listeners.delete(sessionId)
    },
    async peakRssMiB() {
      if (exited || pid <= 0) return null
      const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')
      const kib = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]
      return kib === undefined ? null : Math.round(Number(kib) / 1024)
    },
    stop() {
      stopping ??= (async () => {
        // Closing stdin ends opencode cleanly, even mid-prompt.
        child.stdin.end()
        if (!(await waitExit(EXIT_GRACE_MS))) {
          killGroup()
          await waitExit(KILL_WAIT_MS)
        }
        killGroup()
        if (exited) unrecord()
        await rm(dirs.root, { recursive: true, force: true }).catch((error: unknown) => {
          logger.warn('opencode directory not removed', {
            dir: dirs.root,
            error: describeError(error),
          })
        })
      })()
      return stopping
    },
  } satisfies OpencodeProcess
}
