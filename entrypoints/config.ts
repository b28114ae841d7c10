/**
 * The configuration contract (docs/decisions.md): each process parses its
 * environment once, at start, into a typed config. A bad value stops the
 * process with one line naming the variable; nothing half-starts.
 */

import { isIP } from 'node:net'
import { tmpdir } from 'node:os'
import { isAbsolute, resolve } from 'node:path'
import { type TokenSource, tokenSourceFromEnv } from '../adapters/bao/token-source.ts'
import { type NatsAuth, natsUrlAuth, readNatsCreds } from '../adapters/nats/connection.ts'
import { err, ok, type Result } from '../core/base/result.ts'
import { parseAcpBaseUrls } from '../core/settings/acp-base-urls.ts'
import { normalizeHostname } from '../core/wire/request-origin.ts'
import type { LogLevel } from '../ports/logger.ts'

export type Env = Record<string, string | undefined>

export type SecretsConfig = { kind: 'bao'; addr: string; token: TokenSource } | { kind: 'dir'; dir: string }

/** What both processes read. */
export type CommonConfig = {
  natsUrl: string
  /** From `NATS_CREDS`, `NATS_USER` and `NATS_PASSWORD`, or the credentials in `NATS_URL`: at most one of them. */
  natsAuth: NatsAuth
  swarm: string
  secrets: SecretsConfig
  logLevel: LogLevel
  otlpEndpoint: string | null
}

export type ClassifierConfig = CommonConfig & {
  claudeBin: string
  opencodeBin: string
  classificationTimeoutMs: number
  workDir: string
  maxSessions: number
  /** `ACP_BASE_URLS`, normalised: the only `acp.base_url` values a run may name; null (unset) allows any. */
  acpBaseUrls: string[] | null
  /** Passed through to the runtimes, and nothing else of this process's environment. */
  passEnv: Record<string, string>
}

/** The variables the runtimes get from ours: an LLM gateway, a proxy, a private CA. */
export const PASS_THROUGH_VARIABLES = [
  'ANTHROPIC_BASE_URL',
  'HTTPS_PROXY',
  'https_proxy',
  'NO_PROXY',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
] as const

/** `CLASSIFICATION_TIMEOUT_S` when unset; the local `check` gives each rule the same. */
export const DEFAULT_CLASSIFICATION_TIMEOUT_S = 180

/** `MAX_SESSIONS` when unset; the local `check` runs as many at once. */
export const DEFAULT_MAX_SESSIONS = 8

/** `DRAIN_TIMEOUT_S` when unset. */
export const DEFAULT_DRAIN_TIMEOUT_S = 30

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error']

class ConfigError extends Error {}

function value(env: Env, name: string): string | undefined {
  const raw = env[name]
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim()
}

function url(env: Env, name: string, fallback: string | null, protocols: readonly string[]): string | null {
  const raw = value(env, name) ?? fallback
  if (raw === null) return null
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`)
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(
      `${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}, got "${parsed.protocol}//"`,
    )
  }
  return raw
}

function wholeNumber(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = value(env, name)
  if (raw === undefined) return fallback
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`)
  }
  return Number(raw)
}

function path(env: Env, name: string, fallback: string, root: string): string {
  const raw = value(env, name) ?? fallback
  return isAbsolute(raw) ? raw : resolve(root, raw)
}

/** How the process signs in to NATS: one of a `.creds` file, a user and password, or what `NATS_URL` carries. */
function natsAuth(env: Env, natsUrl: string, root: string): NatsAuth {
  const inUrl = natsUrlAuth(natsUrl)
  const user = value(env, 'NATS_USER')
  // Kept as written, like any secret: only an empty one counts as unset.
  const password = env.NATS_PASSWORD === undefined || env.NATS_PASSWORD === '' ? undefined : env.NATS_PASSWORD
  const credsFile = value(env, 'NATS_CREDS')
  const given = [
    inUrl.kind === 'none' ? null : 'credentials in NATS_URL',
    user === undefined && password === undefined ? null : 'NATS_USER and NATS_PASSWORD',
    credsFile === undefined ? null : 'NATS_CREDS',
  ].filter((name) => name !== null)
  if (given.length > 1)
    throw new ConfigError(`${given.join(' and ')} are set together; give the NATS credentials one way only`)
  if (user !== undefined || password !== undefined) {
    if (user === undefined) throw new ConfigError('NATS_PASSWORD is set, so NATS_USER must be set too')
    if (password === undefined) throw new ConfigError('NATS_USER is set, so NATS_PASSWORD must be set too')
    return { kind: 'user', user, password }
  }
  if (credsFile !== undefined) {
    const credsPath = path(env, 'NATS_CREDS', '', root)
    const creds = readNatsCreds('NATS_CREDS', credsPath)
    if (!creds.ok) throw new ConfigError(creds.error)
    return { kind: 'creds', path: credsPath, creds: creds.value }
  }
  return inUrl
}

function common(env: Env, root: string): CommonConfig {
  const swarm = value(env, 'SWARM') ?? 'swarm'
  if (!/^[A-Za-z0-9_-]+$/.test(swarm)) {
    throw new ConfigError(`SWARM must be one subject token of letters, digits, "-" or "_", got "${swarm}"`)
  }
  const rawLevel = value(env, 'LOG_LEVEL') ?? 'info'
  const logLevel = LOG_LEVELS.find((level) => level === rawLevel)
  if (logLevel === undefined) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${rawLevel}"`)
  }
  const baoAddr = url(env, 'BAO_ADDR', null, ['http:', 'https:'])
  let secrets: SecretsConfig
  if (baoAddr === null) {
    secrets = { kind: 'dir', dir: path(env, 'SECRETS_DIR', '.secrets', root) }
  } else {
    const tokenFile = value(env, 'BAO_TOKEN_FILE')
    const token = tokenSourceFromEnv({
      ...env,
      BAO_TOKEN_FILE: tokenFile === undefined ? undefined : path(env, 'BAO_TOKEN_FILE', '', root),
    })
    if (!token.ok) throw new ConfigError(token.error)
    secrets = { kind: 'bao', addr: baoAddr, token: token.value }
  }
  const natsUrl =
    url(env, 'NATS_URL', 'nats://127.0.0.1:4222', ['nats:', 'tls:', 'ws:', 'wss:']) ?? 'nats://127.0.0.1:4222'
  return {
    natsUrl,
    natsAuth: natsAuth(env, natsUrl, root),
    swarm,
    secrets,
    logLevel,
    otlpEndpoint: url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', null, ['http:', 'https:']),
  }
}

function acpBaseUrls(env: Env): string[] | null {
  const raw = env.ACP_BASE_URLS
  if (raw === undefined) return null
  const parsed = parseAcpBaseUrls('ACP_BASE_URLS', raw)
  if (!parsed.ok) throw new ConfigError(parsed.error)
  return parsed.value
}

/** `root` is the project directory: relative paths and the pinned binaries resolve from it. */
export function parseClassifierConfig(env: Env, root: string): Result<ClassifierConfig, string> {
  try {
    const passEnv: Record<string, string> = {}
    for (const name of PASS_THROUGH_VARIABLES) {
      const raw = env[name]
      if (raw !== undefined && raw !== '') passEnv[name] = raw
    }
    return ok({
      ...common(env, root),
      claudeBin: path(env, 'CLAUDE_BIN', 'node_modules/.bin/claude', root),
      opencodeBin: path(env, 'OPENCODE_BIN', 'node_modules/.bin/opencode', root),
      classificationTimeoutMs:
        wholeNumber(env, 'CLASSIFICATION_TIMEOUT_S', DEFAULT_CLASSIFICATION_TIMEOUT_S, 1, 3600) * 1000,
      workDir: path(env, 'WORK_DIR', resolve(tmpdir(), 'review-classifier'), root),
      maxSessions: wholeNumber(env, 'MAX_SESSIONS', DEFAULT_MAX_SESSIONS, 1, 64),
      acpBaseUrls: acpBaseUrls(env),
      passEnv,
    })
  } catch (error) {
    if (error instanceof ConfigError) return err(error.message)
    throw error
  }
}

export type ControllerConfig = CommonConfig & {
  /** `HOST`: the address to listen on, IPv6 without brackets; loopback unless a deploy behind a gateway says otherwise. */
  host: string
  port: number
  /** `ALLOWED_HOSTS`: the host names a request's `Host` may name (lowercased, IPv6 in brackets); `null` answers any. */
  allowedHosts: readonly string[] | null
  /** The forge's root URL without a trailing slash; `null` until set, and the forge parts report "not configured". */
  forgeUrl: string | null
  /** The webhook HMAC secret; `null` until set, and every delivery is refused. */
  webhookSecret: string | null
  /** The forge's domain for noreply addresses (`<login>@noreply.<domain>`); `null` with no forge URL and no value. */
  noreplyDomain: string | null
  runTimeoutMs: number
  /** `DRAIN_TIMEOUT_S`: on SIGTERM, how long the running reviews may go on before they are stopped with a no-verdict. */
  drainTimeoutMs: number
}

const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/

function domainName(env: Env, name: string, fallback: string | null): string | null {
  const raw = value(env, name)?.toLowerCase()
  if (raw === undefined) return fallback
  if (!HOST_NAME.test(raw)) {
    throw new ConfigError(`${name} must be a domain name such as forge.example.org, got "${raw}"`)
  }
  return raw
}

/** An address to listen on: an IP address (IPv6 with or without brackets) or a host name. */
function listenAddress(env: Env, name: string, fallback: string): string {
  const raw = value(env, name) ?? fallback
  const bare = raw.replace(/^\[(.*)\]$/, '$1')
  if (isIP(bare) !== 0 || HOST_NAME.test(bare.toLowerCase())) return bare
  throw new ConfigError(`${name} must be an IP address or a host name, such as 127.0.0.1, ::1 or 0.0.0.0, got "${raw}"`)
}

/** A comma-separated list of host names, without ports; unset or empty is `null`. */
function hostNames(env: Env, name: string): string[] | null {
  const raw = value(env, name)
  if (raw === undefined) return null
  const names: string[] = []
  for (const entry of raw.split(',')) {
    if (entry.trim() === '') continue
    const normalized = normalizeHostname(entry)
    if (normalized === null) {
      throw new ConfigError(
        `${name} must be host names separated by commas, without ports, such as 127.0.0.1,localhost,[::1], got "${entry.trim()}"`,
      )
    }
    names.push(normalized)
  }
  return names.length === 0 ? null : names
}

/** `root` is the project directory, as for {@link parseClassifierConfig}. */
export function parseControllerConfig(env: Env, root: string): Result<ControllerConfig, string> {
  try {
    const forgeUrl = url(env, 'FORGE_URL', null, ['http:', 'https:'])?.replace(/\/+$/, '') ?? null
    // The forge's own noreply addresses use its domain, never a port.
    const forgeDomain = forgeUrl === null ? null : new URL(forgeUrl).hostname
    return ok({
      ...common(env, root),
      host: listenAddress(env, 'HOST', '127.0.0.1'),
      port: wholeNumber(env, 'PORT', 8080, 0, 65535),
      allowedHosts: hostNames(env, 'ALLOWED_HOSTS'),
      forgeUrl,
      // Kept as written: the sender signs with exactly these bytes.
      webhookSecret:
        env.FORGE_WEBHOOK_SECRET === undefined || env.FORGE_WEBHOOK_SECRET === '' ? null : env.FORGE_WEBHOOK_SECRET,
      noreplyDomain: domainName(env, 'FORGE_NOREPLY_DOMAIN', forgeDomain),
      runTimeoutMs: wholeNumber(env, 'RUN_TIMEOUT_S', 900, 1, 86_400) * 1000,
      drainTimeoutMs: wholeNumber(env, 'DRAIN_TIMEOUT_S', DEFAULT_DRAIN_TIMEOUT_S, 0, 3600) * 1000,
    })
  } catch (error) {
    if (error instanceof ConfigError) return err(error.message)
    throw error
  }
}
