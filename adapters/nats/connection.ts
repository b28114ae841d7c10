/**
 * The one NATS connection a process holds, shared by the KV and queue
 * adapters. It reconnects forever (the client's default gives up after ~19 s
 * of outage and closes for good, docs/infra.md §A4), but the first connect is
 * bounded so a process started without NATS says so instead of hanging.
 */
import { readFileSync } from 'node:fs'
import {
  AuthorizationError,
  type ConnectionOptions,
  connect,
  credsAuthenticator,
  type NatsConnection,
  type Status,
} from '@nats-io/transport-node'
import { appError } from '../../core/base/errors.ts'
import { err, ok, type Result } from '../../core/base/result.ts'
import type { Logger } from '../../ports/logger.ts'

/**
 * How the connection proves who it is: nothing (a server that takes anyone),
 * a user and password, a token, or a `.creds` file's user JWT and NKEY seed
 * (read once, at start). The client ignores credentials written in the
 * server URL, so config.ts takes them out of `NATS_URL` into one of these.
 */
export type NatsAuth =
  | { kind: 'none' }
  | { kind: 'user'; user: string; password: string }
  | { kind: 'token'; token: string }
  | { kind: 'creds'; path: string; creds: Uint8Array }

export type NatsConnectConfig = {
  /** `nats://host:port`, possibly with credentials; they never reach a log line or an error. */
  url: string
  /** Default `none`. */
  auth?: NatsAuth
  /** The connection's name, as the server's monitoring shows it (`review-classifier`, `swarm-controller`). */
  name: string
  /** How long to keep trying the first connect before failing with `unavailable`. */
  firstConnectTimeoutMs: number
  /** The wait between reconnect attempts after a disconnect; default 2000 ms (the client's). */
  reconnectTimeWaitMs?: number
  logger: Logger
}

export type NatsClient = {
  readonly connection: NatsConnection
  /**
   * Connected now: not between a disconnect and the reconnect, not draining, not closed. For `/readyz` and to
   * fail fast instead of waiting out a timeout.
   */
  isConnected(): boolean
  /** The URL without credentials, for messages. */
  readonly safeUrl: string
  /**
   * Resolves `true` once connected: at once when it is, else at the next
   * reconnect (the client's status event, no polling); `false` when the
   * connection closes for good, `signal` aborts, or `timeoutMs` passes first.
   */
  whenConnected(options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<boolean>
  /**
   * Drains (subscriptions finish, pending writes flush), then closes; force-closes after `timeoutMs` (default
   * 5000), e.g. while the server is down.
   */
  close(timeoutMs?: number): Promise<void>
}

/** Drops `user:pass@` or `token@` from a server URL. */
export function redactNatsUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^@/]*@/i, '$1')
}

/**
 * The credentials written in a server URL (`nats://user:pass@host`, or
 * `nats://token@host`), percent-decoded; `none` without any. The client
 * doesn't read them itself: connectNats sends them this way.
 */
export function natsUrlAuth(url: string): NatsAuth {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { kind: 'none' }
  }
  const user = decodeURIComponent(parsed.username)
  const password = decodeURIComponent(parsed.password)
  if (user === '' && password === '') return { kind: 'none' }
  if (password === '' && !url.slice(0, url.indexOf('@')).endsWith(':')) return { kind: 'token', token: user }
  return { kind: 'user', user, password }
}

/** Between first-connect attempts: short, since a refused connect answers in milliseconds. */
const firstConnectRetryMs = 250

/** A `.creds` file's bytes, checked to hold a user JWT and an NKEY seed that signs; the problem as a line naming `name`. */
export function readNatsCreds(name: string, path: string): Result<Uint8Array, string> {
  let creds: Uint8Array
  try {
    creds = readFileSync(path)
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'read failed'
    return err(`${name} ${path} can't be read (${code === 'ENOENT' ? 'it does not exist' : code})`)
  }
  try {
    credsAuthenticator(creds)('check')
  } catch {
    return err(`${name} ${path} is not a NATS credentials file (a user JWT and an NKEY seed, as nsc writes it)`)
  }
  return ok(creds)
}

function authOptions(auth: NatsAuth): Partial<ConnectionOptions> {
  switch (auth.kind) {
    case 'none':
      return {}
    case 'user':
      return { user: auth.user, pass: auth.password }
    case 'token':
      return { token: auth.token }
    case 'creds':
      return { authenticator: credsAuthenticator(auth.creds) }
  }
}

export async function connectNats(config: NatsConnectConfig): Promise<NatsClient> {
  const { logger } = config
  const safeUrl = redactNatsUrl(config.url)
  const given = config.auth ?? { kind: 'none' }
  const auth = given.kind === 'none' ? natsUrlAuth(config.url) : given
  const deadline = Date.now() + config.firstConnectTimeoutMs
  let lastError: unknown = null
  let connection: NatsConnection | null = null
  // Our own retry loop rather than `waitOnFirstConnect`: that one retries
  // forever and can't be cancelled, so a deadline on top would leak it.
  while (connection === null) {
    const remaining = deadline - Date.now()
    if (remaining <= 0) break
    try {
      connection = await connect({
        servers: safeUrl,
        ...authOptions(auth),
        name: config.name,
        maxReconnectAttempts: -1,
        reconnectTimeWait: config.reconnectTimeWaitMs ?? 2000,
        timeout: Math.max(1, remaining),
      })
    } catch (error) {
      lastError = error
      // Wrong or missing credentials won't come right by trying again.
      if (error instanceof AuthorizationError) break
      const wait = Math.min(firstConnectRetryMs, deadline - Date.now())
      if (wait > 0) await Bun.sleep(wait)
    }
  }
  if (connection === null) {
    const reason = lastError instanceof Error ? redactNatsUrl(lastError.message) : 'no attempt finished'
    const refused = lastError instanceof AuthorizationError
    logger.error('nats first connect failed', {
      url: safeUrl,
      timeout_ms: config.firstConnectTimeoutMs,
      reason,
      auth: auth.kind,
    })
    throw appError(
      'unavailable',
      refused
        ? `NATS at ${safeUrl} refused the connection's credentials (${reason}; ${describeAuth(auth)})`
        : `could not connect to NATS at ${safeUrl} within ${config.firstConnectTimeoutMs} ms (${reason})`,
      lastError,
    )
  }
  const nc = connection
  let connected = true
  /** Who waits for the next reconnect: told `true` then, `false` at the close. */
  const waiters = new Set<(connected: boolean) => void>()
  const tellWaiters = (value: boolean): void => {
    for (const waiter of [...waiters]) waiter(value)
  }
  logger.info('nats connected', { url: safeUrl, server: nc.getServer() })

  function onStatus(status: Status): void {
    switch (status.type) {
      case 'disconnect':
        connected = false
        logger.warn('nats disconnected', { server: status.server })
        return
      case 'reconnecting':
        logger.debug('nats reconnecting', { url: safeUrl })
        return
      case 'reconnect':
        connected = true
        logger.info('nats reconnected', { server: status.server })
        tellWaiters(true)
        return
      case 'error':
        logger.warn('nats server error', { error: redactNatsUrl(status.error.message) })
        return
      case 'ldm':
        logger.warn('nats server entering lame duck mode', { server: status.server })
        return
      case 'staleConnection':
        logger.warn('nats connection stale', { url: safeUrl })
        return
      case 'slowConsumer':
        logger.warn('nats slow consumer', { subject: status.sub.getSubject(), pending: status.pending })
        return
      case 'close':
        connected = false
        tellWaiters(false)
        return
      default:
        return
    }
  }
  void (async () => {
    for await (const status of nc.status()) onStatus(status)
  })()
  void nc.closed().then((error) => {
    connected = false
    tellWaiters(false)
    if (error instanceof Error) logger.error('nats connection closed', { error: redactNatsUrl(error.message) })
    else logger.info('nats connection closed', { url: safeUrl })
  })

  const isConnected = () => connected && !nc.isClosed() && !nc.isDraining()

  function whenConnected(options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<boolean> {
    if (isConnected()) return Promise.resolve(true)
    if (nc.isClosed() || options.signal?.aborted) return Promise.resolve(false)
    return new Promise<boolean>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const settle = (value: boolean): void => {
        waiters.delete(settle)
        clearTimeout(timer)
        options.signal?.removeEventListener('abort', onAbort)
        resolve(value)
      }
      const onAbort = (): void => settle(false)
      waiters.add(settle)
      options.signal?.addEventListener('abort', onAbort, { once: true })
      if (options.timeoutMs !== undefined) timer = setTimeout(() => settle(false), options.timeoutMs)
    })
  }

  return {
    connection: nc,
    safeUrl,
    isConnected,
    whenConnected,
    async close(timeoutMs = 5000) {
      if (nc.isClosed()) return
      let timer: ReturnType<typeof setTimeout> | undefined
      // A drain that fails (e.g. the connection dropped meanwhile) still ends in close below.
      const drained = (nc.isDraining() ? nc.closed().then(() => undefined) : nc.drain()).catch(() => undefined)
      try {
        await Promise.race([
          drained,
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, timeoutMs)
          }),
        ])
      } finally {
        clearTimeout(timer)
      }
      if (!nc.isClosed()) await nc.close()
    },
  } satisfies NatsClient
}

/** Which credentials were offered, never the secret itself. */
function describeAuth(auth: NatsAuth): string {
  switch (auth.kind) {
    case 'none':
      return 'none were given: set NATS_USER and NATS_PASSWORD, or NATS_CREDS'
    case 'user':
      return `user ${JSON.stringify(auth.user)} with a password`
    case 'token':
      return 'a token'
    case 'creds':
      return `the credentials file ${auth.path}`
  }
}
