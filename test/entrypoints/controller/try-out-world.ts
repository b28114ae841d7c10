/**
 * The try-out routes' world for tests: the review world (memory forge with
 * `acme/widgets` PR 42, memory queue with a scripted classifier, test
 * settings and run stores, fixed clock), the try-outs and the controller
 * app with the try-out routes mounted, and a log of every forge call the
 * try-out routes make.
 */
import { createSequenceIds } from '../../../adapters/memory/ids.ts'
import type { RunReply, RunRequest } from '../../../core/wire/types.ts'
import { createControllerApp } from '../../../entrypoints/controller/http/app.ts'
import { runsRoutes } from '../../../entrypoints/controller/http/routes/runs.ts'
import { settingsRoutes } from '../../../entrypoints/controller/http/routes/settings.ts'
import { tryOutRoutes } from '../../../entrypoints/controller/http/routes/try-out.ts'
import {
  createTryOuts,
  type TryOutForge,
  type TryOuts,
  type TryOutsDeps,
} from '../../../entrypoints/controller/usecases/try-out/try-outs.ts'
import { aClassification } from '../../support/builders.ts'
import { aRequest } from './http/http-support.ts'
import { answeredRow, createWorld, type World } from './review-world.ts'

export const TRY_OUT = '/api/review-classifier/try-out'

export type TryOutWorld = World & {
  app: ReturnType<typeof createControllerApp>
  tryOuts: TryOuts
  /** The queue link the routes see; flip `up` to take it down. */
  link: { up: boolean }
  /** Every forge method the try-out routes called, in order. */
  forgeCalls: string[]
  /**
   * `onCall` runs before each forge call the try-out routes make, with the PR it is about (null for a list); a
   * test sets it to change the forge at that point, or throws from it to fail the call.
   */
  forgeHooks: { onCall: (method: string, pr: number | null) => void }
}

export type TryOutWorldOptions = Parameters<typeof createWorld>[0] & {
  /** `null`: this host has no queue. */
  queue?: null
  /** `null`: this host has no forge. */
  forge?: null
  tryOuts?: Partial<Pick<TryOutsDeps, 'keepMs' | 'maxKept' | 'exchange'>>
}

export function createTryOutWorld(options: TryOutWorldOptions = {}): TryOutWorld {
  const world = createWorld(options)
  const link = { up: true }
  const forgeCalls: string[] = []
  const forgeHooks = { onCall: (_method: string, _pr: number | null): void => undefined }
  // Only what the try-out routes may call; anything else would be a type error here.
  const forge: TryOutForge = {
    getPullRequest(repo, pr) {
      forgeCalls.push('getPullRequest')
      forgeHooks.onCall('getPullRequest', pr)
      return world.forge.getPullRequest(repo, pr)
    },
    listPullCommits(repo, pr) {
      forgeCalls.push('listPullCommits')
      forgeHooks.onCall('listPullCommits', pr)
      return world.forge.listPullCommits(repo, pr)
    },
    getPullDiff(repo, pr, maxBytes) {
      forgeCalls.push('getPullDiff')
      forgeHooks.onCall('getPullDiff', pr)
      return world.forge.getPullDiff(repo, pr, maxBytes)
    },
    getRepository(repo) {
      forgeCalls.push('getRepository')
      forgeHooks.onCall('getRepository', null)
      return world.forge.getRepository(repo)
    },
    getBranchHead(repo, branch) {
      forgeCalls.push('getBranchHead')
      forgeHooks.onCall('getBranchHead', null)
      return world.forge.getBranchHead(repo, branch)
    },
    getFileContent(repo, path, ref) {
      forgeCalls.push('getFileContent')
      forgeHooks.onCall('getFileContent', null)
      return world.forge.getFileContent(repo, path, ref)
    },
    listRecentPulls(repo, count) {
      forgeCalls.push('listRecentPulls')
      forgeHooks.onCall('listRecentPulls', null)
      return world.forge.listRecentPulls(repo, count)
    },
  }
  const tryOuts = createTryOuts({
    queue: world.queue,
    runs: world.runs,
    clock: world.clock,
    ids: createSequenceIds('try-'),
    logger: world.logger,
    exchange: { runTimeoutMs: 5_000, replyMarginMs: 0 },
    ...options.tryOuts,
  })
  const queue = options.queue === null ? null : { connected: () => link.up }
  const app = createControllerApp({
    logger: world.logger,
    routes: [
      settingsRoutes({ queue, settings: world.settings, logger: world.logger }),
      runsRoutes({ queue, runs: world.runs, logger: world.logger }),
      tryOutRoutes({
        queue,
        forge: options.forge === null ? null : forge,
        settings: world.settings,
        tryOuts,
        logger: world.logger,
      }),
    ],
  })
  return Object.assign(world, { app, tryOuts, link, forgeCalls, forgeHooks })
}

export function aTryOutBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    repo: 'acme/widgets',
    pr: 42,
    classifications: [
      aClassification(),
      aClassification({
        name: 'no-ads',
        description: 'A commit advertises an AI model.',
        polarity: 'negative',
        threshold: 90,
      }),
    ],
    ...overrides,
  }
}

export function postTryOut(body: unknown, headers: Record<string, string> = { 'remote-user': 'ann' }): Request {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  return aRequest(TRY_OUT, { method: 'POST', body: text, headers: { 'content-type': 'application/json', ...headers } })
}

export function getTryOut(id: string): Request {
  return aRequest(`${TRY_OUT}/${encodeURIComponent(id)}`)
}

/** Posts a try-out that must be accepted; answers its id. */
export async function startTryOut(world: TryOutWorld, body: unknown = aTryOutBody(), user = 'ann'): Promise<string> {
  const response = await world.app.handle(postTryOut(body, { 'remote-user': user }))
  const answer: unknown = await response.json()
  if (response.status !== 202) throw new Error(`the try-out was refused: ${response.status} ${JSON.stringify(answer)}`)
  if (typeof answer !== 'object' || answer === null || !('id' in answer) || typeof answer.id !== 'string') {
    throw new Error(`the 202 has no id: ${JSON.stringify(answer)}`)
  }
  return answer.id
}

/** The GET's body for an id that must exist. */
export async function readTryOut(world: TryOutWorld, id: string): Promise<Record<string, unknown>> {
  const response = await world.app.handle(getTryOut(id))
  const body: unknown = await response.json()
  if (response.status !== 200 || typeof body !== 'object' || body === null) {
    throw new Error(`GET ${id}: ${response.status} ${JSON.stringify(body)}`)
  }
  return { ...body }
}

/** Every rule answered on its passing side at 95: positive ones match, negative ones don't; overall `approve`. */
export function allClear(request: RunRequest): RunReply {
  return {
    id: request.id,
    ok: true,
    rows: request.classifications.map((rule) =>
      answeredRow(request, rule.name, { verdict: rule.polarity === 'positive' ? 'match' : 'no-match' }),
    ),
    overall: 'approve',
  }
}
