/** `check`'s command line: its flags, and the runtime settings they pick, checked as the settings document is. */
import { parseArgs } from 'node:util'
import { applySettingsUpdate, DEFAULT_SETTINGS, settingsForRunRequest } from '../../core/settings/settings.ts'
import { REPEAT_MAX } from '../../core/wire/limits.ts'
import type { RunRequestSettings, Runtime } from '../../core/wire/types.ts'
import { UsageError } from './io.ts'

export type CheckOptions = {
  /** null: origin's default branch, else `main`. */
  base: string | null
  head: string
  /** A rules file in the work tree; null reads the repo's from `base`. */
  rules: string | null
  json: boolean
  /** null: from the origin URL, else the folder's name. */
  repo: string | null
  /** null: the only commit's subject, else the branch's name. */
  title: string | null
  pr: number
  /** Run the rules against every labelled PR of the examples file instead of the branch. */
  examples: boolean
  /** Answers per labelled PR, with `examples`. */
  repeat: number
  settings: RunRequestSettings
}

/**
 * The ACP provider's prices feed the service's cost metric only, which a
 * local check doesn't report; the settings need a number there.
 */
const UNPRICED = { input: 0, output: 0 } as const

/** The settings' field names as the flags that set them, so a problem names what the user typed. */
const FLAG_OF_FIELD: ReadonlyArray<[RegExp, string]> = [
  [/\bacp\.base_url\b/g, '--acp-base-url'],
  [/\bacp\.model\b/g, '--acp-model'],
  [/^model\b/, '--model'],
  [/^effort\b/, '--effort'],
  [/^runtime\b/, '--runtime'],
]

function inFlagTerms(problem: string): string {
  const text = FLAG_OF_FIELD.reduce((out, [field, flag]) => out.replace(field, flag), problem)
  // The settings' `null` effort is the flag left out.
  return text.startsWith('--effort ') ? text.replace(' or null, not ', ', not ') : text
}

type Env = Record<string, string | undefined>

/** The claude credentials `check` reads, by the runtime each one runs. */
export const CLAUDE_CREDENTIAL_VARIABLES = {
  'api-key': 'ANTHROPIC_API_KEY',
  subscription: 'CLAUDE_CODE_OAUTH_TOKEN',
} as const

function isSet(env: Env, name: string): boolean {
  const value = env[name]
  return value !== undefined && value.trim() !== ''
}

/**
 * The runtime when `--runtime` is not given: the ACP runtime when its flags
 * are, else the one claude credential set; with both set the choice is the
 * user's, never a guess that spends on the wrong account.
 */
function defaultRuntime(env: Env, acpFlags: boolean): Runtime {
  if (acpFlags) return 'acp'
  const apiKey = isSet(env, CLAUDE_CREDENTIAL_VARIABLES['api-key'])
  const token = isSet(env, CLAUDE_CREDENTIAL_VARIABLES.subscription)
  if (apiKey && token) {
    throw new UsageError(
      'both ANTHROPIC_API_KEY and CLAUDE_CODE_OAUTH_TOKEN are set: choose with --runtime api-key or --runtime subscription',
    )
  }
  return token ? 'subscription' : 'api-key'
}

/**
 * The runtime the flags (and, without `--runtime`, the credentials in the
 * environment) ask for, through the settings' own checks
 * (`applySettingsUpdate`): the same model, effort and provider rules a
 * PUT of the settings meets, starting from the service's defaults.
 */
function runtimeSettings(
  values: {
    runtime?: string | undefined
    model?: string | undefined
    effort?: string | undefined
    'acp-base-url'?: string | undefined
    'acp-model'?: string | undefined
  },
  env: Env,
): RunRequestSettings {
  const acpBaseUrl = values['acp-base-url']
  const acpModel = values['acp-model']
  const acpFlags = acpBaseUrl !== undefined || acpModel !== undefined
  const runtime = values.runtime ?? defaultRuntime(env, acpFlags)
  const acp = runtime === 'acp'
  if (acpFlags && !acp) {
    throw new UsageError(`--acp-base-url and --acp-model are for the ACP runtime, not --runtime ${runtime}`)
  }
  if (acp && (acpBaseUrl === undefined || acpModel === undefined)) {
    throw new UsageError('the ACP runtime needs both --acp-base-url and --acp-model')
  }
  if (acp && values.model !== undefined) {
    throw new UsageError('--model names the claude model of the API key runtime; with the ACP runtime use --acp-model')
  }
  const update: Record<string, unknown> = { runtime }
  if (values.model !== undefined) update.model = values.model
  if (values.effort !== undefined) update.effort = values.effort
  if (acp) update.acp = { base_url: acpBaseUrl, model: acpModel, prices: UNPRICED }
  const applied = applySettingsUpdate(DEFAULT_SETTINGS, update)
  if (!applied.ok) throw new UsageError(applied.error.split('; ').map(inFlagTerms).join('; '))
  return settingsForRunRequest(applied.value)
}

/** `env` decides the runtime when neither `--runtime` nor the ACP flags do (see {@link defaultRuntime}). */
export function parseCheckOptions(args: string[], env: Env = {}): CheckOptions {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      base: { type: 'string' },
      head: { type: 'string', default: 'HEAD' },
      rules: { type: 'string' },
      json: { type: 'boolean', default: false },
      repo: { type: 'string' },
      title: { type: 'string' },
      pr: { type: 'string', default: '1' },
      examples: { type: 'boolean', default: false },
      repeat: { type: 'string' },
      model: { type: 'string' },
      effort: { type: 'string' },
      runtime: { type: 'string' },
      'acp-base-url': { type: 'string' },
      'acp-model': { type: 'string' },
    },
  })
  if (positionals.length > 0) throw new UsageError(`check takes no positional argument, got "${positionals[0]}"`)
  const pr = Number(values.pr)
  if (!/^\d+$/.test(values.pr) || !Number.isSafeInteger(pr) || pr < 1) {
    throw new UsageError(`--pr must be a positive whole number, got "${values.pr}"`)
  }
  if (values.repo !== undefined && !/^[^/\s]+\/[^/\s]+$/.test(values.repo)) {
    throw new UsageError(`--repo must be owner/name, got "${values.repo}"`)
  }
  if (values.examples) {
    // Each labelled PR brings its own head, number and title.
    for (const flag of ['head', 'pr', 'title'] as const) {
      if (args.some((arg) => arg === `--${flag}` || arg.startsWith(`--${flag}=`))) {
        throw new UsageError(`--${flag} does not go with --examples: each labelled PR brings its own`)
      }
    }
  } else if (values.repeat !== undefined) {
    throw new UsageError('--repeat goes with --examples')
  }
  const repeat = Number(values.repeat ?? '1')
  if (!/^\d+$/.test(values.repeat ?? '1') || repeat < 1 || repeat > REPEAT_MAX) {
    throw new UsageError(`--repeat must be a whole number from 1 to ${REPEAT_MAX}, got "${values.repeat}"`)
  }
  for (const flag of ['base', 'head'] as const) {
    if (values[flag]?.trim() === '') throw new UsageError(`--${flag} needs a branch, tag or commit`)
  }
  return {
    base: values.base ?? null,
    head: values.head,
    rules: values.rules ?? null,
    json: values.json,
    repo: values.repo ?? null,
    title: values.title ?? null,
    pr,
    examples: values.examples,
    repeat,
    settings: runtimeSettings(values, env),
  }
}
