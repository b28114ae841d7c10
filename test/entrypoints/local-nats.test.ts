/**
 * The launcher's nats-server, started the way entrypoints/local.ts starts it
 * (on a port of its own choosing here): an anonymous client is refused, the
 * services' configuration, parsed from the environment the launcher gives
 * them, signs in and uses JetStream, and the credentials stay private and
 * the same across starts.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AuthorizationError, connect } from '@nats-io/transport-node'
import { createRecordingLogger } from '../../adapters/memory/logger.ts'
import { connectNats } from '../../adapters/nats/connection.ts'
import { createNatsKvBuckets } from '../../adapters/nats/kv.ts'
import { parseClassifierConfig, parseControllerConfig } from '../../entrypoints/config.ts'
import {
  type LocalNats,
  LocalNatsError,
  localNatsCredentials,
  localNatsEnv,
  startLocalNats,
} from '../../entrypoints/local-nats.ts'
import { dieWithParent } from '../support/cleanup.ts'

setDefaultTimeout(30_000)

let dataDir: string
let nats: LocalNats

async function stop(server: LocalNats): Promise<void> {
  server.proc.kill('SIGTERM')
  await server.proc.exited
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'rc-local-nats-'))
  nats = await startLocalNats({ dataDir, port: -1, output: 'ignore', wrap: dieWithParent })
})

afterAll(async () => {
  if (nats !== undefined) await stop(nats)
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
})

describe("the launcher's nats-server", () => {
  it('refuses a client without credentials', async () => {
    const error = await connect({ servers: nats.url, timeout: 5_000 }).then(
      async (connection) => {
        await connection.close()
        return null
      },
      (failure: unknown) => failure,
    )
    expect(error).toBeInstanceOf(AuthorizationError)
  })

  it('takes both services with the environment the launcher gives them, JetStream included', async () => {
    const env = localNatsEnv(nats.url, nats.credentials)
    const configs = [parseClassifierConfig(env, dataDir), parseControllerConfig(env, dataDir)]
    for (const [at, parsed] of configs.entries()) {
      if (!parsed.ok) throw new Error(parsed.error)
      const logger = createRecordingLogger()
      const client = await connectNats({
        url: parsed.value.natsUrl,
        auth: parsed.value.natsAuth,
        name: 'test',
        firstConnectTimeoutMs: 5_000,
        logger,
      })
      try {
        const bucket = await createNatsKvBuckets(client).open('local-nats-test')
        await bucket.create(`key-${at}`, 'v')
        expect((await bucket.get(`key-${at}`))?.value).toBe('v')
      } finally {
        await client.close()
      }
      expect(JSON.stringify(logger.entries)).not.toContain(nats.credentials.password)
    }
  })

  it('keeps the credentials mode 600 and the plain password out of the server config', () => {
    const credentialsFile = join(dataDir, 'nats-credentials.json')
    const configFile = join(dataDir, 'nats-server.conf')
    expect(statSync(credentialsFile).mode & 0o777).toBe(0o600)
    expect(statSync(configFile).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(credentialsFile, 'utf8'))).toEqual(nats.credentials)
    expect(nats.credentials.password.length).toBeGreaterThanOrEqual(40)
    const config = readFileSync(configFile, 'utf8')
    expect(config).toContain('authorization {')
    expect(config).toMatch(/password: "\$2b\$11\$/)
    expect(config).not.toContain(nats.credentials.password)
  })

  it('reuses its credentials at the next start, and refuses a credentials file others can read', async () => {
    const again = localNatsCredentials(dataDir)
    expect(again).toEqual(nats.credentials)
    const other = mkdtempSync(join(tmpdir(), 'rc-local-nats-'))
    try {
      const made = localNatsCredentials(other)
      expect(made.user).toBe('review-classifier')
      expect(made.password).not.toBe(nats.credentials.password)
      chmodSync(join(other, 'nats-credentials.json'), 0o644)
      expect(() => localNatsCredentials(other)).toThrow(LocalNatsError)
      expect(() => localNatsCredentials(other)).toThrow('is readable by others (mode 0644); chmod 600 it')
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  })
})
