/**
 * A small fake OpenBao for tests: KV v2 read and write on one mount, on
 * 127.0.0.1 with a port the OS picks. Answers with the shapes and statuses
 * docs/infra.md section B documents for the real server
 * (no server could be installed to compare against), in the real order of
 * checks: sealed first, then the token, then the route, then the policy.
 *
 * Every request is recorded with the token it carried, so a test can see
 * which token a call used.
 */
import { randomUUID } from 'node:crypto'

export type FakeBaoRequest = {
  method: string
  /** The decoded URL path, e.g. `/v1/secret/data/swarm/x`. */
  path: string
  /** `X-Vault-Token`, or the `Authorization: Bearer` token, or null. */
  token: string | null
  /** The parsed JSON body, or null when there was none. */
  body: unknown
}

/** `sealed`: every request gets 503; `hang`: requests are accepted and never answered (until `stop`). */
export type FakeBaoMode = 'normal' | 'sealed' | 'hang'

export type FakeBao = {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly requests: FakeBaoRequest[]
  /** Stores `fields` as a new version of the secret, as `bao kv put` does (other fields are gone). */
  put(path: string, fields: Record<string, unknown>): void
  /** Sets one field in a new version, keeping the others, as `bao kv patch` does. */
  patch(path: string, field: string, value: string): void
  /** Soft-deletes the latest version, as `bao kv delete` does. */
  softDelete(path: string): void
  /** The latest version's fields; null when there is none or it is deleted. */
  fields(path: string): Record<string, unknown> | null
  acceptToken(token: string): void
  revokeToken(token: string): void
  /** Refuses every token on `path`, as a policy that doesn't grant it. */
  deny(path: string): void
  setMode(mode: FakeBaoMode): void
  /** Stops the server, closing connections held by `hang`. */
  stop(): Promise<void>
}

type Version = { data: Record<string, unknown>; createdTime: string; deletionTime: string }

const INVALID_JSON = Symbol('invalid JSON')

function parseBody(text: string): unknown {
  if (text === '') return null
  try {
    return JSON.parse(text)
  } catch {
    return INVALID_JSON
  }
}

const PERMISSION_DENIED = '1 error occurred:\n\t* permission denied\n\n'

export function createFakeBao(options: { tokens?: string[]; mount?: string } = {}): FakeBao {
  const mount = options.mount ?? 'secret'
  const tokens = new Set(options.tokens ?? [])
  const denied = new Set<string>()
  const secrets = new Map<string, Version[]>()
  const requests: FakeBaoRequest[] = []
  const held = new Set<() => void>()
  let mode: FakeBaoMode = 'normal'

  function json(status: number, body: unknown): Response {
    return Response.json(body, { status })
  }

  function envelope(data: unknown): Record<string, unknown> {
    return {
      request_id: randomUUID(),
      lease_id: '',
      renewable: false,
      lease_duration: 0,
      data,
      wrap_info: null,
      warnings: null,
      auth: null,
    }
  }

  function metadata(version: Version, number: number): Record<string, unknown> {
    return {
      created_time: version.createdTime,
      custom_metadata: null,
      deletion_time: version.deletionTime,
      destroyed: false,
      version: number,
    }
  }

  function addVersion(path: string, data: Record<string, unknown>): number {
    const versions = secrets.get(path) ?? []
    versions.push({ data, createdTime: new Date().toISOString(), deletionTime: '' })
    secrets.set(path, versions)
    return versions.length
  }

  function latest(path: string): Version | null {
    return secrets.get(path)?.at(-1) ?? null
  }

  function readSecret(path: string, url: URL): Response {
    const versions = secrets.get(path) ?? []
    const wanted = url.searchParams.has('version') ? Number(url.searchParams.get('version')) : versions.length
    const version = versions[wanted - 1]
    if (version === undefined) return json(404, { errors: [] })
    const body = envelope({
      data: version.deletionTime === '' ? version.data : null,
      metadata: metadata(version, wanted),
    })
    // A deleted version answers 404 with a normal body and no `errors`.
    return json(version.deletionTime === '' ? 200 : 404, body)
  }

  function writeSecret(path: string, body: unknown): Response {
    if (
      typeof body !== 'object' ||
      body === null ||
      !('data' in body) ||
      typeof body.data !== 'object' ||
      body.data === null
    ) {
      return json(400, { errors: ['no data provided'] })
    }
    const current = secrets.get(path)?.length ?? 0
    if ('options' in body && typeof body.options === 'object' && body.options !== null && 'cas' in body.options) {
      if (body.options.cas !== current) {
        return json(400, { errors: ['check-and-set parameter did not match the current version'] })
      }
    }
    const number = addVersion(path, { ...body.data })
    const version = secrets.get(path)?.[number - 1]
    return json(200, envelope(version === undefined ? null : metadata(version, number)))
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url)
    const path = decodeURIComponent(url.pathname)
    const token =
      request.headers.get('x-vault-token') ?? request.headers.get('authorization')?.replace(/^Bearer /, '') ?? null
    const text = await request.text()
    const body = parseBody(text)
    requests.push({ method: request.method, path, token, body: body === INVALID_JSON ? text : body })
    if (body === INVALID_JSON) return json(400, { errors: ['failed to parse JSON input'] })

    if (mode === 'hang') return new Promise<Response>((release) => held.add(() => release(json(503, { errors: [] }))))
    if (mode === 'sealed') return json(503, { errors: ['Vault is sealed'] })
    if (token === null || !tokens.has(token)) return json(403, { errors: [PERMISSION_DENIED] })

    const prefix = `/v1/${mount}/data/`
    if (!path.startsWith(prefix)) {
      return json(404, { errors: [`no handler for route "${path.replace(/^\/v1\//, '')}". route entry not found.`] })
    }
    const secretPath = path.slice(prefix.length)
    if (denied.has(secretPath)) return json(403, { errors: [PERMISSION_DENIED] })
    if (request.method === 'GET') return readSecret(secretPath, url)
    if (request.method === 'POST' || request.method === 'PUT') return writeSecret(secretPath, body)
    return json(405, { errors: [] })
  }

  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, idleTimeout: 0, fetch: handle })

  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    put(path, fields) {
      addVersion(path, { ...fields })
    },
    patch(path, field, value) {
      const current = latest(path)
      addVersion(path, { ...(current === null || current.deletionTime !== '' ? {} : current.data), [field]: value })
    },
    softDelete(path) {
      const current = latest(path)
      if (current !== null) current.deletionTime = new Date().toISOString()
    },
    fields(path) {
      const current = latest(path)
      return current === null || current.deletionTime !== '' ? null : { ...current.data }
    },
    acceptToken(token) {
      tokens.add(token)
    },
    revokeToken(token) {
      tokens.delete(token)
    },
    deny(path) {
      denied.add(path)
    },
    setMode(next) {
      mode = next
    },
    async stop() {
      for (const release of held) release()
      held.clear()
      await server.stop(true)
    },
  } satisfies FakeBao
}
