/**
 * The launcher's own nats-server (entrypoints/local.ts), which takes no
 * anonymous client: any local process could otherwise publish runs naming
 * its own ACP base URL, read every diff on the subject, or answer first with
 * forged rows (docs/decisions.md, "Running on one machine").
 *
 * At first start a user and a random password are generated and kept in
 * `<data>/nats-credentials.json` (mode 600, reused by every later start).
 * Each start writes the server's config (`<data>/nats-server.conf`, mode
 * 600) with JetStream's store and an `authorization` block holding the
 * password's bcrypt hash, and the services get the plain pair as
 * `NATS_USER`/`NATS_PASSWORD` in their environment.
 */
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { Subprocess } from 'bun'

export type LocalNatsCredentials = { user: string; password: string }

const CredentialsSchema = Type.Object({ user: Type.String({ minLength: 1 }), password: Type.String({ minLength: 16 }) })

/** The user the launcher's services sign in as. */
export const LOCAL_NATS_USER = 'review-classifier'
const CREDENTIALS_FILE = 'nats-credentials.json'
const CONFIG_FILE = 'nats-server.conf'
/** bcrypt's cost: the server checks it once per connection, and there are two. */
const BCRYPT_COST = 11

export class LocalNatsError extends Error {}

/** The launcher's credentials: read from `<dataDir>`, or made (and kept, mode 600) when there are none. */
export function localNatsCredentials(dataDir: string): LocalNatsCredentials {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const file = join(dataDir, CREDENTIALS_FILE)
  if (!existsSync(file)) {
    // Letters, digits, "-" and "_" only: nothing to quote in the config or the environment.
    const made = { user: LOCAL_NATS_USER, password: randomBytes(32).toString('base64url') }
    writeFileSync(file, `${JSON.stringify(made)}\n`, { mode: 0o600, flag: 'wx' })
    return made
  }
  const mode = statSync(file).mode & 0o777
  if ((mode & 0o077) !== 0) {
    throw new LocalNatsError(`${file} is readable by others (mode 0${mode.toString(8)}); chmod 600 it`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    parsed = null
  }
  if (!Value.Check(CredentialsSchema, parsed)) {
    throw new LocalNatsError(
      `${file} is not {"user", "password"} (a password of 16 or more characters); remove it to make new ones`,
    )
  }
  return { user: parsed.user, password: parsed.password }
}

/** The server's config: JetStream's store and the one user, with the password's bcrypt hash (the server accepts `$2b$`). */
export async function localNatsConfig(storeDir: string, credentials: LocalNatsCredentials): Promise<string> {
  const hash = await Bun.password.hash(credentials.password, { algorithm: 'bcrypt', cost: BCRYPT_COST })
  return [
    `jetstream { store_dir: ${JSON.stringify(storeDir)} }`,
    `authorization { user: ${JSON.stringify(credentials.user)}, password: ${JSON.stringify(hash)} }`,
    '',
  ].join('\n')
}

/** What both services get to reach the launcher's server. */
export function localNatsEnv(url: string, credentials: LocalNatsCredentials): Record<string, string> {
  return { NATS_URL: url, NATS_USER: credentials.user, NATS_PASSWORD: credentials.password }
}

export type LocalNats = {
  proc: Subprocess
  /** `nats://127.0.0.1:<port>`, no credentials in it. */
  url: string
  credentials: LocalNatsCredentials
}

export type LocalNatsOptions = {
  /** `.data/` for the launcher: the credentials, the config and the store (`<dataDir>/nats`) live here. */
  dataDir: string
  /** 4222 for the launcher; -1 lets the server choose (the tests). */
  port: number
  /** How long the server has to listen; default 10 s. */
  readyTimeoutMs?: number
  /** `inherit` for the launcher (its log goes with the services'); default `inherit`. */
  output?: 'inherit' | 'ignore'
  /** Wraps the command (the tests: to die with their process). */
  wrap?: (command: string[]) => string[]
}

/**
 * Starts `nats-server` on 127.0.0.1 with the config above in a process group
 * of its own (a Ctrl-C reaches only the launcher, which stops it last), and
 * resolves once it listens, reading the port it took from its ports file.
 */
export async function startLocalNats(options: LocalNatsOptions): Promise<LocalNats> {
  const credentials = localNatsCredentials(options.dataDir)
  const storeDir = join(options.dataDir, 'nats')
  const portsDir = join(options.dataDir, 'nats-ports')
  mkdirSync(storeDir, { recursive: true })
  rmSync(portsDir, { recursive: true, force: true })
  mkdirSync(portsDir, { mode: 0o700 })
  const configFile = join(options.dataDir, CONFIG_FILE)
  writeFileSync(configFile, await localNatsConfig(storeDir, credentials), { mode: 0o600 })
  chmodSync(configFile, 0o600)
  const command = ['nats-server', '-c', configFile, '-a', '127.0.0.1', '-p', String(options.port)]
  command.push('--ports_file_dir', portsDir)
  const output = options.output ?? 'inherit'
  const proc = Bun.spawn(options.wrap?.(command) ?? command, {
    detached: true,
    stdin: 'ignore',
    stdout: output,
    stderr: output,
  })
  const timeoutMs = options.readyTimeoutMs ?? 10_000
  const until = Date.now() + timeoutMs
  let exited = false
  void proc.exited.then(() => {
    exited = true
  })
  // The server writes the file once every listener is up: the launcher polls for it as it polled the port.
  for (;;) {
    const url = listenedUrl(join(portsDir, `nats-server_${proc.pid}.ports`))
    if (url !== null) return { proc, url, credentials }
    if (exited) throw new LocalNatsError(`nats-server exited with code ${proc.exitCode} before it listened`)
    if (Date.now() > until) {
      proc.kill('SIGKILL')
      throw new LocalNatsError(`nats-server did not listen within ${timeoutMs} ms`)
    }
    await Bun.sleep(50)
  }
}

const PortsFileSchema = Type.Object({ nats: Type.Array(Type.String(), { minItems: 1 }) })

/** The client URL from the server's ports file; null while it isn't there (or is half written). */
function listenedUrl(file: string): string | null {
  let listed: unknown
  try {
    listed = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return null
  }
  return Value.Check(PortsFileSchema, listed) ? (listed.nats[0] ?? null) : null
}
