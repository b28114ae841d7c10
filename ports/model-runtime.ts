/**
 * A model runtime answers one classification: the API key runtime spawns
 * `claude --print`, the ACP runtime drives `opencode acp`. One call is one
 * fresh, tool-less session; nothing carries over to the next. A runtime may
 * keep something for a run (the ACP runtime keeps one process per run) until
 * `endRun`.
 *
 * A failed classification is an expected outcome (it becomes a row's error),
 * so `classify` never rejects: every failure is in the result.
 */

import type { Result } from '../core/result.ts'
import type { AcpProvider, Effort, Usage } from '../core/types.ts'

export type ClassifyInput = {
  /** The run request's id: every classification of a run carries it, so a runtime can share what a run shares. */
  runId: string
  /** The classifier's system prompt, the same for every classification. */
  system: string
  /** The shared context (header, commits, diff), the first content block; identical across a run so the provider's cache holds. */
  context: string
  /** This classification's question, the second block: the only part that differs. */
  question: string
  /** The model as the runtime names it: the claude alias, or the ACP provider's model. */
  model: string
  /** `null` runs at the runtime's own default. */
  effort: Effort | null
  /** The ACP runtime's provider; the API key runtime ignores it. */
  acp: AcpProvider | null
  /** The runtime's key, from the secret store; never logged, never in a failure's detail. */
  apiKey: string
  /** How long the session may take from the call; at the deadline the session is stopped. */
  deadlineMs: number
  /** Named in the process's telemetry attributes so cost reads by repo and PR. */
  labels: { repo: string; pr: number }
  /** Aborting stops the session at once (shutdown); the result is then a `runtime` failure. */
  signal?: AbortSignal
}

export type ModelAnswer = {
  /** The model's final text, unparsed: parsing it into an answer is core's. */
  text: string
  /** Token counts when the runtime reported them; `null` otherwise. */
  usage: Usage | null
}

export type ModelFailure = {
  kind: 'timeout' | 'runtime'
  /** One short line: exit code or API status and the tail of stderr, with key material redacted. */
  detail: string
}

export type ClassifyResult = Result<ModelAnswer, ModelFailure>

export type ModelRuntime = {
  /** Runs one classification's session to its answer or its failure; never rejects. */
  classify(input: ClassifyInput): Promise<ClassifyResult>
  /**
   * The run's classifications are all done: release what the runtime kept
   * for it (the ACP runtime stops the run's process and removes its
   * directory); a no-op for runtimes that keep nothing. Never rejects.
   */
  endRun(runId: string): Promise<void>
}
