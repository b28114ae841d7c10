/**
 * `POST /api/review-classifier/try-out` and `GET /api/review-classifier/try-out/{id}`
 * (docs/behaviour.md, "Try-out"; docs/decisions.md, "Wire formats"): run typed
 * classifications against a PR without touching the forge, and read the
 * result back (the use case is usecases/try-out/try-outs.ts).
 *
 * The POST does what can be answered in a request before its `202`: the
 * body, the settings (read now, as the spec says), and the PR's head (or,
 * for a replay, the list of the repo's last PRs) with the controller's
 * token, so an unknown repo or PR is a 404 and a forge that's down a 503,
 * not a try-out that fails later where nobody asked. The commits and the
 * diff are read in the background with the run: they're the slow part, and
 * the run reads the head again around them anyway.
 *
 * The body is read by core, not by Elysia, so a 400's detail is core's
 * message naming the entry and the problem.
 */
import { Elysia, t } from 'elysia'
import { appError, isAppError } from '../../../../core/base/errors.ts'
import { capText } from '../../../../core/base/text.ts'
import { type AppliedLabels, applyLabels } from '../../../../core/repo-files/examples-file.ts'
import { describeExamplesRefusal, describeNoExamples } from '../../../../core/repo-files/repo-examples.ts'
import { noRuntimeReason, resolveRepoRuntime } from '../../../../core/settings/repo-runtimes.ts'
import { parseTryOutBody } from '../../../../core/try-out/try-out.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import { TryOutAcceptedSchema, TryOutRequestSchema, TryOutViewSchema } from '../../../../core/wire/schemas.ts'
import type { Classification, RepoRef, Settings } from '../../../../core/wire/types.ts'
import type { ForgePullRequest } from '../../../../ports/forge.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { QueueLink } from '../../../../ports/queue.ts'
import { loadDefaultBranchExamples } from '../../usecases/repo-files/examples-loader.ts'
import type { SettingsStore } from '../../usecases/settings/settings-store.ts'
import type { SpendLedger } from '../../usecases/settings/spend-ledger.ts'
import { TRY_OUTS_RUNNING_MAX, type TryOutForge, type TryOuts } from '../../usecases/try-out/try-outs.ts'
import { ProblemSchema, RemoteUserHeaders, requireQueue, requireRemoteUser, storeFailure } from '../problem.ts'
import { forgeFailure, requireForge } from './forge-read.ts'

export type TryOutRoutesDeps = {
  /** The swarm queue connection, `null` when this host has none. */
  queue: QueueLink | null
  /** `null` when this host has no forge (FORGE_URL unset). */
  forge: TryOutForge | null
  settings: Pick<SettingsStore, 'read'>
  tryOuts: TryOuts
  logger: Logger
  /** The daily budget: once it is spent a try-out is a 429 (docs/behaviour.md, "Daily budget"); none: no budget. */
  spend?: Pick<SpendLedger, 'whyNoRun'>
}

/** An id quoted back in a 404 is cut to this, so a long one isn't echoed whole. */
const SHOWN_ID_CHARS = 101

export function tryOutRoutes(deps: TryOutRoutesDeps) {
  const { queue, settings, tryOuts, logger } = deps

  async function readSettings(): Promise<Settings> {
    try {
      return await settings.read()
    } catch (error) {
      throw storeFailure(logger, 'settings', 'read', error)
    }
  }

  /** The 429 once today's budget is spent, with the words a review's no-verdict has. */
  async function requireBudget(repo: RepoRef): Promise<void> {
    let refusal: string | null
    try {
      refusal = (await deps.spend?.whyNoRun(repo)) ?? null
    } catch (error) {
      throw storeFailure(logger, 'spend', 'read', error)
    }
    if (refusal !== null) throw appError('exhausted', refusal)
  }

  async function listRecent(forge: TryOutForge, repo: RepoRef, count: number): Promise<ForgePullRequest[]> {
    let pulls: ForgePullRequest[]
    try {
      pulls = await forge.listRecentPulls(repo, count)
    } catch (error) {
      if (isAppError(error, 'not_found')) {
        throw appError('not_found', `the forge has no repo ${repoName(repo)} that this host can read`)
      }
      throw forgeFailure(error, `the recent pull requests of ${repoName(repo)}`, logger)
    }
    if (pulls.length === 0) {
      throw appError('not_found', `${repoName(repo)} has no open or merged pull request to replay`)
    }
    return pulls
  }

  /** The labels of the examples file that apply to the posted classifications: 404 with no file, 422 when it doesn't load. */
  async function readLabelled(
    forge: TryOutForge,
    repo: RepoRef,
    classifications: readonly Classification[],
  ): Promise<{ applied: AppliedLabels; repoUrl: string }> {
    let read: Awaited<ReturnType<typeof loadDefaultBranchExamples>>
    try {
      read = await loadDefaultBranchExamples(forge, repo)
    } catch (error) {
      throw forgeFailure(error, 'the examples', logger)
    }
    const { loaded } = read
    if (loaded.kind === 'none') throw appError('not_found', describeNoExamples(repo, loaded.branch))
    if (loaded.kind !== 'examples') throw appError('unprocessable', describeExamplesRefusal(loaded))
    const applied = applyLabels(loaded.examples, classifications)
    if (applied.prs.length === 0) {
      throw appError(
        'unprocessable',
        `no label in ${loaded.path} names a classification posted, so there is nothing to score: label a PR for one of them`,
      )
    }
    return { applied, repoUrl: read.htmlUrl }
  }

  async function readHead(forge: TryOutForge, repo: RepoRef, pr: number): Promise<string> {
    const name = `${repoName(repo)}#${pr}`
    try {
      return (await forge.getPullRequest(repo, pr)).headSha
    } catch (error) {
      if (isAppError(error, 'not_found')) {
        throw appError(
          'not_found',
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
          if (!parsed.ok) throw appError('invalid', parsed.error)
          const asked = parsed.value
          const { repo, classifications } = asked
          // Before the forge reads: a POST past the bound costs nothing.
          tryOuts.checkRoom()
          requireQueue(queue)
          const forge = requireForge(deps.forge)
          const settingsNow = await readSettings()
          // Before the forge reads: a repo the policy sends to no runtime gets no run at all.
          const resolved = resolveRepoRuntime(settingsNow, repoName(repo))
          if (resolved.runtime === 'none')
            throw appError('forbidden', noRuntimeReason(repoName(repo), resolved.pattern))
          const runtime = resolved.runtime
          await requireBudget(repo)
          const common = { forge, repo, classifications, settings: settingsNow, runtime, requester: user }
          let id: string
          if ('examples' in asked) {
            const { applied, repoUrl } = await readLabelled(forge, repo, classifications)
            id = tryOuts.startExamples({ ...common, repeat: asked.repeat, applied, repoUrl })
          } else if ('replay' in asked) {
            const pulls = await listRecent(forge, repo, asked.replay)
            id = tryOuts.startReplay({ ...common, count: asked.replay, pulls })
          } else {
            const headSha = await readHead(forge, repo, asked.pr)
            const repeat = asked.repeat === undefined ? {} : { repeat: asked.repeat }
            id = tryOuts.start({ ...common, pr: asked.pr, headSha, ...repeat })
          }
          logger.info('review classifier try-out started', {
            id,
            repo: repoName(repo),
            ...('examples' in asked
              ? { examples: true, repeat: asked.repeat }
              : 'replay' in asked
                ? { replay: asked.replay }
                : { pr: asked.pr, repeat: asked.repeat ?? 1 }),
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
            403: ProblemSchema,
            404: ProblemSchema,
            422: ProblemSchema,
            429: ProblemSchema,
            500: ProblemSchema,
            503: ProblemSchema,
          },
          detail: {
            summary: "Run classifications against a PR, repeatedly, or against the repo's last PRs; nothing is posted",
            description:
              'Answers at once with the id to read the result at. repeat (1–10) asks every classification that many ' +
              'times on the PR; replay (1–20), instead of pr, runs them against the repo’s last PRs, open or merged; ' +
              'examples: true, instead of pr, runs them (repeat times) against every labelled PR of the examples file. ' +
              '400 for a body that breaks a rule (a repeat or replay out of range among them); ' +
              "403 for a repo the settings' repo_runtimes send to no runtime (none); " +
              '404 for a repo or PR the forge does not know, a repo with no PR to replay, or no examples file; ' +
              '422 for an examples file that does not load, or one with no label for a classification posted; ' +
              `429 while ${TRY_OUTS_RUNNING_MAX} try-outs run (a repeat, a replay or the examples is one), until one finishes, ` +
              "and once today's spend (UTC) has reached budget.daily_usd; " +
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
            const shown = JSON.stringify(capText(params.id, SHOWN_ID_CHARS))
            throw appError('not_found', `no try-out ${shown}: unknown, or finished more than an hour ago`)
          }
          return found
        },
        {
          params: t.Object({ id: t.String() }),
          response: { 200: TryOutViewSchema, 404: ProblemSchema },
          detail: {
            summary: 'A try-out’s status and result, kept for an hour after it finishes',
            description:
              'While it runs, rows holds the rows finished so far (re-checked, for display only); the reply’s rows ' +
              'replace them. A repeat adds repeat (each classification’s answers and flips), a replay adds replay ' +
              '(one line per PR), examples adds examples (one line per labelled PR, every run’s rows) and score.',
            tags: ['try-out'],
          },
        },
      )
  )
}
