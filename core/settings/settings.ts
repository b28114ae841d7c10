/**
 * The swarm-wide settings document: its defaults, the PUT's validation and
 * merge, and the lenient decoding of what the KV bucket holds.
 *
 * The checks are written by hand rather than left to a schema library because
 * every message becomes a problem+json `detail` a person reads: it has to name
 * the field and say what would be accepted.
 */

import { err, ok, type Result } from '../base/result.ts'
import { quoteInput } from '../base/text.ts'
import { isRecord } from '../wire/decode.ts'
import { MAX_CONCURRENT_REVIEWS, MIN_CONCURRENT_REVIEWS } from '../wire/limits.ts'
import { RUNTIMES } from '../wire/schemas.ts'
import type { AcpPrices, AcpProvider, Effort, RunRequestSettings, Runtime, Settings } from '../wire/types.ts'
import { readRepoRuntimes, repoRuntimesRuleProblems } from './repo-runtimes.ts'
import {
  OUTPUT_SETTING_DEFAULTS,
  OUTPUT_SETTING_FIELDS,
  outputSettingProblems,
  readOutputSetting,
} from './settings-output.ts'
import { REPORT_SETTING_DEFAULTS, REPORT_SETTING_FIELDS, readReportSetting } from './settings-report.ts'
import { budgetProblems, readBudget } from './spend.ts'

export const SETTINGS_BUCKET = 'review-classifier-settings'
export const SETTINGS_KEY = 'all'

/** What runs with no document stored: the API key runtime on haiku at claude's own effort, two reviews at a time. */
export const DEFAULT_SETTINGS: Settings = {
  model: 'haiku',
  effort: null,
  max_concurrent_reviews: 2,
  runtime: 'api-key',
  acp: null,
  repo_runtimes: {},
  budget: null,
  ...REPORT_SETTING_DEFAULTS,
  ...OUTPUT_SETTING_DEFAULTS,
}

/** A model's name, `model` and `acp.model`, in characters: real ones are a few dozen. */
export const MODEL_MAX_CHARS = 256

const EFFORTS: readonly Effort[] = ['low', 'medium', 'high', 'xhigh', 'max']
const SETTINGS_FIELDS = [
  'model',
  'effort',
  'max_concurrent_reviews',
  'runtime',
  'acp',
  'repo_runtimes',
  'budget',
  ...REPORT_SETTING_FIELDS,
  ...OUTPUT_SETTING_FIELDS,
] as const
const ACP_FIELDS = ['base_url', 'model', 'prices'] as const
const PRICE_FIELDS = ['input', 'output', 'cache_read', 'cache_write'] as const
const REQUIRED_PRICE_FIELDS = ['input', 'output'] as const

/** The fields a PUT may carry; the ones left out keep their stored value. */
export type SettingsUpdate = Partial<Settings>

/**
 * A PUT must name only fields it knows; a stored document may hold fields a
 * newer build wrote, which the controller ignores.
 */
type UnknownFields = 'refuse' | 'ignore'

type Fields = Record<string, unknown>

function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'string') return `the string ${quoteInput(value)}`
  if (typeof value === 'object') return 'an object'
  return String(value)
}

function hasWhitespace(text: string): boolean {
  // `\s` with the u flag covers every Unicode space separator, not only ASCII.
  return /\s/u.test(text)
}

function unknownFieldProblems(
  fields: Fields,
  known: readonly string[],
  path: string,
  unknownFields: UnknownFields,
): string[] {
  if (unknownFields === 'ignore') return []
  return Object.keys(fields)
    .filter((key) => !known.includes(key))
    .map((key) => {
      const name = quoteInput(`${path}${key}`)
      if (key === 'api_key') {
        return `unknown field ${name}: keys belong in the secret store, never in the settings`
      }
      return `unknown field ${name}: expected only ${known.join(', ')}`
    })
}

function nullNotAllowed(name: string): string {
  return `${name} can't be null: only effort, acp and budget can be set to none`
}

function readString(value: unknown, name: string, problems: string[]): string | undefined {
  if (value === null) {
    problems.push(nullNotAllowed(name))
    return undefined
  }
  if (typeof value !== 'string') {
    problems.push(`${name} must be a string, not ${describeValue(value)}`)
    return undefined
  }
  return value
}

function readEffort(value: unknown, problems: string[]): Effort | null | undefined {
  if (value === null) return null
  const effort = EFFORTS.find((level) => level === value)
  if (effort === undefined) {
    problems.push(`effort must be one of ${EFFORTS.join(', ')} or null, not ${describeValue(value)}`)
  }
  return effort
}

function readWholeNumber(value: unknown, name: string, problems: string[]): number | undefined {
  if (value === null) {
    problems.push(nullNotAllowed(name))
    return undefined
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    problems.push(`${name} must be a whole number, not ${describeValue(value)}`)
    return undefined
  }
  return value
}

function readRuntime(value: unknown, problems: string[]): Runtime | undefined {
  if (value === null) {
    problems.push(nullNotAllowed('runtime'))
    return undefined
  }
  const runtime = RUNTIMES.find((known) => known === value)
  if (runtime === undefined) {
    problems.push(`runtime must be one of ${RUNTIMES.map((r) => `"${r}"`).join(', ')}, not ${describeValue(value)}`)
  }
  return runtime
}

function readPrice(value: unknown, name: string, problems: string[]): number | undefined {
  if (value === null) {
    problems.push(nullNotAllowed(name))
    return undefined
  }
  if (typeof value !== 'number') {
    problems.push(`${name} must be a number of USD per million tokens, not ${describeValue(value)}`)
    return undefined
  }
  return value
}

function readPrices(value: unknown, unknownFields: UnknownFields, problems: string[]): AcpPrices | undefined {
  if (value === null) {
    problems.push(nullNotAllowed('acp.prices'))
    return undefined
  }
  if (!isRecord(value)) {
    problems.push(`acp.prices must be an object with input and output, not ${describeValue(value)}`)
    return undefined
  }
  const before = problems.length
  problems.push(...unknownFieldProblems(value, PRICE_FIELDS, 'acp.prices.', unknownFields))
  for (const field of REQUIRED_PRICE_FIELDS) {
    if (!(field in value)) problems.push(`acp.prices needs ${field}, the USD price per million ${field} tokens`)
  }
  const input = 'input' in value ? readPrice(value.input, 'acp.prices.input', problems) : undefined
  const output = 'output' in value ? readPrice(value.output, 'acp.prices.output', problems) : undefined
  const cacheRead = 'cache_read' in value ? readPrice(value.cache_read, 'acp.prices.cache_read', problems) : undefined
  const cacheWrite =
    'cache_write' in value ? readPrice(value.cache_write, 'acp.prices.cache_write', problems) : undefined
  if (problems.length > before || input === undefined || output === undefined) return undefined
  return {
    input,
    output,
    ...(cacheRead === undefined ? {} : { cache_read: cacheRead }),
    ...(cacheWrite === undefined ? {} : { cache_write: cacheWrite }),
  } satisfies AcpPrices
}

function readAcp(value: unknown, unknownFields: UnknownFields, problems: string[]): AcpProvider | null | undefined {
  if (value === null) return null
  if (!isRecord(value)) {
    problems.push(`acp must be an object with base_url, model and prices, or null, not ${describeValue(value)}`)
    return undefined
  }
  const before = problems.length
  problems.push(...unknownFieldProblems(value, ACP_FIELDS, 'acp.', unknownFields))
  // `acp` replaces the stored provider whole, so a partial one can't be merged.
  const missing = ACP_FIELDS.filter((field) => !(field in value))
  if (missing.length > 0) {
    problems.push(`acp needs ${missing.join(' and ')}: a given acp replaces the stored provider whole`)
  }
  const baseUrl = 'base_url' in value ? readString(value.base_url, 'acp.base_url', problems) : undefined
  const model = 'model' in value ? readString(value.model, 'acp.model', problems) : undefined
  const prices = 'prices' in value ? readPrices(value.prices, unknownFields, problems) : undefined
  if (problems.length > before || baseUrl === undefined || model === undefined || prices === undefined) {
    return undefined
  }
  return { base_url: baseUrl, model, prices } satisfies AcpProvider
}

/** Reads the fields present in `fields`, collecting one problem per field that has the wrong shape. */
function readSettingsFields(fields: Fields, unknownFields: UnknownFields): Result<SettingsUpdate, string[]> {
  const problems: string[] = [...unknownFieldProblems(fields, SETTINGS_FIELDS, '', unknownFields)]
  const update: SettingsUpdate = {}
  if ('model' in fields) {
    const model = readString(fields.model, 'model', problems)
    if (model !== undefined) update.model = model
  }
  if ('effort' in fields) {
    const effort = readEffort(fields.effort, problems)
    if (effort !== undefined) update.effort = effort
  }
  if ('max_concurrent_reviews' in fields) {
    const limit = readWholeNumber(fields.max_concurrent_reviews, 'max_concurrent_reviews', problems)
    if (limit !== undefined) update.max_concurrent_reviews = limit
  }
  if ('runtime' in fields) {
    const runtime = readRuntime(fields.runtime, problems)
    if (runtime !== undefined) update.runtime = runtime
  }
  if ('acp' in fields) {
    const acp = readAcp(fields.acp, unknownFields, problems)
    if (acp !== undefined) update.acp = acp
  }
  if ('repo_runtimes' in fields) {
    const policy = readRepoRuntimes(fields.repo_runtimes, unknownFields, problems)
    if (policy !== undefined) update.repo_runtimes = policy
  }
  if ('budget' in fields) {
    const budget = readBudget(fields.budget, unknownFields === 'refuse', problems)
    if (budget !== undefined) update.budget = budget
  }
  Object.assign(update, readReportSetting(fields, problems), readOutputSetting(fields, problems))
  return problems.length > 0 ? err(problems) : ok(update)
}

function baseUrlProblem(baseUrl: string): string | null {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    return `acp.base_url must be an https:// URL, and ${quoteInput(baseUrl)} isn't a URL`
  }
  if (url.protocol !== 'https:') {
    return `acp.base_url must be an https:// URL, not ${url.protocol}//`
  }
  if (url.hostname === '') return 'acp.base_url must name a host'
  // The URL parser would quietly trim or encode these; the stored value goes to opencode as written.
  if (hasWhitespace(baseUrl)) return "acp.base_url can't contain whitespace"
  // The document holds no secret; a key belongs in the secret store.
  if (url.username !== '' || url.password !== '') {
    return "acp.base_url can't carry a user or password: the provider's key belongs in the secret store"
  }
  return null
}

/** Longer than {@link MODEL_MAX_CHARS} code points. */
function tooLong(model: string): boolean {
  return model.length > MODEL_MAX_CHARS && [...model].length > MODEL_MAX_CHARS
}

function modelTooLong(field: 'model' | 'acp.model', model: string): string {
  return `${field} is ${[...model].length} characters long; at most ${MODEL_MAX_CHARS} are allowed`
}

/** The rules the whole document must keep, whether a PUT would store it or it was read back. */
export function settingsRuleProblems(settings: Settings): string[] {
  const problems: string[] = []
  const { model, max_concurrent_reviews: limit, acp } = settings
  if (model === '') problems.push("model can't be empty")
  else if (tooLong(model)) problems.push(modelTooLong('model', model))
  else if (hasWhitespace(model)) problems.push(`model must be one word, and ${quoteInput(model)} has whitespace`)
  else if (model.startsWith('-'))
    problems.push(`model can't start with "-": claude would read ${quoteInput(model)} as an option`)
  if (limit < MIN_CONCURRENT_REVIEWS || limit > MAX_CONCURRENT_REVIEWS) {
    problems.push(`max_concurrent_reviews must be ${MIN_CONCURRENT_REVIEWS} to ${MAX_CONCURRENT_REVIEWS}, not ${limit}`)
  }
  if (acp !== null) {
    const urlProblem = baseUrlProblem(acp.base_url)
    if (urlProblem !== null) problems.push(urlProblem)
    if (acp.model === '') problems.push("acp.model can't be empty")
    else if (tooLong(acp.model)) problems.push(modelTooLong('acp.model', acp.model))
    else if (hasWhitespace(acp.model)) problems.push(`acp.model can't contain whitespace: ${quoteInput(acp.model)}`)
    for (const field of PRICE_FIELDS) {
      const price = acp.prices[field]
      if (price === undefined) continue
      // NaN and Infinity can't arrive as JSON, but a caller building settings in code could pass them.
      if (!Number.isFinite(price) || price < 0) {
        problems.push(`acp.prices.${field} must be 0 or more USD per million tokens, not ${price}`)
      }
    }
  }
  problems.push(...budgetProblems(settings.budget), ...outputSettingProblems(settings))
  if (settings.runtime === 'acp' && acp === null) {
    problems.push('runtime "acp" needs a provider: set acp with base_url, model and prices')
  }
  problems.push(...repoRuntimesRuleProblems(settings))
  return problems
}

/**
 * Checks a PUT body's shape: a JSON object naming only known fields, each of
 * the right type. The rules on values (ranges, URL, model syntax) are checked
 * on the merged document by {@link applySettingsUpdate}.
 */
export function validateSettingsUpdate(body: unknown): Result<SettingsUpdate, string> {
  if (!isRecord(body)) {
    return err(`the settings must be a JSON object of fields to change, not ${describeValue(body)}`)
  }
  const read = readSettingsFields(body, 'refuse')
  return read.ok ? read : err(read.error.join('; '))
}

/**
 * Applies a PUT body to the stored settings: a field left out keeps its
 * value, `null` clears `effort` or `acp`, and a given `acp` (or `repo_runtimes`) replaces the
 * stored one whole. The error is the problem+json `detail` of the 400.
 */
export function applySettingsUpdate(current: Settings, body: unknown): Result<Settings, string> {
  const update = validateSettingsUpdate(body)
  if (!update.ok) return update
  const merged: Settings = { ...current, ...update.value }
  const problems = settingsRuleProblems(merged)
  return problems.length > 0 ? err(problems.join('; ')) : ok(merged)
}

export type DecodedSettings = { settings: Settings | null; warning: string | null }

function undecodable(reason: string): DecodedSettings {
  return {
    settings: null,
    warning: `stored settings can't be decoded (${reason}); running on the defaults until the next PUT replaces them`,
  }
}

/**
 * Reads settings fields leniently: fields this build doesn't know are
 * ignored at every level, and a known field that's missing takes its default,
 * because an older build may have written a document (or sent a run request)
 * before that field existed. A known field with a wrong type or value is an
 * error naming it.
 */
export function readSettingsLeniently(raw: unknown): Result<Settings, string> {
  if (!isRecord(raw)) return err(`expected a JSON object, found ${describeValue(raw)}`)
  const read = readSettingsFields(raw, 'ignore')
  if (!read.ok) return err(read.error.join('; '))
  const settings: Settings = { ...DEFAULT_SETTINGS, ...read.value }
  const problems = settingsRuleProblems(settings)
  return problems.length > 0 ? err(problems.join('; ')) : ok(settings)
}

/**
 * Decodes the stored document with {@link readSettingsLeniently}. A document
 * it can't read makes `settings: null`; the caller then runs on
 * {@link DEFAULT_SETTINGS} and logs the warning.
 */
export function decodeStoredSettings(raw: unknown): DecodedSettings {
  const read = readSettingsLeniently(raw)
  return read.ok ? { settings: read.value, warning: null } : undecodable(read.error)
}

/** {@link decodeStoredSettings} for the KV value as text. */
export function decodeStoredSettingsText(text: string): DecodedSettings {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    return undecodable("the stored value isn't JSON")
  }
  return decodeStoredSettings(raw)
}

/** The settings that travel in a run request, copied so the request can't alias the document. */
export function settingsForRunRequest(settings: Settings): RunRequestSettings {
  const { acp } = settings
  return {
    runtime: settings.runtime,
    model: settings.model,
    effort: settings.effort,
    acp: acp === null ? null : { base_url: acp.base_url, model: acp.model, prices: { ...acp.prices } },
    max_output_tokens: settings.max_output_tokens,
  }
}
