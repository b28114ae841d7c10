/**
 * One-machine launcher, the README's run command: starts a local nats-server with
 * JetStream (store under .data/) that takes only the credentials it keeps in
 * .data/ (local-nats.ts) unless NATS_URL is given, then the services,
 * then the identity proxy for the operator's pages (127.0.0.1:UI_PORT, default
 * 8081, naming UI_USER or the OS user in `Remote-User`), and stops everything
 * together on SIGINT/SIGTERM. The controller listens on loopback (`HOST`) and,
 * unless `ALLOWED_HOSTS` says otherwise, answers only a loopback `Host`, so a
 * web page that rebinds its DNS name to 127.0.0.1 can't reach it either.
 */
import { connect } from 'node:net'
import { join, resolve } from 'node:path'
import { describeError } from '../core/base/errors.ts'
import { isLoopbackAddress, LOOPBACK_HOSTNAMES } from '../core/wire/request-origin.ts'
import { type IdentityProxy, proxyUser, startIdentityProxy } from './identity-proxy.ts'
import { type LocalNats, localNatsEnv, startLocalNats } from './local-nats.ts'

type Child = { name: string; proc: ReturnType<typeof Bun.spawn> }

/** The service entrypoints this build has; each runs as its own Bun process. */
const SERVICES: readonly string[] = ['classifier', 'controller']
/** The controller's `PORT` default, and the identity proxy's (`UI_PORT`), the address to open in a browser. */
const DEFAULT_CONTROLLER_PORT = 8080
const DEFAULT_UI_PORT = 8081

function log(level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }))
}

function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host, port })
    socket.once('connect', () => {
      socket.destroy()
      done(true)
    })
    socket.once('error', () => done(false))
  })
}

/** Where the proxy reaches a controller listening on `host`: loopback when it listens on every address. */
function proxyTarget(host: string): string {
  const bare = host.replace(/^\[(.*)\]$/, '$1')
  if (bare === '0.0.0.0' || bare === '::') return '127.0.0.1'
  return bare.includes(':') ? `[${bare}]` : bare
}

/**
 * A local nats-server with JetStream, its store under `root`/.data, and the
 * services' environment `env` pointed at it; exits the launcher when it can't start.
 */
async function startNats(root: string, env: Record<string, string | undefined>): Promise<Child> {
  const dataDir = resolve(root, '.data')
  const port = 4222
  if (await portOpen('127.0.0.1', port)) {
    log('error', 'port 4222 is taken; stop what listens there or set NATS_URL', { port })
    process.exit(1)
  }
  let nats: LocalNats
  try {
    // Its own process group: a Ctrl-C reaches only this launcher, which stops the rest in order.
    nats = await startLocalNats({ dataDir, port })
  } catch (error) {
    log('error', 'local nats-server not started', { error: describeError(error) })
    process.exit(1)
  }
  // The services sign in with the launcher's credentials, whatever the environment said: an empty
  // NATS_CREDS counts as unset, and keeps Bun from filling it in from a .env file.
  env.NATS_CREDS = ''
  Object.assign(env, localNatsEnv(nats.url, nats.credentials))
  log('info', 'local nats-server started', {
    url: nats.url,
    user: nats.credentials.user,
    credentials: join(dataDir, 'nats-credentials.json'),
    store: join(dataDir, 'nats'),
  })
  return { name: 'nats-server', proc: nats.proc }
}

/** The identity proxy in front of the controller on `controllerHost`, or null when its port is taken. */
function startProxy(env: Record<string, string | undefined>, controllerHost: string): IdentityProxy | null {
  const controllerPort = Number(env.PORT ?? DEFAULT_CONTROLLER_PORT)
  const uiPort = Number(env.UI_PORT ?? DEFAULT_UI_PORT)
  const user = proxyUser(env)
  try {
    const proxy = startIdentityProxy({
      target: `http://${proxyTarget(controllerHost)}:${controllerPort}`,
      user,
      port: uiPort,
    })
    log('info', 'operator pages: open this address in a browser', { url: `${proxy.url}/ui/`, remote_user: user })
    return proxy
  } catch {
    log('error', `port ${uiPort} is taken, so the operator pages have no proxy; set UI_PORT to another port`, {
      port: uiPort,
    })
  }
  return null
}

async function main(): Promise<void> {
  const root = resolve(import.meta.dir, '..')
  const children: Child[] = []
  const env: Record<string, string | undefined> = { ...process.env }

  if (!process.env.NATS_URL) children.push(await startNats(root, env))

  // The controller's own defaults (entrypoints/config.ts), made explicit here for the proxy's target.
  const controllerHost = env.HOST?.trim() || '127.0.0.1'
  if (env.ALLOWED_HOSTS === undefined && isLoopbackAddress(controllerHost)) {
    env.ALLOWED_HOSTS = LOOPBACK_HOSTNAMES.join(',')
  }

  for (const service of SERVICES) {
    const proc = Bun.spawn([process.execPath, 'run', resolve(root, 'entrypoints', `${service}.ts`)], {
      env,
      detached: true,
      stdout: 'inherit',
      stderr: 'inherit',
    })
    children.push({ name: service, proc })
  }
  if (SERVICES.length === 0) {
    log('warn', 'no service entrypoint is built yet; only the local queue runs', {})
  }

  if (children.length === 0) {
    log('info', 'nothing to run: NATS_URL is set and no service is built yet', {})
    return
  }

  const proxy = SERVICES.includes('controller') ? startProxy(env, controllerHost) : null

  // Services first, so they drain while the queue is still up; the queue last.
  let stopping: Promise<void> | null = null
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await proxy?.stop()
      const services = children.filter((c) => c.name !== 'nats-server')
      for (const child of services) child.proc.kill('SIGTERM')
      await Promise.all(services.map((c) => c.proc.exited))
      for (const child of children) child.proc.kill('SIGTERM')
      await Promise.all(children.map((c) => c.proc.exited))
    })()
    return stopping
  }
  process.on('SIGINT', () => void stop())
  process.on('SIGTERM', () => void stop())

  const first = await Promise.race(children.map(async (c) => ({ name: c.name, code: await c.proc.exited })))
  if (stopping === null) log(first.code === 0 ? 'info' : 'error', 'process exited; stopping the rest', first)
  await stop()
  process.exit(first.code === 0 ? 0 : 1)
}

await main()
