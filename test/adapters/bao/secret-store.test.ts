import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createBaoSecretStore, type FetchFn } from '../../../adapters/bao/secret-store.ts'
import { fileTokenSource, fixedTokenSource } from '../../../adapters/bao/token-source.ts'
import { type ErrorCode, isAppError } from '../../../core/base/errors.ts'
import { secretStoreContract } from '../../ports/secret-store.contract.ts'
import { createFakeBao, type FakeBao } from '../../support/fake-bao.ts'

const TOKEN = 'hvs.CAESIfakeTokenForTests7d1e'
const OTHER_TOKEN = 'hvs.CAESIrotatedTokenForTests92b'
const SECRET_VALUE = 'sk-ant-api03-secret-value-4c8e'
const API_KEY = 'swarm/services/review-classifier/anthropic-api-key'
const FORGE_TOKEN = 'swarm/services/review-classifier/forge/token'

/** Everything an error could show: its message and stack and those of its causes. */
function errorText(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth += 1) {
    parts.push(String(current))
    if (current instanceof Error) {
      parts.push(current.stack ?? '')
      current = current.cause
    } else {
      current = undefined
    }
  }
  return parts.join('\n')
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail')
    },
    (error: unknown) => error,
  )
}

async function expectFailure(
  promise: Promise<unknown>,
  code: ErrorCode,
  secrets: string[] = [TOKEN, SECRET_VALUE],
): Promise<string> {
  const error = await failureOf(promise)
  expect(isAppError(error) ? error.code : error).toBe(code)
  const text = errorText(error)
  for (const secret of secrets) expect(text).not.toContain(secret)
  return isAppError(error) ? error.message : ''
}

secretStoreContract('OpenBao KV v2 (fake server)', async () => {
  const bao = createFakeBao({ tokens: [TOKEN] })
  return {
    store: createBaoSecretStore({ addr: bao.url, token: fixedTokenSource(TOKEN) }),
    seed: async (path, field, value) => bao.patch(path, field, value),
    forbid: async (path) => bao.deny(path),
    cleanup: () => bao.stop(),
  }
})

describe('createBaoSecretStore', () => {
  let bao: FakeBao
  beforeEach(() => {
    bao = createFakeBao({ tokens: [TOKEN] })
  })
  afterEach(async () => {
    await bao.stop()
  })

  it('reads data.data.<field> from GET /v1/secret/data/<path> with the token in X-Vault-Token', async () => {
    bao.put(API_KEY, { api_key: SECRET_VALUE })
    const store = createBaoSecretStore({ addr: bao.url, token: fixedTokenSource(TOKEN) })
    expect(await store.read(API_KEY, 'api_key')).toBe(SECRET_VALUE)
    expect(bao.requests).toEqual([{ method: 'GET', path: `/v1/secret/data/${API_KEY}`, token: TOKEN, body: null }])
  })

  it('uses the configured mount and ignores a trailing slash on the address', async () => {
    const kv = createFakeBao({ tokens: [TOKEN], mount: 'kv' })
    try {
      kv.put(API_KEY, { api_key: SECRET_VALUE })
      const store = createBaoSecretStore({ addr: `${kv.url}/`, token: fixedTokenSource(TOKEN), mount: 'kv' })
      expect(await store.read(API_KEY, 'api_key')).toBe(SECRET_VALUE)
      expect(kv.requests[0]?.path).toBe(`/v1/kv/data/${API_KEY}`)
    } finally {
      await kv.stop()
    }
  })

  it('write POSTs {data: {field: value}}, replacing other fields at the path', async () => {
    bao.put(FORGE_TOKEN, { token: 'old', note: 'kept by hand' })
    const store = createBaoSecretStore({ addr: bao.url, token: fixedTokenSource(TOKEN) })
    await store.write(FORGE_TOKEN, 'token', 'new-token')
    expect(bao.requests).toEqual([
      { method: 'POST', path: `/v1/secret/data/${FORGE_TOKEN}`, token: TOKEN, body: { data: { token: 'new-token' } } },
    ])
    expect(bao.fields(FORGE_TOKEN)).toEqual({ token: 'new-token' })
  })

  it('answers null for a secret whose latest version is deleted', async () => {
    bao.put(API_KEY, { api_key: SECRET_VALUE })
    bao.softDelete(API_KEY)
    const store = createBaoSecretStore({ addr: bao.url, token: fixedTokenSource(TOKEN) })
    expect(await store.read(API_KEY, 'api_key')).toBeNull()
  })

  it('answers null for an empty field, and refuses to write an empty value', async () => {
    bao.put(API_KEY, { api_key: '' })
    const store = createBaoSecretStore({ addr: bao.url, token: fixedTokenSource(TOKEN) })
    expect(await store.read(API_KEY, 'api_key')).toBeNull()
    await expectFailure(store.write(API_KEY, 'api_key', ''), 'invalid')
  })

  it('answers null for a field named like an Object prototype member', async () => {
    bao.put(API_KEY, { api_key: SECRET_VALUE })
    const store = createBaoSecretStore({ addr: bao.url, token: fixedTokenSource(TOKEN) })
    expect(await store.read(API_KEY, 'constructor')).toBeNull()
    expect(await store.read(API_KEY, '__proto__')).toBeNull()
  })

  it('refuses a field that is not text with unavailable, without showing it', async () => {
    bao.put(API_KEY, { api_key: { nested: SECRET_VALUE } })
    const store = createBaoSecretStore({ addr: bao.url, token: fixedTokenSource(TOKEN) })
    const message = await expectFailure(store.read(API_KEY, 'api_key'), 'unavailable')
    expect(message).toContain('api_key')
  })

  it('maps an unknown token (403) to forbidden, for read and write, without the token', async () => {
    const store = createBaoSecretStore({ addr: bao.url, token: fixedTokenSource(OTHER_TOKEN) })
    const message = await expectFailure(store.read(API_KEY, 'api_key'), 'forbidden', [OTHER_TOKEN])
    expect(message).toContain('permission denied')
    expect(message).toContain(API_KEY)
    await expectFailure(store.write(FORGE_TOKEN, 'token', SECRET_VALUE), 'forbidden', [OTHER_TOKEN, SECRET_VALUE])
  })

  it('maps a policy denial on one path to forbidden', async () => {
    bao.put(FORGE_TOKEN, { token: SECRET_VALUE })
    bao.deny(FORGE_TOKEN)
    const store = createBaoSecretStore({ addr: bao.url, token: fixedTokenSource(TOKEN) })
    await expectFailure(store.read(FORGE_TOKEN, 'token'), 'forbidden')
    await expectFailure(store.write(FORGE_TOKEN, 'token', SECRET_VALUE), 'forbidden')
  })

  it('maps a sealed server (503) to unavailable, and reads again once unsealed', async () => {
    bao.put(API_KEY, { api_key: SECRET_VALUE })
    const store = createBaoSecretStore({ addr: bao.url, token: fixedTokenSource(TOKEN) })
    bao.setMode('sealed')
    expect(await expectFailure(store.read(API_KEY, 'api_key'), 'unavailable')).toContain('sealed')
    await expectFailure(store.write(API_KEY, 'api_key', SECRET_VALUE), 'unavailable')
    bao.setMode('normal')
    expect(await store.read(API_KEY, 'api_key')).toBe(SECRET_VALUE)
  })

  it('maps a server that never answers to timeout', async () => {
    bao.setMode('hang')
    const store = createBaoSecretStore({ addr: bao.url, token: fixedTokenSource(TOKEN), timeoutMs: 300 })
    await expectFailure(store.read(API_KEY, 'api_key'), 'timeout')
    await expectFailure(store.write(API_KEY, 'api_key', SECRET_VALUE), 'timeout')
  })

  it('maps a refused connection to unavailable', async () => {
    const gone = createFakeBao({ tokens: [TOKEN] })
    await gone.stop()
    const store = createBaoSecretStore({ addr: gone.url, token: fixedTokenSource(TOKEN) })
    const message = await expectFailure(store.read(API_KEY, 'api_key'), 'unavailable')
    expect(message).toContain(gone.url.replace('http://', ''))
  })

  it('maps a missing mount ("no handler for route") to unavailable rather than "no key"', async () => {
    const store = createBaoSecretStore({ addr: bao.url, token: fixedTokenSource(TOKEN), mount: 'nosuch' })
    expect(await expectFailure(store.read(API_KEY, 'api_key'), 'unavailable')).toContain('mount')
  })

  it('rejects a path or field that would step out of its place with invalid, sending nothing', async () => {
    const store = createBaoSecretStore({ addr: bao.url, token: fixedTokenSource(TOKEN) })
    const bad: [string, string][] = [
      ['swarm/../sys/policies', 'api_key'],
      ['../x', 'api_key'],
      ['/swarm/x', 'api_key'],
      ['swarm//x', 'api_key'],
      ['swarm/./x', 'api_key'],
      ['swarm/x/', 'api_key'],
      ['', 'api_key'],
      ['swarm/x\u0000', 'api_key'],
      ['swarm/x', ''],
      ['swarm/x', '..'],
      ['swarm/x', 'a/b'],
    ]
    for (const [path, field] of bad) {
      await expectFailure(store.read(path, field), 'invalid')
      await expectFailure(store.write(path, field, SECRET_VALUE), 'invalid')
    }
    expect(bao.requests).toEqual([])
  })

  it('encodes each path segment, so a ? or # stays part of the path', async () => {
    const odd = 'team a/x?y#z%2F'
    bao.put(odd, { f: SECRET_VALUE })
    const store = createBaoSecretStore({ addr: bao.url, token: fixedTokenSource(TOKEN) })
    expect(await store.read(odd, 'f')).toBe(SECRET_VALUE)
    expect(bao.requests[0]?.path).toBe(`/v1/secret/data/${odd}`)
  })

  it('does not follow a redirect, so the token never reaches the host it names', async () => {
    bao.put(API_KEY, { api_key: SECRET_VALUE })
    const redirector = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (request) => Response.redirect(`${bao.url}${new URL(request.url).pathname}`, 307),
    })
    try {
      const store = createBaoSecretStore({
        addr: `http://127.0.0.1:${redirector.port}`,
        token: fixedTokenSource(TOKEN),
      })
      expect(await expectFailure(store.read(API_KEY, 'api_key'), 'unavailable')).toContain('redirect')
      await expectFailure(store.write(API_KEY, 'api_key', SECRET_VALUE), 'unavailable')
      expect(bao.requests).toEqual([])
    } finally {
      await redirector.stop(true)
    }
  })

  it('refuses an address that is not an http(s) URL', () => {
    expect(() => createBaoSecretStore({ addr: 'bao.internal:8200', token: fixedTokenSource(TOKEN) })).toThrow(
      /BAO_ADDR/,
    )
  })
})

describe('createBaoSecretStore with a token file', () => {
  let bao: FakeBao
  let dir: string
  beforeEach(async () => {
    bao = createFakeBao({ tokens: [TOKEN] })
    dir = await mkdtemp(join(tmpdir(), 'bao-token-'))
  })
  afterEach(async () => {
    await bao.stop()
    await rm(dir, { recursive: true, force: true })
  })

  it('reads the file on each use, so a rotated token is used from the next call', async () => {
    const file = join(dir, 'token')
    await writeFile(file, `${TOKEN}\n`)
    bao.put(API_KEY, { api_key: SECRET_VALUE })
    const store = createBaoSecretStore({ addr: bao.url, token: fileTokenSource(file) })
    expect(await store.read(API_KEY, 'api_key')).toBe(SECRET_VALUE)
    bao.acceptToken(OTHER_TOKEN)
    bao.revokeToken(TOKEN)
    await writeFile(file, OTHER_TOKEN)
    expect(await store.read(API_KEY, 'api_key')).toBe(SECRET_VALUE)
    expect(bao.requests.map((request) => request.token)).toEqual([TOKEN, OTHER_TOKEN])
  })

  it('answers unavailable naming the file when it is missing or empty, sending nothing', async () => {
    const file = join(dir, 'token')
    const store = createBaoSecretStore({ addr: bao.url, token: fileTokenSource(file) })
    expect(await expectFailure(store.read(API_KEY, 'api_key'), 'unavailable')).toContain(file)
    await writeFile(file, '\n')
    expect(await expectFailure(store.read(API_KEY, 'api_key'), 'unavailable')).toContain(file)
    expect(bao.requests).toEqual([])
  })

  it('refuses a file holding more than one word, without quoting it', async () => {
    const file = join(dir, 'token')
    await writeFile(file, `${TOKEN} ${OTHER_TOKEN}\n`)
    const store = createBaoSecretStore({ addr: bao.url, token: fileTokenSource(file) })
    expect(await expectFailure(store.read(API_KEY, 'api_key'), 'unavailable', [TOKEN, OTHER_TOKEN])).toContain(file)
    expect(bao.requests).toEqual([])
  })
})

describe('createBaoSecretStore against answers no fake server gives', () => {
  function stubbed(status: number, body: string, contentType = 'application/json'): { fetchFn: FetchFn } {
    return {
      fetchFn: async () =>
        new Response(body === '' ? null : body, { status, headers: { 'content-type': contentType } }),
    }
  }
  const addr = 'http://127.0.0.1:9'

  it('scrubs the token and the value from error text the server echoes', async () => {
    const { fetchFn } = stubbed(400, JSON.stringify({ errors: [`bad value ${SECRET_VALUE} for ${TOKEN}`] }))
    const store = createBaoSecretStore({ addr, token: fixedTokenSource(TOKEN) }, fetchFn)
    expect(await expectFailure(store.write(API_KEY, 'api_key', SECRET_VALUE), 'invalid')).toContain('[redacted]')
  })

  it('maps a proxy HTML page (502) to unavailable', async () => {
    const { fetchFn } = stubbed(502, '<html>Bad Gateway</html>', 'text/html')
    const store = createBaoSecretStore({ addr, token: fixedTokenSource(TOKEN) }, fetchFn)
    expect(await expectFailure(store.read(API_KEY, 'api_key'), 'unavailable')).toContain('502')
  })

  it('maps a 200 that is not a KV v2 answer (a KV v1 mount, a non-JSON body) to unavailable', async () => {
    for (const body of [JSON.stringify({ data: { api_key: SECRET_VALUE } }), 'not json', '']) {
      const { fetchFn } = stubbed(200, body)
      const store = createBaoSecretStore({ addr, token: fixedTokenSource(TOKEN) }, fetchFn)
      await expectFailure(store.read(API_KEY, 'api_key'), 'unavailable')
    }
  })

  it('accepts 204 with no body as a successful write, after sending the one field', async () => {
    const sent: { method: string; url: string; body: unknown }[] = []
    const fetchFn: FetchFn = async (input, init) => {
      sent.push({ method: init?.method ?? 'GET', url: String(input), body: JSON.parse(String(init?.body ?? 'null')) })
      return new Response(null, { status: 204 })
    }
    const store = createBaoSecretStore({ addr, token: fixedTokenSource(TOKEN) }, fetchFn)
    expect(await store.write(FORGE_TOKEN, 'token', SECRET_VALUE)).toBeUndefined()
    expect(sent).toEqual([
      { method: 'POST', url: `${addr}/v1/secret/data/${FORGE_TOKEN}`, body: { data: { token: SECRET_VALUE } } },
    ])
  })

  it('scrubs the token from a network error that quotes it', async () => {
    const fetchFn: FetchFn = async () => {
      throw new TypeError(`connect failed while sending ${TOKEN}`)
    }
    const store = createBaoSecretStore({ addr, token: fixedTokenSource(TOKEN) }, fetchFn)
    expect(await expectFailure(store.read(API_KEY, 'api_key'), 'unavailable')).toContain('[redacted]')
  })
})
