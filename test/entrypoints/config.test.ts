import { describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { nkeys } from '@nats-io/transport-node'
import { parseClassifierConfig, parseControllerConfig } from '../../entrypoints/config.ts'

const ROOT = '/srv/review-classifier'

function parsed(env: Record<string, string>) {
  const result = parseClassifierConfig(env, ROOT)
  if (!result.ok) throw new Error(`expected a config, got: ${result.error}`)
  return result.value
}

/** A `.creds` file as nsc writes it: the user JWT, then the seed, each between its marker lines. */
function credsFile(jwt: string, seed: string): string {
  return [
    '-----BEGIN NATS USER JWT-----',
    jwt,
    '------END NATS USER JWT------',
    '',
    '************************* IMPORTANT *************************',
    '',
    '-----BEGIN USER NKEY SEED-----',
    seed,
    '------END USER NKEY SEED------',
    '',
  ].join('\n')
}

function problem(env: Record<string, string>): string {
  const result = parseClassifierConfig(env, ROOT)
  if (result.ok) throw new Error('expected a config error')
  return result.error
}

describe('parseClassifierConfig', () => {
  it('has the defaults of the configuration contract', () => {
    const config = parsed({})
    expect(config).toMatchObject({
      natsUrl: 'nats://127.0.0.1:4222',
      swarm: 'swarm',
      secrets: { kind: 'dir', dir: `${ROOT}/.secrets` },
      logLevel: 'info',
      otlpEndpoint: null,
      claudeBin: `${ROOT}/node_modules/.bin/claude`,
      opencodeBin: `${ROOT}/node_modules/.bin/opencode`,
      classificationTimeoutMs: 180_000,
      maxSessions: 8,
      passEnv: {},
    })
  })

  it('reads every variable it knows', () => {
    const config = parsed({
      NATS_URL: 'nats://10.0.0.5:4333',
      SWARM: 'blue',
      BAO_ADDR: 'https://bao.internal:8200',
      BAO_TOKEN_FILE: 'run/bao-token',
      LOG_LEVEL: 'debug',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317',
      CLAUDE_BIN: '/opt/claude',
      CLASSIFICATION_TIMEOUT_S: '30',
      WORK_DIR: '/var/tmp/rc',
      MAX_SESSIONS: '2',
    })
    expect(config).toMatchObject({
      natsUrl: 'nats://10.0.0.5:4333',
      swarm: 'blue',
      secrets: { kind: 'bao', addr: 'https://bao.internal:8200' },
      logLevel: 'debug',
      otlpEndpoint: 'http://127.0.0.1:4317',
      claudeBin: '/opt/claude',
      classificationTimeoutMs: 30_000,
      workDir: '/var/tmp/rc',
      maxSessions: 2,
    })
  })

  it('reads the OpenBao token from BAO_TOKEN_FILE, relative to the project, on each use', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-config-'))
    writeFileSync(join(dir, 'token'), 'hvs.first\n')
    const result = parseClassifierConfig({ BAO_ADDR: 'http://127.0.0.1:8200', BAO_TOKEN_FILE: 'token' }, dir)
    if (!result.ok || result.value.secrets.kind !== 'bao') throw new Error('expected an OpenBao config')
    expect(await result.value.secrets.token.current()).toBe('hvs.first')
    writeFileSync(join(dir, 'token'), 'hvs.rotated')
    expect(await result.value.secrets.token.current()).toBe('hvs.rotated')
    rmSync(dir, { recursive: true, force: true })
  })

  it('passes the gateway, proxy and CA variables through and nothing else', () => {
    const config = parsed({
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999',
      HTTPS_PROXY: 'http://proxy:3128',
      NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
      ANTHROPIC_API_KEY: 'sk-must-not-pass',
      HOME: '/root',
    })
    expect(config.passEnv).toEqual({
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999',
      HTTPS_PROXY: 'http://proxy:3128',
      NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
    })
  })

  it.each([
    [{ NATS_URL: 'not a url' }, 'NATS_URL'],
    [{ NATS_URL: 'http://127.0.0.1:4222' }, 'NATS_URL'],
    [{ SWARM: 'a.b' }, 'SWARM'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ BAO_ADDR: 'https://bao:8200' }, 'BAO_TOKEN'],
    [{ BAO_ADDR: 'https://bao:8200', BAO_TOKEN: 't', BAO_TOKEN_FILE: 'f' }, 'BAO_TOKEN_FILE'],
    [{ BAO_ADDR: 'https://bao:8200', BAO_TOKEN: 'two words' }, 'BAO_TOKEN'],
    [{ BAO_ADDR: 'ftp://bao' }, 'BAO_ADDR'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc:nowhere' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ CLASSIFICATION_TIMEOUT_S: '0' }, 'CLASSIFICATION_TIMEOUT_S'],
    [{ CLASSIFICATION_TIMEOUT_S: '2.5' }, 'CLASSIFICATION_TIMEOUT_S'],
    [{ MAX_SESSIONS: 'eight' }, 'MAX_SESSIONS'],
    [{ MAX_SESSIONS: '0' }, 'MAX_SESSIONS'],
  ])('refuses %p with one line naming the variable', (env, variable) => {
    const message = problem(env)
    expect(message).toContain(variable)
    expect(message).not.toContain('\n')
  })

  it('reads NATS credentials from NATS_USER and NATS_PASSWORD, or out of NATS_URL, and none by default', () => {
    expect(parsed({}).natsAuth).toEqual({ kind: 'none' })
    expect(parsed({ NATS_USER: 'svc', NATS_PASSWORD: ' pw kept as written ' }).natsAuth).toEqual({
      kind: 'user',
      user: 'svc',
      password: ' pw kept as written ',
    })
    expect(parsed({ NATS_URL: 'nats://svc:p%40ss@nats.internal:4222' }).natsAuth).toEqual({
      kind: 'user',
      user: 'svc',
      password: 'p@ss',
    })
    expect(parsed({ NATS_URL: 'nats://s3cr3t-token@nats.internal:4222' }).natsAuth).toEqual({
      kind: 'token',
      token: 's3cr3t-token',
    })
  })

  it('reads a NATS_CREDS file, relative to the project, and checks it holds a JWT and a seed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-config-'))
    try {
      const seed = new TextDecoder().decode(nkeys.createUser().getSeed())
      writeFileSync(join(dir, 'svc.creds'), credsFile('eyJ0eXAiOiJKV1QifQ.e30.c2ln', seed))
      const config = parseClassifierConfig({ NATS_CREDS: 'svc.creds' }, dir)
      expect(config.ok && config.value.natsAuth.kind === 'creds' && config.value.natsAuth.path).toBe(
        join(dir, 'svc.creds'),
      )
      writeFileSync(join(dir, 'bad.creds'), 'not a creds file\n')
      expect(parseClassifierConfig({ NATS_CREDS: 'bad.creds' }, dir)).toEqual({
        ok: false,
        error: `NATS_CREDS ${join(dir, 'bad.creds')} is not a NATS credentials file (a user JWT and an NKEY seed, as nsc writes it)`,
      })
      expect(parseControllerConfig({ NATS_CREDS: 'missing.creds' }, dir)).toEqual({
        ok: false,
        error: `NATS_CREDS ${join(dir, 'missing.creds')} can't be read (it does not exist)`,
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it.each([
    [{ NATS_USER: 'svc' }, 'NATS_USER is set, so NATS_PASSWORD must be set too'],
    [{ NATS_PASSWORD: 'pw' }, 'NATS_PASSWORD is set, so NATS_USER must be set too'],
    [
      { NATS_URL: 'nats://a:b@127.0.0.1:4222', NATS_USER: 'svc', NATS_PASSWORD: 'pw' },
      'credentials in NATS_URL and NATS_USER and NATS_PASSWORD are set together; give the NATS credentials one way only',
    ],
    [
      { NATS_USER: 'svc', NATS_PASSWORD: 'pw', NATS_CREDS: '/x.creds' },
      'NATS_USER and NATS_PASSWORD and NATS_CREDS are set together; give the NATS credentials one way only',
    ],
  ])('refuses NATS credentials given by halves or twice: %p', (env, message) => {
    expect(problem(env)).toBe(message)
  })

  it('reads ACP_BASE_URLS into a normalised list, and allows any base URL when it is unset', () => {
    expect(parsed({}).acpBaseUrls).toBeNull()
    expect(parsed({ ACP_BASE_URLS: 'https://a.example/v1/ https://B.example' }).acpBaseUrls).toEqual([
      'https://a.example/v1',
      'https://b.example',
    ])
    expect(problem({ ACP_BASE_URLS: '' })).toBe('ACP_BASE_URLS is set but lists no URL; unset it to allow any')
    expect(problem({ ACP_BASE_URLS: 'http://a.example' })).toContain('ACP_BASE_URLS lists "http://a.example"')
  })

  it('never puts a token value in its error', () => {
    const message = problem({ BAO_ADDR: 'https://bao:8200', BAO_TOKEN: 'hvs.secret-token-value', BAO_TOKEN_FILE: '/f' })
    expect(message).not.toContain('hvs.secret-token-value')
  })
})

describe('parseControllerConfig', () => {
  function controller(env: Record<string, string>) {
    const result = parseControllerConfig(env, ROOT)
    if (!result.ok) throw new Error(`expected a config, got: ${result.error}`)
    return result.value
  }

  function refusal(env: Record<string, string>): string {
    const result = parseControllerConfig(env, ROOT)
    if (result.ok) throw new Error('expected a config error')
    return result.error
  }

  it('has the defaults of the configuration contract, with the forge not configured', () => {
    expect(controller({})).toMatchObject({
      natsUrl: 'nats://127.0.0.1:4222',
      swarm: 'swarm',
      secrets: { kind: 'dir', dir: `${ROOT}/.secrets` },
      host: '127.0.0.1',
      port: 8080,
      allowedHosts: null,
      forgeUrl: null,
      webhookSecret: null,
      noreplyDomain: null,
      runTimeoutMs: 900_000,
      drainTimeoutMs: 30_000,
    })
  })

  it('reads every variable it knows', () => {
    const config = controller({
      SWARM: 'blue',
      HOST: '0.0.0.0',
      PORT: '9090',
      ALLOWED_HOSTS: 'Admin.Example.Org, 10.0.0.5,::1,',
      FORGE_URL: 'https://forge.example.org/',
      FORGE_WEBHOOK_SECRET: 'hook-secret',
      FORGE_NOREPLY_DOMAIN: 'Users.Example.Org',
      RUN_TIMEOUT_S: '60',
      DRAIN_TIMEOUT_S: '5',
    })
    expect(config).toMatchObject({
      swarm: 'blue',
      host: '0.0.0.0',
      port: 9090,
      allowedHosts: ['admin.example.org', '10.0.0.5', '[::1]'],
      forgeUrl: 'https://forge.example.org',
      webhookSecret: 'hook-secret',
      noreplyDomain: 'users.example.org',
      runTimeoutMs: 60_000,
      drainTimeoutMs: 5_000,
    })
  })

  it("takes the noreply domain from the forge URL's host, without its port", () => {
    expect(controller({ FORGE_URL: 'http://forge.internal:3000/' }).noreplyDomain).toBe('forge.internal')
  })

  it('keeps the webhook secret exactly as given, since the forge signs with those bytes', () => {
    expect(controller({ FORGE_WEBHOOK_SECRET: ' spaced secret ' }).webhookSecret).toBe(' spaced secret ')
  })

  it('listens on any IP address or host name HOST names, IPv6 with or without brackets', () => {
    expect(controller({ HOST: '::1' }).host).toBe('::1')
    expect(controller({ HOST: '[::]' }).host).toBe('::')
    expect(controller({ HOST: '10.1.2.3' }).host).toBe('10.1.2.3')
    expect(controller({ HOST: 'localhost' }).host).toBe('localhost')
  })

  it('answers any Host when ALLOWED_HOSTS is empty', () => {
    expect(controller({ ALLOWED_HOSTS: ' , ' }).allowedHosts).toBeNull()
  })

  it('accepts port 0, for the OS to choose one', () => {
    expect(controller({ PORT: '0' }).port).toBe(0)
  })

  it('accepts a drain of 0 s: the running reviews are stopped at once', () => {
    expect(controller({ DRAIN_TIMEOUT_S: '0' }).drainTimeoutMs).toBe(0)
  })

  it.each([
    [{ PORT: '65536' }, 'PORT'],
    [{ PORT: 'http' }, 'PORT'],
    [{ FORGE_URL: 'forge.example.org' }, 'FORGE_URL'],
    [{ FORGE_URL: 'ssh://forge.example.org' }, 'FORGE_URL'],
    [{ FORGE_NOREPLY_DOMAIN: 'noreply@forge' }, 'FORGE_NOREPLY_DOMAIN'],
    [{ FORGE_NOREPLY_DOMAIN: '-bad.example' }, 'FORGE_NOREPLY_DOMAIN'],
    [{ RUN_TIMEOUT_S: '0' }, 'RUN_TIMEOUT_S'],
    [{ RUN_TIMEOUT_S: '15m' }, 'RUN_TIMEOUT_S'],
    [{ DRAIN_TIMEOUT_S: '3601' }, 'DRAIN_TIMEOUT_S'],
    [{ DRAIN_TIMEOUT_S: '-1' }, 'DRAIN_TIMEOUT_S'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ HOST: 'http://0.0.0.0' }, 'HOST'],
    [{ HOST: '0.0.0.0:8080' }, 'HOST'],
    [{ ALLOWED_HOSTS: 'localhost:8080' }, 'ALLOWED_HOSTS'],
    [{ ALLOWED_HOSTS: 'localhost,https://admin.example' }, 'ALLOWED_HOSTS'],
  ])('refuses %p with one line naming the variable', (env, variable) => {
    const message = refusal(env)
    expect(message).toContain(variable)
    expect(message).not.toContain('\n')
  })

  it('never puts the webhook secret in an error', () => {
    const message = refusal({ FORGE_WEBHOOK_SECRET: 'whsec-do-not-print', PORT: 'nope' })
    expect(message).not.toContain('whsec-do-not-print')
  })
})
