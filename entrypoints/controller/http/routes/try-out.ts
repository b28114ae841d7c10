/**
 * `POST /api/review-classifier/try-out` and `GET /api/review-classifier/try-out/{id}`
 * (docs/behaviour.md, "Try-out"; docs/decisions.md, "Wire formats"): run typed classifications
 * against a PR without touching the forge, and read the result back.
 *
 * The POST does what can be answered in a request before its `202`: the
 * body, the settings (read now, as the spec says), and the PR's head with
 * the controller's token, so an unknown repo or PR is a 404 and a forge
 * that's down a 503, not a try-out that fails later where nobody asked. The
 * commits and the diff are read in the background with the run: they're
 * the slow part, and the run reads the head again around them anyway.
 *
 * The body is parsed here, not by Elysia, so a 400's detail is core's
 * message naming the entry and the problem.
 */

// TypeBox's own Integer: Elysia's accepts a numeric string too, which is for query strings and clutters the document.
import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import { isAppError } from '../../../../core/errors.ts'
import { repoName } from '../../../../core/repo.ts'
import { err, ok, type Result } from '../../../../core/result.ts'
import { formatRulesProblems, MAX_CLASSIFICATIONS, validateClassifications } from '../../../../core/rules-file.ts'
import type { Classification, RepoRef, Settings } from '../../../../core/types.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { SettingsStore } from '../../usecases/stores.ts'
import type { TryOutForge, TryOuts } from '../../usecases/try-outs.ts'
import {
  errorReason,
  HttpProblem,
  ProblemSchema,
  parseJsonBody,
  type QueueLink,
  RemoteUserHeaders,
  requireQueue,
  requireRemoteUser,
  storeFailureStatus,
} from '../problem.ts'
import { forgeFailure, parseRepoValue, requireForge } from './forge-read.ts'
import { ClassificationSchema } from './rules.ts'
import { RunSchema } from './runs.ts'

export type TryOutRoutesDeps = {
  /** The swarm queue connection, `null` when this host has none. */
  queue: QueueLink | null
  /** `null` when this host has no forge (FORGE_URL unset). */
  forge: TryOutForge | null
  settings: Pick<SettingsStore, 'read'>
  tryOuts: TryOuts
  logger: Logger
}

export type TryOutBody = { repo: RepoRef; pr: number; classifications: Classification[] }

export const TRY_OUT_PATH = '/api/review-classifier/try-out'

/** The fields the body must hold; others are ignored (docs/decisions.md, wire formats). */
const BODY_KEYS = ['repo', 'pr', 'classifications'] as const
const SHOWN_CHARS = 100

/** For the OpenAPI document only: the body is checked by core, field by field. */
const TryOutRequestSchema = t.Object(
  {
    repo: t.String({ description: 'owner/name' }),
    pr: Type.Integer({ minimum: 1, description: 'The PR number; an open, closed or merged PR all work.' }),
    classifications: t.Array(ClassificationSchema, {
      minItems: 1,
      maxItems: MAX_CLASSIFICATIONS,
      description: "In the rules file's shape, with the same checks.",
    }),
  },
  { description: 'The classifications to run against the PR.' },
)

const TryOutAcceptedSchema = t.Object({
  id: t.String({ description: 'Read the result at /api/review-classifier/try-out/{id}.' }),
})

const RowSchema = RunSchema.properties.rows.items

export const TryOutSchema = t.Object(
  {
    id: t.String(),
    status: t.Union([t.Literal('running'), t.Literal('done'), t.Literal('failed')]),
    repo: t.String({ description: 'owner/name' }),
    pr: Type.Integer(),
    head_sha: t.Union([t.String(), t.Null()], {
      description: 'The head the run read; the one the POST read while it starts.',
    }),
    rows: t.Union([t.Array(RowSchema), t.Null()], { description: 'Once the classifier answered.' }),
    overall: t.Union([t.Literal('approve'), t.Literal('request-changes'), t.Literal('no-verdict'), t.Null()]),
    detail: t.Union([t.String(), t.Null()], { description: 'Why the try-out failed.' }),
  },
  { description: 'A try-out, kept for an hour after it finishes.' },
)

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function shown(text: string): string {
  return JSON.stringify(text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text)
}

/** A value in a message, without echoing anything long or nested. */
function describeValue(value: unknown): string {
  if (typeof value === 'string') return `${shown(value)} (a string)`
  if (typeof value === 'number') return String(value)
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  return typeof value === 'object' ? 'an object' : typeof value
}

function prProblem(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return null
  return `pr must be a positive whole number, got ${describeValue(value)}`
}

/**
 * The POST body, every problem at once: the repo, the PR number and the
 * classifications (1–10, the rules file's checks and words, entries named
 * by index and name).
 */
export function parseTryOutBody(text: string): Result<TryOutBody, string> {
  const parsed = parseJsonBody(text)
  if (!parsed.ok) return err("the body isn't JSON: send { repo, pr, classifications } as a JSON object")
  const body = parsed.value
  if (!isRecord(body))
    return err(`the body must be a JSON object { repo, pr, classifications }, got ${describeValue(body)}`)
  // Other fields are ignored: docs/decisions.md reads every wire body that way.
  const missing = BODY_KEYS.filter((key) => !(key in body))
  if (missing.length > 0)
    return err(`missing field${missing.length > 1 ? 's' : ''} ${missing.map((key) => `"${key}"`).join(', ')}`)
  const repo = parseRepoValue(body.repo)
  const pr = prProblem(body.pr)
  const classifications = validateClassifications(body.classifications, 'the body')
  if (repo.ok && pr === null && classifications.ok) {
    return ok({ repo: repo.value, pr: Number(body.pr), classifications: classifications.value })
  }
  const problems = [
    repo.ok ? null : repo.error,
    pr,
    classifications.ok ? null : formatRulesProblems(classifications.error),
  ]
  return err(problems.filter((problem) => problem !== null).join('\n'))
}

export function tryOutRoutes(deps: TryOutRoutesDeps) {
  const { queue, settings, tryOuts, logger } = deps

  async function readSettings(): Promise<Settings> {
    try {
      return await settings.read()
    } catch (error) {
      const status = storeFailureStatus(error)
      // Queue trouble (503) comes and goes; anything else (500) needs a look.
      const fields = { action: 'read', status, error: errorReason(error) }
      if (status === 503) logger.warn('review classifier settings store failed', fields)
      else logger.error('review classifier settings store failed', fields)
      throw new HttpProblem(status, `the settings can't be read: ${errorReason(error)}`)
    }
  }

  async function readHead(forge: TryOutForge, repo: RepoRef, pr: number): Promise<string> {
    const name = `${repoName(repo)}#${pr}`
    try {
      return (await forge.getPullRequest(repo, pr)).headSha
    } catch (error) {
      if (isAppError(error, 'not_found')) {
        throw new HttpProblem(
          404,
          `the forge has no pull request ${name}: no such repo or PR, or the controller can't see it (${error.message})`,
        )
      }
      throw forgeFailure(error, `the pull request ${name}`, logger)
    }
  }

  return (
    new Elysia({ name: 'review-classifier-try-out', prefix: '/api/review-classifier' })
      // A named model, referenced by the POST's documented body: Elysia mustn't validate the body itself.
      .model({ TryOutRequest: TryOutRequestSchema })
      .post(
        '/try-out',
        async ({ body, request, set }) => {
          const user = requireRemoteUser(request, 'a try-out')
          const parsed = parseTryOutBody(typeof body === 'string' ? body : '')
          if (!parsed.ok) throw new HttpProblem(400, parsed.error)
          const { repo, pr, classifications } = parsed.value
          requireQueue(queue)
          const forge = requireForge(deps.forge)
          const settingsNow = await readSettings()
          const headSha = await readHead(forge, repo, pr)
          const id = tryOuts.start({
            forge,
            repo,
            pr,
            headSha,
            classifications,
            settings: settingsNow,
            requester: user,
          })
          logger.info('review classifier try-out started', {
            id,
            repo: repoName(repo),
            pr,
            requester: user,
            classifications: classifications.length,
          })
          set.status = 202
          return { id }
        },
        {
          parse: 'text',
          headers: RemoteUserHeaders,
          response: {
            202: TryOutAcceptedSchema,
            400: ProblemSchema,
            401: ProblemSchema,
            404: ProblemSchema,
            500: ProblemSchema,
            503: ProblemSchema,
          },
          detail: {
            summary: 'Run classifications against a PR; nothing is posted to the forge',
            description:
              'Answers at once with the id to read the result at. 404 for a repo or PR the forge does not know; ' +
              '503 without a swarm queue, without a forge or its token, or with the forge down.',
            tags: ['try-out'],
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/TryOutRequest' } } },
            },
          },
        },
      )
      .get(
        '/try-out/:id',
        ({ params }) => {
          const found = tryOuts.get(params.id)
          if (found === null) {
            throw new HttpProblem(404, `no try-out ${shown(params.id)}: unknown, or finished more than an hour ago`)
          }
          return found
        },
        {
          params: t.Object({ id: t.String() }),
          response: { 200: TryOutSchema, 404: ProblemSchema },
          detail: { summary: 'A try-out’s status and result, kept for an hour after it finishes', tags: ['try-out'] },
        },
      )
  )
}
