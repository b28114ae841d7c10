/**
 * The settings' `max_output_tokens` (docs/behaviour.md, "Swarm-level
 * settings"): the most output tokens, thinking included, any one model
 * request may ask for, on every runtime. An answer is one small JSON object
 * (about a hundred tokens); left to themselves the runtimes ask for 32,000
 * to 128,000, and haiku 4.5 thinks up to 31,999. Kept apart from
 * settings.ts, which reads it through {@link readOutputSetting}.
 */
import { DEFAULT_OUTPUT_TOKENS, MAX_OUTPUT_TOKENS, MIN_OUTPUT_TOKENS } from '../wire/limits.ts'

export const OUTPUT_SETTING_FIELDS = ['max_output_tokens'] as const

export const OUTPUT_SETTING_DEFAULTS: { max_output_tokens: number } = { max_output_tokens: DEFAULT_OUTPUT_TOKENS }

function described(value: unknown): string {
  return value === null ? 'null' : (JSON.stringify(value) ?? typeof value)
}

/** Reads `max_output_tokens` when `fields` has it: a whole number, or a problem naming it. */
export function readOutputSetting(fields: Record<string, unknown>, problems: string[]): { max_output_tokens?: number } {
  if (!('max_output_tokens' in fields)) return {}
  const value = fields.max_output_tokens
  if (typeof value === 'number' && Number.isInteger(value)) return { max_output_tokens: value }
  problems.push(`max_output_tokens must be a whole number of tokens, not ${described(value)}`)
  return {}
}

/** The range the stored document, a PUT and a run request keep. */
export function outputSettingProblems(settings: { max_output_tokens: number }): string[] {
  const tokens = settings.max_output_tokens
  if (tokens >= MIN_OUTPUT_TOKENS && tokens <= MAX_OUTPUT_TOKENS) return []
  return [`max_output_tokens must be ${MIN_OUTPUT_TOKENS} to ${MAX_OUTPUT_TOKENS} tokens, not ${tokens}`]
}
