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
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pickPassEnv } from '../../adapters/claude/invocation.ts'
import { createClaudeRuntime } from '../../adapters/claude/runtime.ts'
import { createLocalRepo } from '../../adapters/git/local-repo.ts'
import { createMemorySecretStore } from '../../adapters/memory/secret-store.ts'
import { createOpencodeRuntime } from '../../adapters/opencode/runtime.ts'
import { createSystemClock } from '../../adapters/system/clock.ts'
import { createJsonLogger, parseLogLevel } from '../../adapters/system/logger.ts'
import { createWorkerRedactor } from '../../adapters/worker/redactor.ts'
import { describeError, isAppError } from '../../core/base/errors.ts'
import { type CheckOutcome, checkJsonRow, plainLabel, renderCheckReport } from '../../core/review/check-report.ts'
import { checkReplyRows } from '../../core/run/aggregate.ts'
import { DEFAULT_CONTEXT_BUDGET_BYTES } from '../../core/run/budget.ts'
import { countDiffFiles } from '../../core/run/local-branch.ts'
import { invalidUtf8Note } from '../../core/run/utf8.ts'
import { RUNTIME_KEY_SECRETS } from '../../core/settings/service-account.ts'
import type { Classification, Overall, RunReply, RunRequest, Runtime } from '../../core/wire/types.ts'
import type { Metrics } from '../../ports/metrics.ts'
import { createClassifier } from '../classifier/service.ts'
import { createSessionLimiter } from '../classifier/session-limiter.ts'
import { DEFAULT_CLASSIFICATION_TIMEOUT_S, DEFAULT_MAX_SESSIONS, PASS_THROUGH_VARIABLES } from '../config.ts'
import { type CheckOptions, CLAUDE_CREDENTIAL_VARIABLES, parseCheckOptions } from './check-options.ts'
import { checkExamples } from './examples.ts'
import { type CliIo, InputError } from './io.ts'
import { type LoadedRules, type LocalBranch, loadCheckRules, readLocalBranch } from './local-branch.ts'
import { createProgressPrinter, type ProgressPrinter } from './progress.ts'

export const CHECK_EXIT = {
  approve: 0,
  'request-changes': 1,
  'no-verdict': 2,
} as const satisfies Record<Overall, number>

/** The project's own directory: the pinned `claude` and `opencode` are in its node_modules. */
const PROJECT_ROOT = resolve(import.meta.dir, '../..')

/** Where each runtime's key is read from in the environment. */
const KEY_VARIABLE = {
  ...CLAUDE_CREDENTIAL_VARIABLES,
  acp: 'ACP_API_KEY',
} as const satisfies Record<Runtime, string>

/** A local check reports no metrics: the ACP cost counter is the service's. */
const NO_METRICS: Metrics = { addCost() {}, addTokens() {}, setDaySpend() {}, addRuleOutcome() {} }

type Env = Record<string, string | undefined>

function setting(env: Env, name: string): string | null {
  const value = env[name]
  return value === undefined || value.trim() === '' ? null : value
}

const BINARY = {
  'api-key': { variable: 'CLAUDE_BIN', name: 'claude' },
  subscription: { variable: 'CLAUDE_BIN', name: 'claude' },
  acp: { variable: 'OPENCODE_BIN', name: 'opencode' },
} as const satisfies Record<Runtime, { variable: string; name: string }>

/** The binary a runtime runs, as the classifier finds it: `CLAUDE_BIN` / `OPENCODE_BIN`, else the pinned one. */
function runtimeBinary(env: Env, runtime: Runtime): string {
  const { variable, name } = BINARY[runtime]
  return resolve(PROJECT_ROOT, setting(env, variable) ?? `node_modules/.bin/${name}`)
}

export function requireBinary(env: Env, runtime: Runtime): void {
  const path = runtimeBinary(env, runtime)
  if (!existsSync(path)) {
    const { variable, name } = BINARY[runtime]
    throw new InputError(`no ${name} binary at ${path}: install review-classifier's packages, or set ${variable}`)
  }
}

export function runtimeKey(env: Env, runtime: Runtime): string {
  const key = setting(env, KEY_VARIABLE[runtime])
  if (key !== null) return key
  throw new InputError(NO_KEY[runtime])
}

const NO_KEY = {
  'api-key':
    'no API key: set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN for a Claude subscription, or use the ACP runtime with --acp-base-url, --acp-model and ACP_API_KEY)',
  subscription: 'no OAuth token: set CLAUDE_CODE_OAUTH_TOKEN to the token `claude setup-token` printed',
  acp: 'no ACP key: set ACP_API_KEY for the provider at --acp-base-url',
} as const satisfies Record<Runtime, string>

function passEnv(env: Env): Record<string, string> {
  const picked: Record<string, string> = {}
  for (const name of PASS_THROUGH_VARIABLES) {
    const value = env[name]
    if (value !== undefined && value !== '') picked[name] = value
  }
  return picked
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

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
  if (branch.dirty) lines.push('uncommitted changes are not checked: only commits are')
  if (!branch.diffValid) lines.push(invalidUtf8Note('the diff'))
  return lines
}

/** The reply as the review would show it: rows re-checked against the rules sent, as the controller does. */
export function outcomeOf(reply: RunReply, sent: readonly Classification[], interrupted: boolean): CheckOutcome {
  if (!reply.ok) {
    const rows = reply.rows.length > 0 ? checkReplyRows(sent, reply.rows).rows : []
    const why = reply.error ?? 'the run failed'
    const reason = interrupted ? `interrupted: ${why}` : why
    return { rows, overall: 'no-verdict', reason, redaction: reply.redaction ?? null }
  }
  const checked = checkReplyRows(sent, reply.rows)
  const reason = checked.reason !== null && interrupted ? `interrupted: ${checked.reason}` : checked.reason
  return { rows: checked.rows, overall: checked.overall, reason, redaction: reply.redaction ?? null }
}

/** The classifier service in this process, for one or more runs; `close` removes its work directory. */
export type LocalClassifier = {
  run(request: RunRequest, progress: ProgressPrinter): Promise<RunReply>
  close(): Promise<void>
}

export async function openClassifier(runtime: Runtime, key: string, io: CliIo): Promise<LocalClassifier> {
  const env = io.env ?? {}
  const logLevel = setting(env, 'LOG_LEVEL')
  // Quiet unless asked: the run's outcome is the report, and the service's own lines would repeat it.
  const logger = createJsonLogger({
    level: logLevel === null ? 'error' : parseLogLevel(logLevel),
    write: io.err,
    redact: [key],
  })
  const workDir = await mkdtemp(join(tmpdir(), 'review-classifier-check-'))
  const pass = passEnv(env)
  const runtimes = io.runtimes ?? {
    'api-key': createClaudeRuntime(
      { claudeBin: runtimeBinary(env, 'api-key'), workDir: join(workDir, 'claude'), passEnv: pickPassEnv(pass) },
      logger,
    ),
    subscription: createClaudeRuntime(
      {
        claudeBin: runtimeBinary(env, 'subscription'),
        credential: 'oauth-token',
        workDir: join(workDir, 'claude'),
        passEnv: pickPassEnv(pass),
      },
      logger,
    ),
    acp: createOpencodeRuntime(
      { opencodeBin: runtimeBinary(env, 'acp'), workDir: join(workDir, 'opencode'), passEnv: pass },
      logger,
    ),
  }
  const classifier = createClassifier({
    runtimes,
    secrets: createMemorySecretStore({
      [RUNTIME_KEY_SECRETS[runtime].path]: { [RUNTIME_KEY_SECRETS[runtime].field]: key },
    }),
    metrics: NO_METRICS,
    logger,
    clock: createSystemClock(),
    limiter: createSessionLimiter(DEFAULT_MAX_SESSIONS),
    classificationTimeoutMs: DEFAULT_CLASSIFICATION_TIMEOUT_S * 1000,
    contextBudgetBytes: DEFAULT_CONTEXT_BUDGET_BYTES,
    // As the service: on a worker thread, so the progress lines go on while a large PR is redacted.
    redactor: createWorkerRedactor(),
  })
  return {
    async run(request, progress) {
      const stop = (): void => classifier.abortAll()
      io.signal?.addEventListener('abort', stop, { once: true })
      try {
        return await classifier.handle(JSON.stringify(request), progress.onProgress)
      } finally {
        io.signal?.removeEventListener('abort', stop)
        progress.finish()
      }
    },
    async close() {
      await rm(workDir, { recursive: true, force: true })
    },
  }
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
  // Both before anything runs: a missing key or binary must not cost a model call.
  const key = runtimeKey(env, runtime)
  requireBinary(env, runtime)
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
  const outcome = outcomeOf(reply, rules.classifications, io.signal?.aborted === true)
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
