/**
 * A real `nats-server -js` for tests: loopback only, a free port chosen by
 * the server itself (`-p -1`, read back from its log, so two suites never
 * race for a probed port), and a temp store dir that survives `restart()`.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect, Empty } from '@nats-io/transport-node'
import type { Subprocess } from 'bun'
import { dieWithParent } from './cleanup.ts'

export type NatsServerOptions = {
  /** The server's `max_payload` in bytes; unset keeps the server default (1 MiB). 2.9 has no flag for it, so this writes a config file. */
  maxPayloadBytes?: number
  /** How long to wait for "Server is ready"; default 10 s. */
  readyTimeoutMs?: number
  /** A user and password every client must give (an `authorization` block in a config file); unset: anyone connects. */
  auth?: { user: string; password: string }
}

export type NatsServer = {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string
  readonly port: number
  /** The JetStream store dir, kept across `restart()`. */
  readonly storeDir: string
  /** Whether the process is up (between start/restart and stop). */
  isRunning(): boolean
  /** Stops the process and waits for it to exit; `SIGKILL` for a crash, `SIGTERM` (default) for a clean shutdown. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>
  /** Freezes the process (SIGSTOP): connections stay open but nothing answers, so calls time out instead of failing fast. */
  pause(): Promise<void>
  /** Thaws a paused server (SIGCONT). */
  resume(): void
  /** Starts the server again on the same port with the same store (stopping it first if it runs). */
  restart(): Promise<void>
  /** Stops the server and removes its temp dir. Safe to call twice. */
  cleanup(): Promise<void>
  /** The server's recent log lines, for a failing test's message. */
  logTail(): string
}

const readyLine = 'Server is ready'
const listenPattern = /Listening for client connections on [^\s]*:(\d+)/

function natsServerBinary(): string {
  return (
    Bun.which('nats-server') ??
    Bun.which('nats-server', { PATH: '/usr/sbin:/usr/local/sbin:/usr/bin' }) ??
    '/usr/sbin/nats-server'
  )
}

type Running = { process: Subprocess<'ignore', 'ignore', 'pipe'>; port: number }

type Auth = NatsServerOptions['auth']

/** Spawns the server and resolves once it logged "ready", a TCP connect succeeds and JetStream answers. */
async function spawnServer(args: string[], log: string[], readyTimeoutMs: number, auth: Auth): Promise<Running> {
  const process = Bun.spawn(dieWithParent([natsServerBinary(), ...args]), {
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'pipe',
  })
  let port = 0
  let resolveReady: () => void = () => {}
  let rejectReady: (error: Error) => void = () => {}
  const readySignal = new Promise<void>((resolve, reject) => {
    resolveReady = resolve
    rejectReady = reject
  })
  const reading = (async () => {
    const decoder = new TextDecoder()
    let pending = ''
    let isReady = false
    // Keep reading after "ready" so the pipe never fills and blocks the server.
    for await (const chunk of process.stderr) {
      pending += decoder.decode(chunk, { stream: true })
      const lines = pending.split('\n')
      pending = lines.pop() ?? ''
      for (const line of lines) {
        log.push(line)
        if (log.length > 200) log.shift()
        const listening = listenPattern.exec(line)
        if (listening?.[1] !== undefined) port = Number(listening[1])
        if (!isReady && line.includes(readyLine)) {
          isReady = true
          resolveReady()
        }
      }
    }
    if (!isReady) rejectReady(new Error(`nats-server exited before it was ready:\n${log.slice(-20).join('\n')}`))
  })()
  void reading.catch((error: unknown) => rejectReady(error instanceof Error ? error : new Error(String(error))))
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    await Promise.race([
      readySignal,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`nats-server not ready within ${readyTimeoutMs} ms:\n${log.slice(-20).join('\n')}`)),
          readyTimeoutMs,
        )
      }),
    ])
  } catch (error) {
    process.kill('SIGKILL')
    await process.exited
    throw error
  } finally {
    clearTimeout(timer)
  }
  if (port === 0) {
    process.kill('SIGKILL')
    await process.exited
    throw new Error(`nats-server did not log its port:\n${log.slice(-20).join('\n')}`)
  }
  try {
    await waitForTcp(port, readyTimeoutMs)
    await waitForJetStream(port, auth, readyTimeoutMs)
  } catch (error) {
    process.kill('SIGKILL')
    await process.exited
    throw error
  }
  return { process, port }
}

/**
 * Waits until the JetStream API answers a request. A 2.9 server that has just
 * logged "ready" now and then drops the first API requests of connections
 * made at once on a loaded machine (measured: 2 to 3 rounds in 1,500 of two
 * connections opening a bucket on a fresh server, each request waiting out its
 * whole timeout); a test's clients start once one request got through.
 */
async function waitForJetStream(port: number, auth: Auth, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  const connection = await connect({
    servers: `127.0.0.1:${port}`,
    reconnect: false,
    ...(auth === undefined ? {} : { user: auth.user, pass: auth.password }),
  })
  try {
    for (;;) {
      try {
        await connection.request('$JS.API.INFO', Empty, { timeout: 1000 })
        return
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`nats-server's JetStream did not answer within ${timeoutMs} ms`, { cause: error })
        await Bun.sleep(10)
      }
    }
  } finally {
    await connection.close()
  }
}

async function waitForTcp(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      const socket = await Bun.connect({ hostname: '127.0.0.1', port, socket: { data() {} } })
      socket.end()
      return
    } catch (error) {
      if (Date.now() > deadline) throw error
      await Bun.sleep(10)
    }
  }
}

/** SIGSTOP takes effect asynchronously; until the state is `T` the server may still answer. Linux `/proc` only, else a short wait. */
async function waitUntilStopped(pid: number): Promise<void> {
  const deadline = Date.now() + 5000
  while (Date.now() < deadline) {
    let stat: string
    try {
      stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    } catch {
      await Bun.sleep(100)
      return
    }
    // The state follows the parenthesised command name: "pid (comm) T ...".
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')) return
    await Bun.sleep(5)
  }
}

export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const readyTimeoutMs = options.readyTimeoutMs ?? 10_000
  const dir = await mkdtemp(join(tmpdir(), 'rc-nats-'))
  const storeDir = join(dir, 'store')
  const configArgs: string[] = []
  const configLines = [
    ...(options.maxPayloadBytes === undefined ? [] : [`max_payload: ${options.maxPayloadBytes}`]),
    ...(options.auth === undefined
      ? []
      : [
          `authorization { user: ${JSON.stringify(options.auth.user)}, password: ${JSON.stringify(options.auth.password)} }`,
        ]),
  ]
  if (configLines.length > 0) {
    const configFile = join(dir, 'nats.conf')
    await writeFile(configFile, `${configLines.join('\n')}\n`)
    configArgs.push('-c', configFile)
  }
  const log: string[] = []
  function argsFor(port: number): string[] {
    return [...configArgs, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir]
  }

  let running: Running | null
  try {
    running = await spawnServer(argsFor(-1), log, readyTimeoutMs, options.auth)
  } catch (error) {
    await rm(dir, { recursive: true, force: true })
    throw error
  }
  const port = running.port
  let removed = false
  let paused = false

  async function stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const current = running
    running = null
    if (current === null) return
    current.process.kill(signal)
    // A paused process only acts on SIGTERM once continued.
    if (paused) current.process.kill('SIGCONT')
    paused = false
    await current.process.exited
  }

  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    isRunning: () => running !== null,
    stop,
    async pause() {
      if (running === null) return
      running.process.kill('SIGSTOP')
      paused = true
      await waitUntilStopped(running.process.pid)
    },
    resume() {
      if (running === null) return
      running.process.kill('SIGCONT')
      paused = false
    },
    async restart() {
      await stop()
      running = await spawnServer(argsFor(port), log, readyTimeoutMs, options.auth)
    },
    async cleanup() {
      await stop('SIGKILL')
      if (removed) return
      removed = true
      await rm(dir, { recursive: true, force: true })
    },
    logTail: () => log.slice(-40).join('\n'),
  } satisfies NatsServer
}
