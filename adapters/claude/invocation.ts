/**
 * How one classification's `claude --print` is started: its arguments, its
 * environment and its one stdin line. Pure, so each choice is testable
 * without a process (facts behind them: docs/runtimes.md ("The claude CLI")).
 */

import { streamJsonUserLine } from '../../core/run/prompt.ts'
import type { Effort } from '../../core/wire/types.ts'
import { pickEnv } from '../process/env.ts'

/** The classifier's own variables that reach the runtime: a gateway, a proxy, a private CA. Nothing else of its environment does. */
export const PASS_ENV_NAMES = [
  'ANTHROPIC_BASE_URL',
  'HTTPS_PROXY',
  'NO_PROXY',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
] as const

export type PassEnvName = (typeof PASS_ENV_NAMES)[number]

export type PassEnv = Partial<Record<PassEnvName, string>>

/** The CLI needs no tool from `PATH` (no tools, ripgrep embedded); a fixed system path keeps the parent's out. */
export const MINIMAL_PATH = '/usr/local/bin:/usr/bin:/bin'

/**
 * Few retries: a transient 429/5xx gets a second chance, but the CLI's own
 * default (10 retries over about three minutes, 401 included) would spend
 * the whole deadline on a dead key. The deadline is the real limit.
 */
export const DEFAULT_MAX_RETRIES = 2

/** Picks the pass-through variables out of an environment, skipping unset and empty ones. */
export function pickPassEnv(env: Record<string, string | undefined>): PassEnv {
  return pickEnv(env, PASS_ENV_NAMES)
}

export type ArgsInput = { system: string; model: string; effort: Effort | null }

/**
 * `--setting-sources ""` loads no user, project or local settings: without it a
 * `CLAUDE.md` in the working directory or any parent reaches the model as
 * instructions, and a hook in `<cwd>/.claude/settings.json` runs with the key
 * in its environment. The request is otherwise byte for byte the same, which
 * `--bare` would not keep (docs/runtimes.md, "Setting sources").
 */
export function claudeArgs(input: ArgsInput): string[] {
  return [
    '--print',
    '--setting-sources',
    '',
    '--input-format',
    'stream-json',
    '--output-format',
    'stream-json',
    '--verbose',
    '--tools',
    '',
    '--strict-mcp-config',
    '--system-prompt',
    input.system,
    '--model',
    input.model,
    ...(input.effort === null ? [] : ['--effort', input.effort]),
    '--no-session-persistence',
  ]
}

/**
 * Which credential the key is: an Anthropic API key (`ANTHROPIC_API_KEY`,
 * sent as `x-api-key`), or a Claude subscription's OAuth token from `claude
 * setup-token` (`CLAUDE_CODE_OAUTH_TOKEN`, sent as `Authorization: Bearer`).
 * A process gets exactly one of the two variables.
 */
export type ClaudeCredential = 'api-key' | 'oauth-token'

export const CREDENTIAL_VARIABLE = {
  'api-key': 'ANTHROPIC_API_KEY',
  'oauth-token': 'CLAUDE_CODE_OAUTH_TOKEN',
} as const satisfies Record<ClaudeCredential, string>

/** The API's least thinking budget: a smaller one is refused, so thinking is off below it. */
export const MIN_THINKING_BUDGET_TOKENS = 1024
/** What the thinking budget leaves of the output cap for the answer: a JSON object of about 150 tokens. */
export const ANSWER_ROOM_TOKENS = 512

/**
 * The thinking budget under an output cap of `maxOutputTokens`
 * (`MAX_THINKING_TOKENS`): the cap less room for the answer, or 0 (thinking
 * off) when that is under the API's least budget. Left to itself the CLI
 * thinks up to 31,999 tokens on haiku 4.5, and under a cap it sets the
 * budget to the cap itself, which the API refuses (the budget must be less
 * than `max_tokens`). Models with adaptive thinking ignore it: their
 * thinking counts toward `max_tokens`, which the cap sets.
 */
export function thinkingBudgetTokens(maxOutputTokens: number): number {
  const budget = maxOutputTokens - ANSWER_ROOM_TOKENS
  return budget >= MIN_THINKING_BUDGET_TOKENS ? budget : 0
}

export type EnvInput = {
  home: string
  tmpDir: string
  apiKey: string
  /** Default `api-key`. */
  credential?: ClaudeCredential
  passEnv: PassEnv
  labels: { repo: string; pr: number }
  otlpEndpoint?: string | undefined
  maxRetries: number
  /** The settings' `max_output_tokens`: every request's `max_tokens`, thinking included. */
  maxOutputTokens: number
}

export function claudeEnv(input: EnvInput): Record<string, string> {
  const env: Record<string, string> = {
    PATH: MINIMAL_PATH,
    HOME: input.home,
    TMPDIR: input.tmpDir,
    [CREDENTIAL_VARIABLE[input.credential ?? 'api-key']]: input.apiKey,
    // Without it the CLI also calls api.anthropic.com (bootstrap, event logging) and the base URL's /api/hello.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_MAX_RETRIES: String(input.maxRetries),
    // Every request's max_tokens, the non-streaming retry's included (docs/runtimes.md, "Effort and thinking").
    CLAUDE_CODE_MAX_OUTPUT_TOKENS: String(input.maxOutputTokens),
    MAX_THINKING_TOKENS: String(thinkingBudgetTokens(input.maxOutputTokens)),
    OTEL_RESOURCE_ATTRIBUTES: otelResourceAttributes(input.labels),
  }
  for (const name of PASS_ENV_NAMES) {
    const value = input.passEnv[name]
    if (value !== undefined && value !== '') env[name] = value
  }
  if (input.otlpEndpoint !== undefined && input.otlpEndpoint !== '') {
    env.CLAUDE_CODE_ENABLE_TELEMETRY = '1'
    env.OTEL_METRICS_EXPORTER = 'otlp'
    env.OTEL_EXPORTER_OTLP_PROTOCOL = 'grpc'
    env.OTEL_EXPORTER_OTLP_ENDPOINT = input.otlpEndpoint
  }
  return env
}

/**
 * `repo=<owner/name>,pr=<n>` in the OTel format: a value keeps the W3C
 * baggage octets (so `owner/name` stays readable) and percent-encodes the
 * rest of its UTF-8 bytes, `%`, `,`, `;`, `=`, space, `"` and `\` included.
 */
export function otelResourceAttributes(labels: { repo: string; pr: number }): string {
  return `repo=${encodeOtelValue(labels.repo)},pr=${encodeOtelValue(String(labels.pr))}`
}

function encodeOtelValue(value: string): string {
  let out = ''
  for (const byte of new TextEncoder().encode(value)) {
    out += isBaggageOctet(byte) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** W3C baggage-octet, minus `%` and `=`: those are left to the decoder's percent-decoding and the key separator. */
function isBaggageOctet(byte: number): boolean {
  if (byte === 0x25 || byte === 0x3d) return false
  return (
    byte === 0x21 ||
    (byte >= 0x23 && byte <= 0x2b) ||
    (byte >= 0x2d && byte <= 0x3a) ||
    (byte >= 0x3c && byte <= 0x5b) ||
    (byte >= 0x5d && byte <= 0x7e)
  )
}

/** The one user message: the shared context with the cache breakpoint, then the question without one. */
export function claudeStdinLine(context: string, question: string): string {
  return streamJsonUserLine([
    { type: 'text', text: context, cache_control: { type: 'ephemeral' } },
    { type: 'text', text: question },
  ])
}
