/**
 * One requested review, once it has a run place (docs/behaviour.md, "Trigger and
 * lifecycle", "The review", "Reviewer handoff", "Run store and retention"):
 * read the PR and set the pending commit status on the head read, read the
 * rules, send the run, re-check the reply, post the service account's review
 * on the commit read, set the status the verdict makes, record the run. The
 * post and the statuses are the service account's acts (review-acts.ts):
 * while its token is being minted they wait for it, and the run doesn't.
 * What the run concludes and posts is in review-conclusion.ts, the status
 * it makes in review-status.ts, its record in review-record.ts.
 *
 * Nothing here throws for a failure outside the process: every one of them
 * ends as a `**No verdict:**` COMMENT review (or a run that couldn't post),
 * and every run is recorded. A run with no clean verdict never approves.
 */

import { raceAbort } from '../../../../core/base/abort.ts'
import { describeError } from '../../../../core/base/errors.ts'
import { err, ok, type Result } from '../../../../core/base/result.ts'
import { loadedRules } from '../../../../core/repo-files/repo-rules.ts'
import { type NoRunCause, noRunText } from '../../../../core/review/no-run.ts'
import type { ReviewRequest } from '../../../../core/review/webhook.ts'
import type { RunRecord } from '../../../../core/run/run-record.ts'
import { unaskedReply } from '../../../../core/run/unasked-run.ts'
import { noRuntimeReason, resolveRepoRuntime } from '../../../../core/settings/repo-runtimes.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { RepoRef, Settings } from '../../../../core/wire/types.ts'
import type { Clock } from '../../../../ports/clock.ts'
import type { Forge } from '../../../../ports/forge.ts'
import type { Ids } from '../../../../ports/ids.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { QueueWatch, RunQueue } from '../../../../ports/queue.ts'
import type { SecretStore } from '../../../../ports/secret-store.ts'
import { loadDefaultBranchRules } from '../repo-files/rules-loader.ts'
import { readPullAtOneHead, runRequestFor } from '../run/pull-read.ts'
import type { QueueReach } from '../run/queue-reach.ts'
import type { RunExchangeOptions } from '../run/run-exchange.ts'
import type { RunStore } from '../run/run-store.ts'
import type { ServiceAccountGate } from '../settings/service-token.ts'
import type { SettingsStore } from '../settings/settings-store.ts'
import type { SpendLedger } from '../settings/spend-ledger.ts'
import { type ReportJob, reportJob } from './report-job.ts'
import { createReviewActs, type ReviewActs } from './review-acts.ts'
import { type BudgetRefusal, budgetRefusal, type Reaching, reachFor, sendReviewRun } from './review-budget.ts'
import {
  type Concluded,
  type Conclusion,
  concludeReply,
  type Learnt,
  NOTHING_LEARNT,
  newReview,
  noRunConclusion,
  noVerdict,
  stoppedReason,
} from './review-conclusion.ts'
import { outcomeOf, type ReviewRecordDeps, recordReview } from './review-record.ts'
import { conclusionStatus, statusTarget } from './review-status.ts'
import type { ReportBasis, RulesChangeReportDeps } from './rules-change-report.ts'
import { type Waivers, withReminder } from './waivers.ts'

export { ReviewStopped } from './review-conclusion.ts'

// The names the pipeline and the tests use, beside the runner they belong to.
export { LEFT_PENDING_MESSAGE } from './review-record.ts'

export type ReviewRunDeps = {
  forge: Pick<
    Forge,
    | 'getRepository'
    | 'getBranchHead'
    | 'getPullRequest'
    | 'listPullCommits'
    | 'getPullDiff'
    | 'getFileContent'
    | 'getRepoPermission'
    | 'forAccount'
  >
  queue: RunQueue
  secrets: SecretStore
  settings: Pick<SettingsStore, 'read'>
  runs: Pick<RunStore, 'record'>
  clock: Clock
  ids: Ids
  logger: Logger
  /** `RUN_TIMEOUT_S` in milliseconds, and what the reply's wait adds to it (run-exchange.ts). */
  exchange: Pick<RunExchangeOptions, 'runTimeoutMs' | 'replyMarginMs'>
  /**
   * Whether the service account may act (an admin may have stopped it), and
   * its token's arrival while it is being minted; none: the forge's refusal
   * alone says, and a missing token fails at once.
   */
  serviceAccount?: ServiceAccountGate
  /** How long a review's post and statuses wait for a token being minted; default the forge's bound for a call. */
  tokenWaitMs?: number
  /**
   * The daily budget (docs/behaviour.md, "Daily budget"): a review once it
   * is spent starts no run, and every run, the report's too, reserves its
   * cost before it starts; none: no budget.
   */
  spend?: Pick<SpendLedger, 'whyNoRun' | 'reserve'>
  /**
   * The queue's connection, waited for when a review can't reach the queue,
   * the settings or the ledger (queue-reach.ts), up to `RUN_TIMEOUT_S`;
   * none: such a review posts its no-verdict at once.
   */
  queueWatch?: QueueWatch
  /** The PR's earlier waivers, listed under a later head's review as a reminder (waivers.ts); none: no reminder. */
  waivers?: Pick<Waivers, 'reminder'>
  /** Each rule's counts (rule-health.ts), added once the run is recorded; none: not counted. */
  ruleHealth?: NonNullable<ReviewRecordDeps['ruleHealth']>
}

export type ReviewOptions = {
  /**
   * Stops the review before its verdict: the wait for the classifier ends,
   * nothing more is sent, and the review posts a no-verdict with the abort
   * reason's text (a {@link ReviewStopped}) instead of whatever the run would
   * have concluded. A verdict already being posted is posted.
   */
  signal?: AbortSignal
  /**
   * Takes the rules-change report, once the verdict is posted, to run
   * outside the review's place (the pipeline's report-runs.ts); none: the
   * review makes and posts it itself before it resolves.
   */
  report?: (job: ReportJob) => void
}

export type ReviewRunner = {
  /** Runs one review that has its place; resolves with the recorded run, never rejects for an outside failure. */
  review(request: ReviewRequest, options?: ReviewOptions): Promise<RunRecord>
  /**
   * Posts the no-verdict comment for a request that gets no run (every
   * place taken, the controller stopping) and sets its error status, both on
   * the head the delivery named, and records it.
   */
  noRun(request: ReviewRequest, cause: NoRunCause): Promise<RunRecord>
}

/** The rules from the default branch, read with no cache (docs/behaviour.md, "Repo configuration"). */
async function readRules(forge: ReviewRunDeps['forge'], repo: RepoRef): Promise<Result<ReportBasis['rules'], string>> {
  try {
    const rules = loadedRules(repo, await loadDefaultBranchRules(forge, repo))
    if (!rules.ok) return err(rules.error.detail)
    const { branch, commit, classifications } = rules.value
    return ok({ branch, commit, classifications })
  } catch (error) {
    return err(`the rules couldn't be read: ${describeError(error)}`)
  }
}

async function readSettings(deps: ReviewRunDeps, reach: QueueReach): Promise<Result<Settings, string>> {
  try {
    return ok(await reach(() => deps.settings.read()))
  } catch (error) {
    return err(`the settings couldn't be read: ${describeError(error)}`)
  }
}

/** One review's run, from its place to its conclusion. */
type ReviewRun = {
  id: string
  request: ReviewRequest
  acts: ReviewActs
  signal: AbortSignal | undefined
  /** The queue's reach, and the budget's answer when it couldn't be read before the PR was. */
  waiting: Reaching & { budget: Promise<BudgetRefusal | null> }
}

/** Reads the PR, the settings and the rules, sends the run and re-checks its reply; `learn` hears what it learns on the way. */
async function conclude(
  deps: ReviewRunDeps,
  run: ReviewRun,
  learn: (more: Partial<Learnt>) => void,
): Promise<Conclusion> {
  const { id, request, signal, waiting } = run
  // The settings and the rules don't depend on the PR: all three are read at once. None of the
  // reads rejects, so one that isn't awaited after a failure above it is simply dropped.
  const settingsRead = readSettings(deps, waiting.reach)
  const rulesRead = readRules(deps.forge, request.repo)
  const read = await readPullAtOneHead(deps.forge, request.repo, request.pr, (headSha) => learn({ headSha }))
  if (!read.ok) return noVerdict(read.error)
  // Stopped while it read: the stopped run's statuses are on their way, and a pending now would come after them.
  if (signal?.aborted) return noVerdict(stoppedReason(signal.reason))
  // Pending as soon as the head is settled, and set before anything is asked of the classifier,
  // unless the token is still being minted: then it follows the token, and the run goes on (review-acts.ts).
  const { pull } = read.value
  learn({ pullUrl: pull.htmlUrl })
  const [settings, rules] = await Promise.all([settingsRead, rulesRead, run.acts.pending(pull.headSha, pull.htmlUrl)])
  if (!settings.ok) return noVerdict(settings.error)
  // A repo the policy sends to no runtime gets no run: nothing goes to the classifier, so no key is read.
  const resolved = resolveRepoRuntime(settings.value, repoName(request.repo))
  if (resolved.runtime === 'none') return noVerdict(noRuntimeReason(repoName(request.repo), resolved.pattern))
  if (!rules.ok) return noVerdict(rules.error)

  const { classifications } = rules.value
  const basis = { read: read.value, settings: settings.value, runtime: resolved.runtime }
  learn({ basis: { id, repo: request.repo, rules: rules.value, ...basis } })
  const runRequest = runRequestFor({
    id,
    trigger: 'review',
    repo: request.repo,
    pr: request.pr,
    classifications,
    ...basis,
  })
  // The budget spent, or the one that couldn't be read before the PR was: the run goes only once it
  // says so. A run that asks no rule (every one out of scope) needs none: it is approved with no model call.
  const refused = await waiting.budget
  if (refused !== null && unaskedReply(runRequest) === null) return noRunConclusion(refused)
  // A review stopped while it read sends no run: the classifier would work for nobody.
  if (signal?.aborted) return noVerdict(stoppedReason(signal.reason))
  const reply = await sendReviewRun(deps, runRequest, waiting, signal)
  if (!reply.ok) return reply.error
  const replied = concludeReply(runRequest, reply.value)
  learn({ redaction: replied.redaction })
  return replied.conclusion
}

/**
 * The run's conclusion and what it learnt, or, once `signal` aborts first,
 * the stopped no-verdict with what the run had learnt by then: a read still
 * going on may finish, and change nothing that is posted or recorded.
 */
function concludeUnlessStopped(deps: ReviewRunDeps, run: ReviewRun): Promise<Concluded> {
  let learnt = NOTHING_LEARNT
  const learn = (more: Partial<Learnt>): void => {
    learnt = { ...learnt, ...more }
  }
  const running = conclude(deps, run, learn).then((conclusion) => ({ conclusion, learnt }))
  return raceAbort(running, run.signal, (reason) => ({ conclusion: noVerdict(stoppedReason(reason)), learnt }))
}

export function createReviewRunner(deps: ReviewRunDeps): ReviewRunner {
  // The report answers to the review's own budget, and its runs go through the same queue.
  const reportDeps: RulesChangeReportDeps = {
    forge: deps.forge,
    queue: deps.queue,
    logger: deps.logger,
    exchange: deps.exchange,
    ...(deps.spend === undefined ? {} : { spend: deps.spend }),
  }

  function started(): Pick<RunRecord, 'id' | 'started_unix'> {
    return { id: deps.ids.runId(), started_unix: Math.floor(deps.clock.nowMs() / 1000) }
  }

  async function noRun(request: ReviewRequest, cause: NoRunCause): Promise<RunRecord> {
    const base = started()
    const { reason, status, outcome } = noRunText(cause)
    // The PR isn't read: the comment and its error status go on the head the delivery named, and the record has no head.
    // It never started a run, so no pending; its error status goes where the comment went.
    const acts = createReviewActs(deps, request)
    const concluded = { conclusion: noVerdict(reason), learnt: NOTHING_LEARNT }
    const posted = await acts.post(newReview(concluded.conclusion, request.headSha))
    await acts.status(request.headSha, status, statusTarget(posted, null))
    return recordReview(deps, { base, request, outcome, concluded, posted, refused: acts.refused })
  }

  return {
    async review(request, options = {}) {
      const base = started()
      // An account an admin stopped posts nothing: nothing is read or run for it either.
      const stopped = (await deps.serviceAccount?.whyStopped()) ?? null
      if (stopped !== null) {
        const posted = err(stopped)
        return recordReview(deps, { base, request, outcome: 'post-failed', concluded: null, posted, refused: [] })
      }
      const acts = createReviewActs(deps, request)
      // A ledger that can't be read: nothing is read or run, as for a full queue. Spent: the PR and its
      // rules are still read, as only they say whether any rule is in scope; the budget's no-verdict
      // comes before any run is sent. A ledger out of reach is waited for while the PR is read and its
      // pending status set; the run goes only once the budget lets it (queue-reach.ts). Its waits for
      // the queue end with the review's conclusion: a budget look still waiting then is moot.
      const concluded = new AbortController()
      const signal = options.signal
      const { reach, queue } = reachFor(
        deps,
        signal === undefined ? concluded.signal : AbortSignal.any([signal, concluded.signal]),
      )
      const refused = await budgetRefusal(deps, request.repo, null)
      if (refused !== null && refused !== 'unreachable' && refused.kind !== 'budget-spent')
        return noRun(request, refused)
      const budget = refused === 'unreachable' ? budgetRefusal(deps, request.repo, reach) : Promise.resolve(refused)
      const waiting = { reach, queue, budget: budget.then((answer) => (answer === 'unreachable' ? null : answer)) }
      const result = await concludeUnlessStopped(deps, { id: base.id, request, acts, signal, waiting })
      concluded.abort()
      const { conclusion, learnt } = result
      // The verdict belongs to the head the run read; only when the PR wasn't
      // read does the comment fall back to the head the delivery named.
      const commitId = learnt.headSha ?? request.headSha
      const posted = await acts.post(
        await withReminder(deps.waivers, request, newReview(conclusion, commitId, learnt.redaction)),
      )
      // The status goes where the review went, and says the verdict even when the post failed.
      await acts.status(commitId, conclusionStatus(conclusion), statusTarget(posted, learnt.pullUrl))
      const outcome = outcomeOf(result)
      const record = await recordReview(deps, {
        base,
        request,
        outcome,
        concluded: result,
        posted,
        refused: acts.refused,
      })
      // After the verdict and its status, as a post of its own, and only for a run the classifier answered.
      const hasTable = conclusion.kind === 'verdict' || conclusion.table !== null
      const job =
        hasTable && posted.ok && learnt.basis !== null
          ? reportJob(reportDeps, request, learnt.basis, commitId, acts)
          : null
      if (job !== null) {
        if (options.report === undefined) await job.run(signal)
        else options.report(job)
      }
      return record
    },

    noRun,
  } satisfies ReviewRunner
}
