/**
 * What every part of the start-up benchmark (bench/start.ts) shares: the
 * fake's answer and latencies, the two sides (BEFORE_REV's modules and
 * today's), a logger that keeps when each entry came, and the one PR every
 * run reads.
 */
import { join } from 'node:path'
import { buildPromptFromContext, buildSharedContext } from '../../core/run/prompt.ts'
import type { AcpPrices, RunReply, RunRequest } from '../../core/wire/types.ts'
import type { LogFields, Logger } from '../../ports/logger.ts'
import type { LatencyModel } from '../support/caching-fake-anthropic.ts'
import { DIFF_BYTES } from '../support/run-shape.ts'
import { aSyntheticPr, someRules } from '../support/synthetic-pr.ts'

export const TWO_SECONDS: LatencyModel = {
  baseMs: 2_000,
  uncachedMsPer1kTokens: 0,
  cachedMsPer1kTokens: 0,
  outputMsPerToken: 0,
}
export const INSTANT: LatencyModel = {
  baseMs: 0,
  uncachedMsPer1kTokens: 0,
  cachedMsPer1kTokens: 0,
  outputMsPerToken: 0,
}
/** Haiku 4.5's minimum cacheable prompt (as bench/cache.ts). */
export const MIN_CACHEABLE_TOKENS = 4_096
/** USD per million tokens, Haiku 4.5 list prices (as bench/cache.ts). */
export const PRICES = { input: 1, output: 5, cache_write: 1.25, cache_read: 0.1 } as const satisfies AcpPrices

export const ANSWER =
  '{"verdict":"no-match","certainty":88,"reason":"The diff stores timestamps in UTC and bounds every retry loop."}'

// ---- The two sides ---------------------------------------------------------

export type Side = 'before' | 'after'
export const SIDES: readonly Side[] = ['before', 'after']

/** The modules a side is built from: today's tree, or BEFORE_REV's unpacked. */
export type Modules = {
  createClassifier: (deps: Record<string, unknown>) => {
    handle(text: string, onProgress?: (event: unknown) => void): Promise<RunReply>
  }
  createSessionLimiter: (limit: number) => unknown
  createClaudeRuntime: (config: Record<string, unknown>, logger: Logger) => unknown
  createOpencodeRuntime: (config: Record<string, unknown>, logger: Logger) => unknown
  createScriptedModelRuntime: (script: () => unknown) => unknown
  failed: (kind: string, detail: string) => unknown
  createMemorySecretStore: (secrets: Record<string, Record<string, string>>) => unknown
  createRecordingMetrics: () => unknown
  createSystemClock: () => unknown
}

export async function modulesAt(root: string): Promise<Modules> {
  const load = (path: string) => import(join(root, path))
  const [service, limiter, claude, opencode, scripted, secrets, metrics, clock] = await Promise.all([
    load('entrypoints/classifier/service.ts'),
    load('entrypoints/classifier/session-limiter.ts'),
    load('adapters/claude/runtime.ts'),
    load('adapters/opencode/runtime.ts'),
    load('adapters/memory/model-runtime.ts'),
    load('adapters/memory/secret-store.ts'),
    load('adapters/memory/metrics.ts'),
    load('adapters/system/clock.ts'),
  ])
  return {
    createClassifier: service.createClassifier,
    createSessionLimiter: limiter.createSessionLimiter,
    createClaudeRuntime: claude.createClaudeRuntime,
    createOpencodeRuntime: opencode.createOpencodeRuntime,
    createScriptedModelRuntime: scripted.createScriptedModelRuntime,
    failed: scripted.failed,
    createMemorySecretStore: secrets.createMemorySecretStore,
    createRecordingMetrics: metrics.createRecordingMetrics,
    createSystemClock: clock.createSystemClock,
  }
}

/** A logger that keeps when each entry came, for the steps of a run. */
export type TimedEntry = { at: number; msg: string; fields: LogFields }
export function createTimedLogger(): Logger & { entries: TimedEntry[] } {
  const entries: TimedEntry[] = []
  const record = (msg: string, fields: LogFields = {}) => {
    entries.push({ at: performance.now(), msg, fields })
  }
  return { entries, debug: record, info: record, warn: record, error: record }
}

// ---- The PR ------------------------------------------------------------------

export const PR = aSyntheticPr(DIFF_BYTES)
export const BASE: Omit<RunRequest, 'id' | 'classifications'> = {
  trigger: 'try-out',
  repo: 'acme/ledger',
  pr: 314,
  ...PR,
  runtime: 'api-key',
  model: 'haiku',
  effort: null,
  max_output_tokens: 1024,
  acp: null,
}
export const CONTEXT = buildSharedContext(BASE)
const [FIRST_RULE] = someRules(1)
export const QUESTION = FIRST_RULE === undefined ? '' : buildPromptFromContext(CONTEXT, FIRST_RULE).blocks[1].text

let runCount = 0

/** A number for the next run's id, counted across every part, so no two runs share one. */
export function nextRunNumber(): number {
  runCount += 1
  return runCount
}

/** What one part of the benchmark adds to the report, and how many of its runs did not answer. */
export type PartResult = { sections: string[]; goals: string[]; failures: number }
