/**
 * The review pipeline's world for tests: the memory forge seeded with
 * `acme/widgets` (rules file, PR 42, the service account as a write
 * collaborator and its token), the memory queue with a scripted classifier,
 * the memory secret store holding the token, and small settings and run
 * stores implementing the controller's interfaces.
 */
import { createFixedClock } from '../../../adapters/memory/clock.ts'
import { createMemoryForge, type ForgeSeed, type MemoryForge } from '../../../adapters/memory/forge.ts'
import { createSequenceIds } from '../../../adapters/memory/ids.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { createMemoryQueue, type MemoryQueue } from '../../../adapters/memory/queue.ts'
import { createMemorySecretStore, type MemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import type { AppError } from '../../../core/base/errors.ts'
import { ok } from '../../../core/base/result.ts'
import type { ReviewRequest } from '../../../core/review/webhook.ts'
import type { RunRecord } from '../../../core/run/run-record.ts'
import { decodeRunRequest } from '../../../core/run/wire-decode.ts'
import { SERVICE_TOKEN } from '../../../core/settings/service-account.ts'
import { DEFAULT_SETTINGS } from '../../../core/settings/settings.ts'
import type { Row, RunReply, RunRequest, Settings } from '../../../core/wire/types.ts'
import type { ReviewRunDeps } from '../../../entrypoints/controller/usecases/review/review-run.ts'
import type { RunStore } from '../../../entrypoints/controller/usecases/run/run-store.ts'
import type { SettingsStore } from '../../../entrypoints/controller/usecases/settings/settings-store.ts'
import type { RunTell } from '../../../ports/queue.ts'
import { aSeedRepo } from '../../support/builders.ts'

export const SERVICE_ACCOUNT_TOKEN = 'rc-svc-token-3d9a7c51e2b8'
export const REPO = { owner: 'acme', name: 'widgets' }

export type TestSettingsStore = SettingsStore & {
  set(patch: Partial<Settings>): void
  /** While set, `read` rejects with this error. */
  fail(error: AppError | null): void
  reads(): number
}

export function createTestSettingsStore(initial: Partial<Settings> = {}): TestSettingsStore {
  let settings: Settings = { ...DEFAULT_SETTINGS, ...initial }
  let failure: AppError | null = null
  let readCount = 0
  return {
    async read() {
      await Promise.resolve()
      readCount += 1
      if (failure !== null) throw failure
      return { ...settings }
    },
    async update() {
      return ok(settings)
    },
    set(patch) {
      settings = { ...settings, ...patch }
    },
    fail(error) {
      failure = error
    },
    reads() {
      return readCount
    },
  } satisfies TestSettingsStore
}

export type TestRunStore = RunStore & { readonly records: RunRecord[] }

export function createTestRunStore(): TestRunStore {
  const records: RunRecord[] = []
  return {
    records,
    async record(run) {
      await Promise.resolve()
      records.unshift(run)
    },
    async list() {
      return [...records]
    },
  } satisfies TestRunStore
}

/** A classifier answer per rule name; rules not listed match with certainty 95. `tell` reports progress before the reply. */
export type Script = (request: RunRequest, tell: RunTell) => RunReply | Promise<RunReply>

export function answeredRow(request: RunRequest, name: string, overrides: Partial<Row> = {}): Row {
  const rule = request.classifications.find((c) => c.name === name)
  if (rule === undefined) throw new Error(`no rule ${name} in the request`)
  return {
    name,
    polarity: rule.polarity,
    threshold: rule.threshold,
    verdict: 'match',
    certainty: 95,
    reason: 'It holds.',
    counted: true,
    fails: false,
    error: null,
    usage: { input: 100, output: 10, cache_read: 0, cache_write: 0 },
    ...overrides,
  }
}

/** Every rule answered `match` at 95, overall `approve`. */
export function approveAll(request: RunRequest): RunReply {
  return {
    id: request.id,
    ok: true,
    rows: request.classifications.map((c) => answeredRow(request, c.name)),
    overall: 'approve',
  }
}

export type World = {
  forge: MemoryForge
  queue: MemoryQueue
  secrets: MemorySecretStore
  settings: TestSettingsStore
  runs: TestRunStore
  clock: ReturnType<typeof createFixedClock>
  logger: ReturnType<typeof createRecordingLogger>
  deps: ReviewRunDeps
  /** The run requests the classifier received, decoded. */
  requests: RunRequest[]
  /** Starts the scripted classifier; `onCancel` hears every run cancel the queue sends. */
  serve(script: Script, onCancel?: (id: string) => void): Promise<void>
}

export function createWorld(
  options: { seed?: ForgeSeed; settings?: Partial<Settings>; runTimeoutMs?: number; token?: string | null } = {},
): World {
  const forge = createMemoryForge(
    options.seed ?? {
      users: [{ login: 'review-classifier' }, { login: 'alice' }],
      tokens: [{ login: 'review-classifier', name: 'swarm-review-classifier', token: SERVICE_ACCOUNT_TOKEN }],
      repos: [aSeedRepo()],
    },
  )
  const queue = createMemoryQueue()
  const token = options.token === undefined ? SERVICE_ACCOUNT_TOKEN : options.token
  const secrets = createMemorySecretStore(
    token === null ? {} : { [SERVICE_TOKEN.secret.path]: { [SERVICE_TOKEN.secret.field]: token } },
  )
  const settings = createTestSettingsStore(options.settings)
  const runs = createTestRunStore()
  const clock = createFixedClock()
  const logger = createRecordingLogger()
  const requests: RunRequest[] = []
  const deps: ReviewRunDeps = {
    forge,
    queue,
    secrets,
    settings,
    runs,
    clock,
    ids: createSequenceIds(),
    logger,
    exchange: { runTimeoutMs: options.runTimeoutMs ?? 5_000, replyMarginMs: 0 },
  }
  return {
    forge,
    queue,
    secrets,
    settings,
    runs,
    clock,
    logger,
    deps,
    requests,
    async serve(script, onCancel) {
      await queue.serve(async (text, tell) => {
        const decoded = decodeRunRequest(text)
        if (!decoded.ok) throw new Error(decoded.error)
        requests.push(decoded.value)
        return script(decoded.value, tell)
      }, onCancel)
    },
  }
}

/** The review request for a PR (default 42) at the PR's current head. */
export async function requestFor(world: World, overrides: Partial<ReviewRequest> = {}): Promise<ReviewRequest> {
  const pr = overrides.pr ?? 42
  const pull = await world.forge.getPullRequest(REPO, pr)
  return { repo: REPO, pr, headSha: pull.headSha, requester: 'alice', ...overrides }
}

/** Polls until `condition` holds; fails after a generous deadline instead of hanging. */
export async function until(condition: () => boolean, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
}

/** A promise and the function that settles it, to hold a scripted classifier until a test lets go. */
export function gate(): { wait: Promise<void>; open(): void } {
  let open = (): void => undefined
  const wait = new Promise<void>((resolve) => {
    open = resolve
  })
  return { wait, open }
}
