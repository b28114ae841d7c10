/**
 * The rules-change report (docs/behaviour.md, "The rules-change report"):
 * when a reviewed PR changes the rules file or the examples file, the PR's
 * version of the rules (and of the examples, when it changes them) is scored
 * against the default branch's on the newest labelled PRs, one answer each.
 * The review's verdict and commit status are posted first and are the
 * default branch's rules' alone; the report is its own post after them
 * (report-job.ts), and never fails the review: at worst it is one line
 * saying why it was skipped.
 *
 * It runs only for a review requested by someone with write access to the
 * repo: anyone who may request the reviewer (a PR's poster may) would
 * otherwise start up to twenty runs each time. Every run reserves its cost
 * against the daily budget like any other (budgeted-run.ts), and the whole
 * report has one deadline, `RUN_TIMEOUT_S`; whatever stops it early (the
 * deadline, the budget, the controller stopping), what was answered by then
 * is what it shows.
 *
 * Each labelled PR is read once and asked at most twice: the default
 * branch's rules, then the PR's rules whose question (name and description)
 * the default branch doesn't ask. The runs go a few at a time. They are not
 * recorded in the run store.
 */
import { raceAbort } from '../../../../core/base/abort.ts'
import { describeError } from '../../../../core/base/errors.ts'
import type { LoadedExamples } from '../../../../core/repo-files/repo-examples.ts'
import { describeExamplesRefusal } from '../../../../core/repo-files/repo-examples.ts'
import { describeRulesRefusal } from '../../../../core/repo-files/repo-rules.ts'
import {
  compareRules,
  newQuestions,
  questionKey,
  type ReportSide,
  reportPrs,
  touchedFiles,
} from '../../../../core/review/rules-change.ts'
import {
  type ReportStop,
  renderReportSkipped,
  renderRulesChangeReport,
} from '../../../../core/review/rules-change-body.ts'
import { readRunReply } from '../../../../core/run/run-reply.ts'
import type { ScoredAnswer } from '../../../../core/try-out/reliability.ts'
import { runsAtOnce } from '../../../../core/try-out/try-out-runs.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { Classification, Example, RepoRef, Runtime, Settings } from '../../../../core/wire/types.ts'
import type { ForgeReader, RepoPermission } from '../../../../ports/forge.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { RunQueue } from '../../../../ports/queue.ts'
import { loadExamplesAt } from '../repo-files/examples-loader.ts'
import { loadRulesAt, type RulesReader } from '../repo-files/rules-loader.ts'
import { sendBudgetedRun } from '../run/budgeted-run.ts'
import { type PullRead, type PullReader, readPullAtOneHead, runRequestFor } from '../run/pull-read.ts'
import type { RunExchangeOptions } from '../run/run-exchange.ts'
import type { SpendLedger } from '../settings/spend-ledger.ts'
import { eachAtMost } from '../try-out/try-out-slots.ts'

export type RulesChangeReportDeps = {
  forge: RulesReader & PullReader & Pick<ForgeReader, 'getRepoPermission'>
  queue: RunQueue
  logger: Logger
  /** `RUN_TIMEOUT_S` is the whole report's deadline, as it is a run's. */
  exchange: Pick<RunExchangeOptions, 'runTimeoutMs' | 'replyMarginMs'>
  /** The daily budget: asked before the report's first read, and reserved by each of its runs; none: no budget. */
  spend?: Pick<SpendLedger, 'whyNoRun' | 'reserve'>
}

/** What the review already read: the PR, the default branch's rules and where they were read, the settings. */
export type ReportBasis = {
  id: string
  repo: RepoRef
  read: PullRead
  rules: { branch: string; commit: string; classifications: Classification[] }
  settings: Settings
  /** The runtime the review itself ran on (repo_runtimes resolved): the report's runs go there too. */
  runtime: Runtime
}

/** The access that may start the report: write, or more. */
const MAY_START: ReadonlySet<RepoPermission> = new Set(['write', 'admin', 'owner'])

class Skipped extends Error {}

/** The report's deadline passed (`RUN_TIMEOUT_S`). */
export class ReportDeadline extends Error {
  constructor(readonly ms: number) {
    super(`RUN_TIMEOUT_S (${Math.max(1, Math.round(ms / 1000))} s), the report's deadline, passed`)
  }
}

function examplesOf(loaded: LoadedExamples, whose: string): Example[] {
  if (loaded.kind === 'none') return []
  if (loaded.kind === 'examples') return loaded.examples
  throw new Skipped(`${whose} ${describeExamplesRefusal(loaded)}`)
}

/** Whether the review gets a report at all: the setting on, and the PR changing the rules or examples file. */
export function reportIsDue(basis: Pick<ReportBasis, 'settings' | 'read'>): boolean {
  if (!basis.settings.rules_change_report) return false
  const touched = touchedFiles(basis.read.diff)
  return touched.rules || touched.examples
}

/** What the report has learnt so far, so a stop can show it. */
type ReportState = {
  /** Once both versions are read and the PRs chosen. */
  scored: { before: ReportSide; after: ReportSide; prs: number[]; examplesChanged: boolean } | null
  answers: Map<number, Map<string, ScoredAnswer>>
  /** Labelled PRs whose every run was answered. */
  answered: number
  /** Set when the budget refused a run: no more are sent. */
  budgetStop: string | null
}

/** Why the report stopped, in words, from the abort's reason. */
function stopWords(reason: unknown): string {
  if (reason instanceof ReportDeadline) return reason.message
  return 'the controller is stopping'
}

function render(state: ReportState, stopped: ReportStop | null): string {
  const { scored } = state
  if (scored === null) return renderReportSkipped(stopped?.why ?? 'it was stopped')
  const answers = scored.prs.map((pr) => ({ pr, answers: state.answers.get(pr) ?? new Map() }))
  return renderRulesChangeReport(compareRules(scored.before, scored.after, answers), scored.examplesChanged, stopped)
}

/**
 * The report's markdown for a review requested by `requester`, or null when
 * the review gets none (see {@link reportIsDue}). Never rejects: a failure
 * is the skipped line. `signal` stops it (the controller is stopping); its
 * own deadline is `RUN_TIMEOUT_S`.
 */
export async function rulesChangeReport(
  deps: RulesChangeReportDeps,
  basis: ReportBasis,
  requester: string,
  signal?: AbortSignal,
): Promise<string | null> {
  if (!reportIsDue(basis)) return null
  if (signal?.aborted) return renderReportSkipped(stopWords(signal.reason))
  const deadline = new AbortController()
  const timer = setTimeout(
    () => deadline.abort(new ReportDeadline(deps.exchange.runTimeoutMs)),
    deps.exchange.runTimeoutMs,
  )
  const stop = signal === undefined ? deadline.signal : AbortSignal.any([deadline.signal, signal])
  const state: ReportState = { scored: null, answers: new Map(), answered: 0, budgetStop: null }
  try {
    const work = build(deps, basis, requester, state, stop).catch((error: unknown) => {
      if (error instanceof Skipped) return renderReportSkipped(error.message)
      deps.logger.warn('review classifier rules-change report skipped', { id: basis.id, error: describeError(error) })
      return renderReportSkipped(`it couldn't be made: ${describeError(error)}`)
    })
    // Stopped: what was answered by then is the report; the runs in flight are dropped.
    return await raceAbort(work, stop, (reason) => render(state, { why: stopWords(reason), answered: state.answered }))
  } finally {
    clearTimeout(timer)
  }
}

/** Why `requester` may not start the report, or null when they may. */
async function accessRefusal(deps: RulesChangeReportDeps, repo: RepoRef, requester: string): Promise<string | null> {
  let permission: RepoPermission
  try {
    permission = await deps.forge.getRepoPermission(repo, requester)
  } catch (error) {
    return `the requester's access to ${repoName(repo)} couldn't be read: ${describeError(error)}`
  }
  if (MAY_START.has(permission)) return null
  const has = permission === 'none' ? 'no' : permission
  return `it runs only for a review requested by someone with write access to ${repoName(repo)}, and ${requester} has ${has} access`
}

async function build(
  deps: RulesChangeReportDeps,
  basis: ReportBasis,
  requester: string,
  state: ReportState,
  signal: AbortSignal,
): Promise<string> {
  const refusedAccess = await accessRefusal(deps, basis.repo, requester)
  if (refusedAccess !== null) throw new Skipped(refusedAccess)
  const refusal = await budgetRefusal(deps, basis.repo)
  if (refusal !== null) throw new Skipped(refusal)
  const { forge } = deps
  const { repo, read, rules } = basis
  const touched = touchedFiles(read.diff)
  const head = read.pull.headSha
  const prBranch = `the PR's head ${head.slice(0, 12)}`
  const [baseExamples, prExamples, prRules] = await Promise.all([
    loadExamplesAt(forge, repo, rules.branch, rules.commit),
    touched.examples ? loadExamplesAt(forge, repo, prBranch, head) : null,
    touched.rules ? loadRulesAt(forge, repo, prBranch, head) : null,
  ])
  const beforeExamples = examplesOf(baseExamples, 'on the default branch,')
  const afterExamples = prExamples === null ? beforeExamples : examplesOf(prExamples, 'in this PR,')
  if (baseExamples.kind === 'none' && (prExamples === null || prExamples.kind === 'none')) {
    throw new Skipped('the repo has no examples file to score the rules against')
  }
  let afterRules = rules.classifications
  if (prRules !== null && prRules.kind !== 'none') {
    if (prRules.kind !== 'rules') throw new Skipped(`in this PR, ${describeRulesRefusal(prRules)}`)
    afterRules = prRules.classifications
  } else if (prRules !== null) {
    afterRules = []
  }
  const before: ReportSide = { rules: rules.classifications, examples: beforeExamples }
  const after: ReportSide = { rules: afterRules, examples: afterExamples }
  const prs = reportPrs(before, after)
  if (prs.length === 0) throw new Skipped('no labelled PR has a label for a rule of either version')
  state.scored = { before, after, prs, examplesChanged: touched.examples }
  await askAll(deps, basis, state, [before.rules, newQuestions(before.rules, after.rules)], signal)
  return render(state, state.budgetStop === null ? null : { why: state.budgetStop, answered: state.answered })
}

async function budgetRefusal(deps: RulesChangeReportDeps, repo: RepoRef): Promise<string | null> {
  try {
    return (await deps.spend?.whyNoRun(repo)) ?? null
  } catch {
    return "the daily budget couldn't be read, so the report's runs didn't start"
  }
}

/** Each PR read once and asked each non-empty question set once; a PR or run that fails leaves its answers out. */
async function askAll(
  deps: RulesChangeReportDeps,
  basis: ReportBasis,
  state: ReportState,
  sets: readonly (readonly Classification[])[],
  signal: AbortSignal,
): Promise<void> {
  const asked = sets.filter((set) => set.length > 0)
  const most = Math.max(1, ...asked.map((set) => set.length))
  const prs = state.scored?.prs ?? []
  await eachAtMost(prs, runsAtOnce(most), async (pr) => {
    if (signal.aborted || state.budgetStop !== null) return
    const answers = new Map<string, ScoredAnswer>()
    state.answers.set(pr, answers)
    const read = await readPullAtOneHead(deps.forge, basis.repo, pr)
    if (!read.ok || signal.aborted) return
    let whole = true
    for (const [index, classifications] of asked.entries()) {
      if (state.budgetStop !== null) return
      const id = `${basis.id}-rc${pr}${index === 0 ? '' : `-${index + 1}`}`
      const request = runRequestFor({
        id,
        trigger: 'review',
        repo: basis.repo,
        pr,
        read: read.value,
        classifications: [...classifications],
        settings: basis.settings,
        runtime: basis.runtime,
      })
      const sent = await sendBudgetedRun(deps, request, { ...deps.exchange, signal })
      if (sent.kind === 'refused') {
        state.budgetStop = sent.reason
        return
      }
      const reading = sent.reply.ok ? readRunReply(id, request.classifications, sent.reply.value, request.diff) : null
      if (reading?.kind !== 'answered') {
        whole = false
        continue
      }
      for (const row of reading.checked.rows) {
        const rule = classifications.find((candidate) => candidate.name === row.name)
        if (rule !== undefined && row.error === null) {
          answers.set(questionKey(rule), { verdict: row.verdict, certainty: row.certainty })
        }
      }
    }
    if (whole && !signal.aborted) state.answered += 1
  })
}
