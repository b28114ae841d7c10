/**
 * What one review run does as the service account (docs/behaviour.md, "The
 * review", "Reviewer handoff"): post its review and set its commit statuses,
 * each with the token read from the secret store for that call.
 *
 * While the token is being minted, the post and the statuses wait for it
 * (service-token.ts), and the run doesn't: a pending status that finds no
 * token goes on in the background and is set once the token is there, and
 * the post waits for it first, so the pending still comes before the review
 * and the verdict's status.
 */

import { describeError } from '../../../../core/base/errors.ts'
import { err, ok, type Result } from '../../../../core/base/result.ts'
import { redactSecrets } from '../../../../core/base/text.ts'
import {
  COMMIT_STATUS_CONTEXT,
  PENDING_STATUS,
  type StatusProblem,
  type StatusText,
} from '../../../../core/review/commit-status.ts'
import type { ReviewRequest } from '../../../../core/review/webhook.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { Forge, NewReview, PostedReview } from '../../../../ports/forge.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { SecretStore } from '../../../../ports/secret-store.ts'
import {
  createServiceTokens,
  type ServiceAccountGate,
  type ServiceTokenProblem,
  type ServiceTokens,
} from '../settings/service-token.ts'

/** Logged, at `warn`, for each commit status the forge refused or that couldn't be sent. */
export const STATUS_REFUSED_MESSAGE = 'review classifier commit status not set'

export type ReviewActsDeps = {
  forge: Pick<Forge, 'forAccount'>
  secrets: SecretStore
  logger: Logger
  /** Whether the account may act, and its token's arrival while it is minted (service-token.ts). */
  serviceAccount?: ServiceAccountGate
  /** How long the post and statuses wait for a token being minted; default the forge's bound for a call. */
  tokenWaitMs?: number
}

export type ReviewActs = {
  /**
   * The pending status on `sha`. With the token there it is set before this
   * resolves; while the token is being minted this resolves at once and the
   * status follows once the token is there (see {@link post}).
   */
  pending(sha: string, targetUrl: string | null): Promise<void>
  /** Posts the review, after a pending still waiting for the token; waits while the token is minted. */
  post(review: NewReview): Promise<Result<PostedReview, string>>
  /** Sets a status; one the forge refuses (or with no token) is logged and kept in {@link refused}. */
  status(sha: string, status: StatusText, targetUrl: string | null): Promise<void>
  /** Each status that couldn't be set, in order, for the record's detail. */
  readonly refused: StatusProblem[]
}

/** The acts of one run for `request`: one token wait serves its post and every status. */
export function createReviewActs(deps: ReviewActsDeps, request: ReviewRequest): ReviewActs {
  const tokens: ServiceTokens = createServiceTokens(deps.secrets, deps.serviceAccount, deps.tokenWaitMs)
  const refused: StatusProblem[] = []
  /** The pending status still waiting for the token, if any. */
  let pendingInFlight: Promise<void> | null = null

  async function status(
    sha: string,
    text: StatusText,
    targetUrl: string | null,
    read?: Result<string, ServiceTokenProblem>,
  ): Promise<void> {
    const token = read ?? (await tokens.read())
    let problem: string
    if (token.ok) {
      try {
        await deps.forge
          .forAccount(token.value)
          .setCommitStatus(request.repo, sha, { ...text, context: COMMIT_STATUS_CONTEXT, targetUrl })
        return
      } catch (error) {
        problem = redactSecrets(describeError(error), [token.value])
      }
    } else {
      problem = token.error.detail
    }
    refused.push({ state: text.state, error: problem })
    deps.logger.warn(STATUS_REFUSED_MESSAGE, {
      repo: repoName(request.repo),
      pr: request.pr,
      head_sha: sha,
      state: text.state,
      error: problem,
    })
  }

  return {
    refused,
    async pending(sha, targetUrl) {
      const token = await tokens.now()
      if (!token.ok && token.error.kind === 'missing' && tokens.canWait()) {
        pendingInFlight = status(sha, PENDING_STATUS, targetUrl)
        return
      }
      await status(sha, PENDING_STATUS, targetUrl, token)
    },
    async post(review) {
      await pendingInFlight
      const token = await tokens.read()
      if (!token.ok) return err(`the review couldn't be posted: ${token.error.detail}`)
      try {
        return ok(await deps.forge.forAccount(token.value).createReview(request.repo, request.pr, review))
      } catch (error) {
        // The forge's error text is never expected to hold the token; make sure.
        return err(`the review couldn't be posted: ${redactSecrets(describeError(error), [token.value])}`)
      }
    },
    status: (sha, text, targetUrl) => status(sha, text, targetUrl),
  } satisfies ReviewActs
}
