/**
 * `check --examples`: the rules against every labelled PR of the repo's
 * examples file, scored as the try-out page scores them (core/try-out/reliability.ts),
 * so a repo's CI can score a rules change before it merges. Each PR's
 * commits and diff come from the clone: its `refs/pull/<n>/head`, which
 * Forgejo publishes, fetched from `origin`, against its merge base with
 * `--base` (for a PR merged with a merge commit, the merge base with that
 * commit's first parent, where the PR forked from).
 *
 * Exit codes: 0 no answer disagrees with its label, 1 one does, 2 no
 * verdict (a labelled PR with no answer, or anything that stops the run).
 */

import type { LocalRepo } from '../../adapters/git/local-repo.ts'
import { createLocalRepo } from '../../adapters/git/local-repo.ts'
import { plural } from '../../core/base/text.ts'
import { applyLabels } from '../../core/repo-files/examples-check.ts'
import { EXAMPLES_JSON_PATH, EXAMPLES_YML_PATH, parseExamplesFile } from '../../core/repo-files/examples-file.ts'
import { formatSourceProblem, type SourceProblem } from '../../core/repo-files/source-tree.ts'
import { plainLabel } from '../../core/review/check-report.ts'
import {
  type ExamplesOutcome,
  examplesOutcome,
  renderExamplesReport,
  type UnansweredPr,
} from '../../core/review/examples-report.ts'
import { defaultTitle, unreadableEntry } from '../../core/run/local-branch.ts'
import { invalidUtf8Note } from '../../core/run/utf8.ts'
import { type PrRuns, type ScoredRun, scoreExamples } from '../../core/try-out/reliability.ts'
import type { Classification, CommitMessage, Example, RunRequest } from '../../core/wire/types.ts'
import type { CheckOptions } from './check-options.ts'
import { type CliIo, InputError } from './io.ts'
import { chooseBase, type LocalBranch, loadCheckRules, repoName } from './local-branch.ts'
import { openClassifier, outcomeOf, requireBinary, runtimeKey } from './local-classifier.ts'
import { createProgressPrinter } from './progress.ts'

export const EXAMPLES_EXIT = { agree: 0, disagree: 1, 'no-verdict': 2 } as const satisfies Record<
  ExamplesOutcome,
  number
>

const PROBLEMS_SHOWN = 10

function refusal(what: string, problems: readonly SourceProblem[]): InputError {
  const shown = problems.slice(0, PROBLEMS_SHOWN).map(formatSourceProblem)
  const more = problems.length - shown.length
  return new InputError(`${what}: ${shown.join('; ')}${more > 0 ? `; and ${more} more problems` : ''}`)
}

/** The examples file as `base` holds it: where the service reads it, the default branch. */
async function loadExamples(git: LocalRepo, base: LocalBranch['base']): Promise<{ examples: Example[]; path: string }> {
  const entries = await git.entriesAt(base.commit, [EXAMPLES_YML_PATH, EXAMPLES_JSON_PATH])
  const yml = entries.find((entry) => entry.path === EXAMPLES_YML_PATH)
  const json = entries.find((entry) => entry.path === EXAMPLES_JSON_PATH)
  if (yml !== undefined && json !== undefined) {
    throw new InputError(`${base.name} has both ${EXAMPLES_YML_PATH} and ${EXAMPLES_JSON_PATH}: keep one`)
  }
  const entry = yml ?? json
  if (entry === undefined) {
    throw new InputError(`${base.name} has no examples file: add ${EXAMPLES_YML_PATH} (or .json) there`)
  }
  const what = `the examples file ${entry.path} on ${base.name} doesn't load`
  const unreadable = unreadableEntry(entry)
  if (unreadable !== null) throw refusal(what, [{ file: entry.path, at: null, detail: unreadable }])
  const parsed = parseExamplesFile(entry.path, await git.readFileAt(base.commit, entry.path))
  if (!parsed.ok) throw refusal(what, parsed.error)
  return { examples: parsed.value, path: entry.path }
}

type PrBranch = {
  pr: number
  head: string
  mergeBase: string
  commits: CommitMessage[]
  diff: string
  /** False when the diff was not valid UTF-8 (read as the service reads it). */
  diffValid: boolean
  title: string
}

function pullRef(pr: number): string {
  return `refs/pull/${pr}/head`
}

/** A PR's commits and diff, or why there are none to ask about. */
async function readPr(git: LocalRepo, base: LocalBranch['base'], pr: number, head: string): Promise<PrBranch | string> {
  let mergeBase = await git.mergeBase(base.commit, head)
  if (mergeBase === null) return `its head shares no history with ${base.name}`
  if (mergeBase === head) {
    // Already merged: the PR forked where the merge commit's first parent meets it.
    const merge = await git.mergedBy(head, base.commit)
    const parent = merge === null ? null : await git.resolveCommit(`${merge}^1`)
    mergeBase = parent === null ? null : await git.mergeBase(parent, head)
    if (mergeBase === null || mergeBase === head) {
      return `its head is already on ${base.name}'s own line (merged without a merge commit), so its commits can't be told apart`
    }
  }
  const [commits, diff] = await Promise.all([git.commitMessages(mergeBase, head), git.diff(mergeBase, head)])
  return { pr, head, mergeBase, commits, diff: diff.text, diffValid: diff.valid, title: defaultTitle(commits, null) }
}

export async function checkExamples(options: CheckOptions, io: CliIo): Promise<number> {
  const env = io.env ?? {}
  const git = createLocalRepo({ cwd: io.cwd, env })
  const topLevel = await git.topLevel()
  const base = await chooseBase(git, options.base)
  const rules = await loadCheckRules(git, options, io.cwd, base)
  const { examples, path } = await loadExamples(git, base)
  const applied = applyLabels(examples, rules.classifications)
  const runtime = options.settings.runtime
  const key = runtimeKey(env, runtime)
  requireBinary(env, runtime)
  const repo = options.repo ?? (await repoName(git, topLevel))
  const terminal = io.terminal ?? { outColumns: null, errIsTty: false, errColumns: null }
  const progress = createProgressPrinter(io.err, { isTty: terminal.errIsTty, columns: terminal.errColumns })
  const unanswered: UnansweredPr[] = []

  const heads = await git.remoteRefs('origin', applied.prs.map(pullRef))
  const present = applied.prs.filter((pr) => heads.has(pullRef(pr)))
  for (const pr of applied.prs) {
    if (!heads.has(pullRef(pr))) unanswered.push({ pr, reason: `origin has no ${pullRef(pr)}` })
  }
  progress.note(
    `scoring ${plural(rules.classifications.length, 'rule')} on ${plural(applied.prs.length, 'labelled PR')} from ${path} on ${base.name}, ${plural(options.repeat, 'answer')} each; fetching ${plural(present.length, 'PR head')} from origin`,
  )
  await git.fetchRefs('origin', present.map(pullRef))

  const branches: PrBranch[] = []
  for (const pr of present) {
    const read = await readPr(git, base, pr, heads.get(pullRef(pr)) ?? '')
    if (typeof read === 'string') unanswered.push({ pr, reason: read })
    else branches.push(read)
  }

  const runs: PrRuns[] = []
  const prsJson: unknown[] = []
  const classifier = await openClassifier(runtime, key, io)
  try {
    const asking: Asking = { classifier, options, io, terminal, repo, progress, unanswered }
    for (const [index, branch] of branches.entries()) {
      // Only the rules labelled on this PR are asked: the others would not count.
      const asked = rules.classifications.filter((rule) =>
        applied.classifications.some(
          ({ name, labelled }) => name === rule.name && labelled.some((l) => l.pr === branch.pr),
        ),
      )
      const { prRuns, outcomes } = await askPr(asking, branch, asked, `${index + 1} of ${branches.length}`)
      runs.push({ pr: branch.pr, runs: prRuns })
      prsJson.push({
        pr: branch.pr,
        head: branch.head,
        merge_base: branch.mergeBase,
        commits: branch.commits.length,
        title: branch.title,
        runs: outcomes,
      })
    }
  } finally {
    progress.finish()
    await classifier.close()
  }

  const score = scoreExamples(rules.classifications, applied, runs, options.repeat)
  unanswered.sort((a, b) => applied.prs.indexOf(a.pr) - applied.prs.indexOf(b.pr))
  const rendered = renderExamplesReport(score, unanswered, { width: terminal.outColumns })
  const outcome = examplesOutcome(score, unanswered)
  if (options.json) {
    const document = {
      outcome,
      score,
      unanswered,
      prs: prsJson,
      repo,
      base: { name: base.name, commit: base.commit },
      rules: rules.from,
      examples: { path, at: base.name },
      ...modelOf(options),
    }
    io.out(`${JSON.stringify(document, null, 2)}\n`)
  } else {
    io.out(rendered)
  }
  return EXAMPLES_EXIT[outcome]
}

/** What every PR's questions are asked with, and where a PR left unanswered is noted. */
type Asking = {
  classifier: Awaited<ReturnType<typeof openClassifier>>
  options: CheckOptions
  io: CliIo
  terminal: NonNullable<CliIo['terminal']>
  repo: string
  progress: ReturnType<typeof createProgressPrinter>
  unanswered: UnansweredPr[]
}

/** One PR's `asked` rules, `options.repeat` times: its scored runs and each run's outcome for the JSON. */
async function askPr(
  asking: Asking,
  branch: PrBranch,
  asked: Classification[],
  place: string,
): Promise<{ prRuns: ScoredRun[]; outcomes: unknown[] }> {
  const { classifier, options, io, terminal, repo, progress, unanswered } = asking
  const prRuns: ScoredRun[] = []
  const outcomes: unknown[] = []
  if (!branch.diffValid) progress.note(invalidUtf8Note(`the diff of PR #${branch.pr}`))
  for (let answer = 1; answer <= options.repeat; answer += 1) {
    if (io.signal?.aborted) throw new InputError('interrupted: the score is incomplete')
    const repeatText = options.repeat === 1 ? '' : `, answer ${answer} of ${options.repeat}`
    progress.note(
      `PR #${branch.pr} (${place}${repeatText}): ${plural(branch.commits.length, 'commit')} since ${branch.mergeBase.slice(0, 12)}, ${plural(asked.length, 'rule')}`,
    )
    // A printer per run: its counts are the run's own.
    const runProgress = createProgressPrinter(io.err, { isTty: terminal.errIsTty, columns: terminal.errColumns })
    const reply = await classifier.run(request(repo, branch, asked, options), runProgress)
    const outcome = outcomeOf(reply, asked, branch.diff, io.signal?.aborted === true)
    if (io.signal?.aborted) throw new InputError('interrupted: the score is incomplete')
    prRuns.push(outcome.rows.length > 0 ? outcome.rows : null)
    outcomes.push({ overall: outcome.overall, reason: outcome.reason, rows: outcome.rows.map(jsonRow) })
    const missing = asked.filter((rule) => !outcome.rows.some((row) => row.name === rule.name && row.verdict !== null))
    if (missing.length > 0) {
      const why = outcome.reason === null ? '' : `: ${plainLabel(outcome.reason, 120)}`
      unanswered.push({
        pr: branch.pr,
        reason: `no answer for ${missing.map((rule) => JSON.stringify(plainLabel(rule.name, 40))).join(', ')}${repeatText}${why}`,
      })
    }
  }
  return { prRuns, outcomes }
}

/** The runtime, model and effort the score was asked with, for the JSON. */
function modelOf(options: CheckOptions) {
  const { runtime } = options.settings
  return {
    runtime,
    model: runtime === 'acp' ? (options.settings.acp?.model ?? null) : options.settings.model,
    effort: options.settings.effort,
  }
}

function jsonRow(row: { name: string; verdict: unknown; certainty: unknown; reason: unknown; error: unknown }) {
  return { name: row.name, verdict: row.verdict, certainty: row.certainty, reason: row.reason, error: row.error }
}

function request(repo: string, branch: PrBranch, classifications: Classification[], options: CheckOptions): RunRequest {
  return {
    id: `local-examples-${branch.pr}`,
    trigger: 'try-out',
    repo,
    pr: branch.pr,
    title: branch.title,
    commits: branch.commits,
    diff: branch.diff,
    classifications,
    ...options.settings,
  }
}
