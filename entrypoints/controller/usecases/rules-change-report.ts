/**
 * The rules-change report (docs/behaviour.md, "The rules-change report"):
 * when a reviewed PR changes the rules file or the examples file, the PR's
 * version of the rules (and of the examples, when it changes them) is scored
 * against the default branch's on the newest labelled PRs, one answer each,
 * and the review shows the section below its table. The verdict and the
 * commit status are the default branch's rules' alone: nothing here feeds
 * them, and the report never fails the review; at worst it is one line
 * saying why it was skipped.
 *
 * Each labelled PR is read once and asked at most twice: the default
 * branch's rules, then the PR's rules whose question (name and description)
 * the default branch doesn't ask. The runs go a few at a time, within the
 * review's own place. They are not recorded in the run store.
 */
import { raceAbort } from '../../../core/abort.ts'
import { describeError } from '../../../core/errors.ts'
import type { ScoredAnswer } from '../../../core/reliability.ts'
import type { LoadedExamples } from '../../../core/repo-examples.ts'
import { describeExamplesRefusal } from '../../../core/repo-examples.ts'
import { describeRulesRefusal } from '../../../core/repo-rules.ts'
import {
  compareRules,
  newQuestions,
  questionKey,
  type ReportAnswers,
  type ReportSide,
  reportPrs,
  touchedFiles,
} from '../../../core/rules-change.ts'
import { renderReportSkipped, renderRulesChangeReport } from '../../../core/rules-change-body.ts'
import { readRunReply } from '../../../core/run-reply.ts'
import { runsAtOnce } from '../../../core/try-out-runs.ts'
import type { Classification, Example, RepoRef, Runtime, Settings } from '../../../core/types.ts'
import type { Logger } from '../../../ports/logger.ts'
import type { RunQueue } from '../../../ports/queue.ts'
import { sendBudgetedRun } from './budgeted-run.ts'
import { loadExamplesAt } from './examples-loader.ts'
import { type PullRead, type PullReader, readPullAtOneHead, runRequestFor } from './pull-read.ts'
import { loadRulesAt, type RulesReader } from './rules-loader.ts'
import type { RunExchangeOptions } from './run-exchange.ts'
import type { SpendLedger } from './spend-ledger.ts'
import { eachAtMost } from './try-out-slots.ts'

export type RulesChangeReportDeps = {
  forge: RulesReader & PullReader
  queue: RunQueue
  logger: Logger
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

class Skipped extends Error {}

function examplesOf(loaded: LoadedExamples, whose: string): Example[] {
  if (loaded.kind === 'none') return []
  if (loaded.kind === 'examples') return loaded.examples
  throw new Skipped(`${whose} ${describeExamplesRefusal(loaded)}`)
}

/**
 * The report's markdown, or null when the PR changes neither file or the
 * setting turns the report off. Never rejects: a failure is the skipped line.
 */
export async function rulesChangeReport(
  deps: RulesChangeReportDeps,
  basis: ReportBasis,
  signal?: AbortSignal,
): Promise<string | null> {
  if (!basis.settings.rules_change_report) return null
  const touched = touchedFiles(basis.read.diff)
  if (!touched.rules && !touched.examples) return null
  const work = build(deps, basis, touched, signal).catch((error: unknown) => {
    if (error instanceof Skipped) return renderReportSkipped(error.message)
    deps.logger.warn('review classifier rules-change report skipped', { id: basis.id, error: describeError(error) })
    return renderReportSkipped(`it couldn't be made: ${describeError(error)}`)
  })
  return raceAbort(work, signal, () => renderReportSkipped('the controller is stopping'))
}

async function build(
  deps: RulesChangeReportDeps,
  basis: ReportBasis,
  touched: { rules: boolean; examples: boolean },
  signal: AbortSignal | undefined,
): Promise<string> {
  const refusal = await budgetRefusal(deps, basis.repo)
  if (refusal !== null) throw new Skipped(refusal)
  const { forge } = deps
  const { repo, read, rules } = basis
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
  const extra = newQuestions(before.rules, after.rules)
  const answers = await askAll(deps, basis, prs, [before.rules, extra], signal)
  return renderRulesChangeReport(compareRules(before, after, answers), touched.examples)
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
  prs: readonly number[],
  sets: readonly (readonly Classification[])[],
  signal: AbortSignal | undefined,
): Promise<ReportAnswers[]> {
  const asked = sets.filter((set) => set.length > 0)
  const byPr = new Map<number, Map<string, ScoredAnswer>>(prs.map((pr) => [pr, new Map()]))
  const most = Math.max(1, ...asked.map((set) => set.length))
  // Once the budget refuses a run, no more are sent: the answers so far are the report.
  let budgetSpent = false
  await eachAtMost(prs, runsAtOnce(most), async (pr) => {
    if (budgetSpent) return
    const answers = byPr.get(pr) ?? new Map()
    const read = await readPullAtOneHead(deps.forge, basis.repo, pr, { headSha: null })
    if (!read.ok || signal?.aborted) return
    for (const [index, classifications] of asked.entries()) {
      if (budgetSpent) return
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
      const sent = await sendBudgetedRun(
        deps,
        request,
        signal === undefined ? deps.exchange : { ...deps.exchange, signal },
      )
      if (sent.kind === 'refused') {
        budgetSpent = true
        return
      }
      if (!sent.reply.ok) continue
      const reading = readRunReply(id, request.classifications, sent.reply.value)
      if (reading.kind !== 'answered') continue
      for (const row of reading.checked.rows) {
        const rule = classifications.find((candidate) => candidate.name === row.name)
        if (rule !== undefined && row.error === null) {
          answers.set(questionKey(rule), { verdict: row.verdict, certainty: row.certainty })
        }
      }
    }
  })
  return prs.map((pr) => ({ pr, answers: byPr.get(pr) ?? new Map() }))
}
