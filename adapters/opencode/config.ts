/**
 * What one `opencode acp` process is started with: its private directories,
 * the config we write, the plugin seed and the environment. Pure: the caller
 * writes the files and spawns. Each choice fences opencode in; the facts
 * behind them are in docs/runtimes.md ("opencode acp").
 */
import { join } from 'node:path'
import type { Effort } from '../../core/wire/types.ts'
import { pickEnv } from '../process/env.ts'

/** The classifier's own variables that reach opencode: a proxy and a private CA. Nothing else of its environment does. */
export const PASS_ENV_NAMES = ['HTTPS_PROXY', 'NO_PROXY', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE'] as const

export type PassEnvName = (typeof PASS_ENV_NAMES)[number]

export type PassEnv = Partial<Record<PassEnvName, string>>

/** The one provider opencode may use; also the prefix of the model ID in its system message. */
export const PROVIDER_ID = 'acp'

/** The agent the session runs as: its prompt is the classifier's system prompt. */
export const AGENT_NAME = 'classifier'

/** The key reaches opencode only through this variable, named in the config as `{env:…}`, so it is in no file. */
export const KEY_ENV_NAME = 'REVIEW_CLASSIFIER_ACP_KEY'

/** Picks the pass-through variables out of an environment, skipping unset and empty ones. */
export function pickPassEnv(env: Record<string, string | undefined>): PassEnv {
  return pickEnv(env, PASS_ENV_NAMES)
}

/** One process's private directory layout; everything opencode writes lands under `root`. */
export type RunDirs = {
  root: string
  home: string
  config: string
  /** `$XDG_CONFIG_HOME/opencode`: global config dir and the target of opencode's plugin install. */
  opencodeConfig: string
  data: string
  state: string
  cache: string
  tmp: string
  /** The config file we write, named by `OPENCODE_CONFIG`. */
  configFile: string
}

export function runDirs(root: string): RunDirs {
  const config = join(root, 'config')
  return {
    root,
    home: join(root, 'home'),
    config,
    opencodeConfig: join(config, 'opencode'),
    data: join(root, 'data'),
    state: join(root, 'state'),
    cache: join(root, 'cache'),
    tmp: join(root, 'tmp'),
    configFile: join(root, 'opencode.json'),
  }
}

/**
 * The files that make opencode's start-up `npm install @opencode-ai/plugin`
 * a no-op: it compares dependency names only, so an empty `node_modules`
 * and these two manifests count as installed, and nothing reaches the
 * registry. Paths are relative to `RunDirs.opencodeConfig`.
 */
export const PLUGIN_SEED_FILES: ReadonlyArray<{ path: string; text: string }> = [
  { path: 'package.json', text: JSON.stringify({ dependencies: { '@opencode-ai/plugin': '*' } }) },
  {
    path: 'package-lock.json',
    text: JSON.stringify({ packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } }),
  },
]

/**
 * OpenAI-compatible servers take `low`, `medium` and `high`; the claude-only
 * levels above `high` ask for the most the provider offers.
 */
const REASONING_EFFORT: Record<Effort, 'low' | 'medium' | 'high'> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
  max: 'high',
}

export type OpencodeConfigInput = {
  baseUrl: string
  model: string
  system: string
  effort: Effort | null
  /** The settings' `max_output_tokens`: the model's `limit.output`, which opencode sends as `max_tokens`. */
  maxOutputTokens: number
}

/** The model as opencode's ACP `session/new` reports it: provider ID, slash, model ID. */
export function qualifiedModel(model: string): string {
  return `${PROVIDER_ID}/${model}`
}

/**
 * The whole config. `enabled_providers` hides opencode's built-in free
 * provider, to which an unknown model would silently fall back with the PR;
 * `mode: "primary"` makes ACP pick our agent rather than `build` (whose coding
 * prompt would go out instead); the title agent is off, or the PR would be
 * sent twice. The agent carries no `permission`: one would be merged over
 * `OPENCODE_PERMISSION` and offer tools again. An effort is the model's only
 * variant, as the first variant is the one opencode sends. `limit.output`
 * caps every request's `max_tokens` at the settings' `max_output_tokens`.
 */
export function opencodeConfig(input: OpencodeConfigInput): Record<string, unknown> {
  // Without `limit` opencode asks for 32,000 output tokens. `context` must be given with it; 0 is opencode's
  // "unknown", which turns off its compaction check (an extra summarising request past a context bound).
  const model: Record<string, unknown> = { name: input.model, limit: { context: 0, output: input.maxOutputTokens } }
  if (input.effort !== null) model.variants = { [input.effort]: { reasoningEffort: REASONING_EFFORT[input.effort] } }
  return {
    // Without it opencode rewrites the file to add it.
    $schema: 'https://opencode.ai/config.json',
    model: qualifiedModel(input.model),
    enabled_providers: [PROVIDER_ID],
    autoupdate: false,
    share: 'disabled',
    default_agent: AGENT_NAME,
    provider: {
      [PROVIDER_ID]: {
        npm: '@ai-sdk/openai-compatible',
        name: 'review-classifier provider',
        options: { baseURL: input.baseUrl, apiKey: `{env:${KEY_ENV_NAME}}` },
        models: { [input.model]: model },
      },
    },
    agent: {
      title: { disable: true },
      [AGENT_NAME]: { mode: 'primary', prompt: input.system },
    },
  }
}

export type OpencodeEnvInput = {
  dirs: RunDirs
  apiKey: string
  serverPassword: string
  passEnv: PassEnv
}

/**
 * The child's whole environment: nothing of ours beyond `passEnv`. No `PATH`
 * either: opencode needs no program, and without one it runs no `git` that
 * could find a repository above the working directory.
 */
export function opencodeEnv(input: OpencodeEnvInput): Record<string, string> {
  const { dirs } = input
  return {
    ...input.passEnv,
    HOME: dirs.home,
    XDG_CONFIG_HOME: dirs.config,
    XDG_DATA_HOME: dirs.data,
    XDG_STATE_HOME: dirs.state,
    XDG_CACHE_HOME: dirs.cache,
    // Bun unpacks a native library here on every start and never removes it.
    TMPDIR: dirs.tmp,
    OPENCODE_CONFIG: dirs.configFile,
    OPENCODE_PERMISSION: JSON.stringify({ '*': 'deny' }),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_PROJECT_CONFIG: '1',
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    // Its local HTTP port would otherwise hand the config, key included, to any local process.
    OPENCODE_SERVER_PASSWORD: input.serverPassword,
    OPENCODE_DB: ':memory:',
    // The date in the system message follows the zone: one zone everywhere keeps the cached prefix.
    TZ: 'UTC',
    [KEY_ENV_NAME]: input.apiKey,
  }
}
