/**
 * `check`: the repo's rules against the local branch, before anything is
 * pushed. The branch becomes the run request a PR would (its commits and
 * diff since the merge base with the base), and the real classifier service
 * answers it in this process, so hash stripping, lockfile collapse, the size
 * budget, the prompt bytes, warm-first and the deadlines are the service's
 * own. Works with no queue, forge, secret store or controller: the key comes
 * from the environment through an in-memory secret store.
 *
 * Exit codes: 0 approve, 1 request changes, 2 no verdict, whatever the
 * reason (usage errors included), so a hook can block on 1 alone.
 */
import { createLocalRepo } from '../../adapters/git/local-repo.ts'
import { describeError, isAppError } from '../../core/base/errors.ts'
import { plural } from '../../core/base/text.ts'
import { checkJsonRow, plainLabel, renderCheckReport } from '../../core/review/check-report.ts'
import { countDiffFiles } from '../../core/run/local-branch.ts'
import { outOfScopeNames } from '../../core/run/scope.ts'
import { invalidUtf8Note } from '../../core/run/utf8.ts'
import type { Overall, RunReply, RunRequest } from '../../core/wire/types.ts'
import { type CheckOptions, parseCheckOptions } from './check-options.ts'
import { checkExamples } from './examples.ts'
import { type CliIo, InputError } from './io.ts'
import { type LoadedRules, type LocalBranch, loadCheckRules, readLocalBranch } from './local-branch.ts'
import { openClassifier, outcomeOf, requireBinary, runtimeKey } from './local-classifier.ts'
import { createProgressPrinter, type ProgressPrinter } from './progress.ts'

export const CHECK_EXIT = {
  approve: 0,
  'request-changes': 1,
  'no-verdict': 2,
} as const satisfies Record<Overall, number>

function describeRun(branch: LocalBranch, rules: LoadedRules, options: CheckOptions): string[] {
  const { settings } = options
  const model =
    settings.runtime === 'acp'
      ? `${settings.acp?.model} at ${settings.acp?.base_url} (ACP)`
      : `claude ${settings.model}${settings.runtime === 'subscription' ? ' (subscription)' : ''}`
  const source = rules.from.at === null ? rules.from.path : `${rules.from.path} on ${rules.from.at}`
  const lines = [
    `checking ${plural(branch.commits.length, 'commit')} (${plural(countDiffFiles(branch.diff), 'file')} changed) on ${branch.branch ?? branch.head.name} since ${branch.mergeBase.slice(0, 12)}, its merge base with ${branch.base.name}`,
    `as PR #${options.pr} in ${plainLabel(branch.repo)}, titled ${JSON.stringify(branch.title)}`,
    `${plural(rules.classifications.length, 'rule')} from ${source}; model ${model}${settings.effort === null ? '' : `, effort ${settings.effort}`}`,
  ]
  const outOfScope = outOfScopeNames(rules.classifications, branch.diff)
  if (outOfScope.size > 0) {
    const names = [...outOfScope].map((name) => JSON.stringify(plainLabel(name, 40))).join(', ')
    lines.push(`not asked, no changed file matches their paths: ${names}`)
  }
  if (branch.dirty) lines.push('uncommitted changes are not checked: only commits are')
  if (!branch.diffValid) lines.push(invalidUtf8Note('the diff'))
  return lines
}

async function runClassifier(
  request: RunRequest,
  key: string,
  io: CliIo,
  progress: ProgressPrinter,
): Promise<RunReply> {
  const classifier = await openClassifier(request.runtime, key, io)
  try {
    return await classifier.run(request, progress)
  } finally {
    await classifier.close()
  }
}

async function check(options: CheckOptions, io: CliIo): Promise<number> {
  if (options.examples) return checkExamples(options, io)
  const env = io.env ?? {}
  const git = createLocalRepo({ cwd: io.cwd, env })
  const branch = await readLocalBranch(git, options)
  const rules = await loadCheckRules(git, options, io.cwd, branch.base)
  const runtime = options.settings.runtime
  // Both before anything runs: a missing key or binary must not cost a model call. A branch that
  // leaves every rule out of scope asks no model, so it needs neither (docs/behaviour.md).
  const asksModel = outOfScopeNames(rules.classifications, branch.diff).size < rules.classifications.length
  const key = asksModel ? runtimeKey(env, runtime) : ''
  if (asksModel) requireBinary(env, runtime)
  const terminal = io.terminal ?? { outColumns: null, errIsTty: false, errColumns: null }
  const progress = createProgressPrinter(io.err, { isTty: terminal.errIsTty, columns: terminal.errColumns })
  for (const line of describeRun(branch, rules, options)) progress.note(line)
  if (io.signal?.aborted) throw new InputError('interrupted before the run started')

  const request: RunRequest = {
    // One run, nothing recorded: the id only matches the reply.
    id: 'local-check',
    // Nothing is posted, as for a try-out.
    trigger: 'try-out',
    repo: branch.repo,
    pr: options.pr,
    title: branch.title,
    commits: branch.commits,
    diff: branch.diff,
    classifications: rules.classifications,
    ...options.settings,
  }
  const reply = await runClassifier(request, key, io, progress)
  const outcome = outcomeOf(reply, rules.classifications, branch.diff, io.signal?.aborted === true)
  if (options.json) {
    const document = {
      overall: outcome.overall,
      reason: outcome.reason,
      rows: outcome.rows.map(checkJsonRow),
      redaction: outcome.redaction,
      repo: branch.repo,
      pr: options.pr,
      title: branch.title,
      base: { name: branch.base.name, commit: branch.base.commit },
      head: { name: branch.head.name, commit: branch.head.commit },
      merge_base: branch.mergeBase,
      commits: branch.commits.length,
      rules: rules.from,
      runtime: options.settings.runtime,
      model: options.settings.runtime === 'acp' ? (options.settings.acp?.model ?? null) : options.settings.model,
      effort: options.settings.effort,
    }
    io.out(`${JSON.stringify(document, null, 2)}\n`)
  } else {
    io.out(renderCheckReport(outcome, { width: terminal.outColumns }))
  }
  return CHECK_EXIT[outcome.overall]
}

/**
 * Runs `check`; a usage error is thrown for the CLI to print with the usage
 * (exit 2). Anything else ends here as one line and exit 2: an exit 1 must
 * only ever mean "request changes".
 */
export async function checkCommand(args: string[], io: CliIo): Promise<number> {
  const options = parseCheckOptions(args, io.env ?? {})
  try {
    return await check(options, io)
  } catch (error) {
    if (error instanceof InputError || isAppError(error)) {
      io.err(`check: ${error.message}\n`)
    } else {
      const message = describeError(error)
      io.err(`check: failed unexpectedly: ${message.replace(/\s+/g, ' ').trim()}\n`)
    }
    return CHECK_EXIT['no-verdict']
  }
}
