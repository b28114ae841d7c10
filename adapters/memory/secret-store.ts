/** An in-memory secret store: secrets by path, each a map of fields. */
import { type AppError, appError } from '../../core/base/errors.ts'
import type { SecretStore } from '../../ports/secret-store.ts'

export type MemorySecretStore = SecretStore & {
  /** Makes reads and writes of `path` fail with `forbidden`, as a policy that doesn't grant it. */
  forbid(path: string): void
  /** While set, every call rejects with this error (an unreachable or sealed store). */
  simulateFailure(error: AppError | null): void
}

/** `initial` maps a path to its fields, e.g. `{ 'swarm/x/forge/token': { token: 't' } }`. */
export function createMemorySecretStore(initial: Record<string, Record<string, string>> = {}): MemorySecretStore {
  const secrets = new Map<string, Map<string, string>>(
    Object.entries(initial).map(([path, fields]) => [path, new Map(Object.entries(fields))]),
  )
  const forbidden = new Set<string>()
  let failure: AppError | null = null

  async function check(path: string): Promise<void> {
    await Promise.resolve()
    if (failure !== null) throw failure
    if (forbidden.has(path)) throw appError('forbidden', `the secret store refuses ${path}`)
  }

  return {
    async read(path, field) {
      await check(path)
      return secrets.get(path)?.get(field) ?? null
    },
    async write(path, field, value) {
      await check(path)
      secrets.set(path, new Map([[field, value]]))
    },
    forbid(path) {
      forbidden.add(path)
    },
    simulateFailure(error) {
      failure = error
    },
  } satisfies MemorySecretStore
}
