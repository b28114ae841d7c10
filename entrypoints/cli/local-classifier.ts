/**
 * The classifier service in this process, as `check` and `check --examples`
 * run it: the runtime's binary and key from the environment, an in-memory
 * secret store holding that key, and the reply re-checked against the rules
 * sent, as the controller does.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pickPassEnv } from '../../adapters/claude/invocation.ts'
import { createClaudeRuntime } from '../../adapters/claude/runtime.ts'
import { createMemorySecretStore } from '../../adapters/memory/secret-store.ts'
import { createOpencodeRuntime } from '../../adapters/opencode/runtime.ts'
import { createSystemClock } from '../../adapters/system/clock.ts'
import { createJsonLogger, parseLogLevel } from '../../adapters/system/logger.ts'
import { createWorkerRedactor } from '../../adapters/worker/redactor.ts'
import type { CheckOutcome } from '../../core/review/check-report.ts'
import { checkReplyRows } from '../../core/run/aggregate.ts'
import { DEFAULT_CONTEXT_BUDGET_BYTES } from '../../core/run/budget.ts'
import { outOfScopeNames } from '../../core/run/scope.ts'
import { RUNTIME_KEY_SECRETS } from '../../core/settings/service-account.ts'
import type { Classification, RunReply, RunRequest, Runtime } from '../../core/wire/types.ts'
import type { Metrics } from '../../ports/metrics.ts'
import { createClassifier } from '../classifier/service.ts'
import { createSessionLimiter } from '../classifier/session-limiter.ts'
import { DEFAULT_CLASSIFICATION_TIMEOUT_S, DEFAULT_MAX_SESSIONS, PASS_THROUGH_VARIABLES } from '../config.ts'
import { CLAUDE_CREDENTIAL_VARIABLES } from './check-options.ts'
import { type CliIo, InputError } from './io.ts'
import type { ProgressPrinter } from './progress.ts'

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

/**
 * The reply as the review would show it: rows re-checked against the rules
 * sent and the scope the diff gives them, as the controller does.
 */
export function outcomeOf(
  reply: RunReply,
  sent: readonly Classification[],
  diff: string,
  interrupted: boolean,
): CheckOutcome {
  const outOfScope = outOfScopeNames(sent, diff)
  if (!reply.ok) {
    const rows = reply.rows.length > 0 ? checkReplyRows(sent, reply.rows, outOfScope).rows : []
    const why = reply.error ?? 'the run failed'
    const reason = interrupted ? `interrupted: ${why}` : why
    return { rows, overall: 'no-verdict', reason, redaction: reply.redaction ?? null }
  }
  const checked = checkReplyRows(sent, reply.rows, outOfScope)
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
