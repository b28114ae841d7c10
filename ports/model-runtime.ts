/**
 * A model runtime answers classifications, one fresh, tool-less session
 * each: the API key runtime spawns one `claude --print` per session, the ACP
 * runtime opens a session on the run's one `opencode acp`. Nothing carries
 * over from one session to the next. A runtime may keep something for a run
 * (the ACP runtime keeps one process per run) until `endRun`.
 *
 * A session is opened ahead of its question and asked later
 * (docs/decisions.md, "The run"): `open` starts what the session needs (the
 * claude process, left waiting on its stdin; the ACP run's process and a
 * `session/new` on it) and returns at once; `ask` sends the question when
 * its turn comes, and its deadline counts from there; `close` ends a session
 * that will not be asked (or was), so nothing opened outlives its run.
 *
 * A failed classification is an expected outcome (it becomes a row's error),
 * so nothing here rejects: every failure, a failure to start included, is
 * in `ask`'s result.
 */

import type { Result } from '../core/base/result.ts'
import type { AcpProvider, Effort, Usage } from '../core/wire/types.ts'

/** What a session starts with: everything but the question, known once the run request is decoded and its key read. */
export type SessionSpec = {
  /** The run request's id: every session of a run carries it, so a runtime can share what a run shares. */
  runId: string
  /** The classifier's system prompt, the same for every classification. */
  system: string
  /** The model as the runtime names it: the claude alias, or the ACP provider's model. */
  model: string
  /** `null` runs at the runtime's own default. */
  effort: Effort | null
  /** The most output tokens, thinking included, the session's model request may ask for (the settings' `max_output_tokens`). */
  maxOutputTokens: number
  /** The ACP runtime's provider; the API key runtime ignores it. */
  acp: AcpProvider | null
  /** The runtime's key (the subscription runtime's OAuth token), from the secret store; never logged, never in a failure's detail. */
  apiKey: string
  /** Named in the process's telemetry attributes so cost reads by repo and PR. */
  labels: { repo: string; pr: number }
  /** Aborting stops the session at once (shutdown), asked or not; an ask's result is then a `runtime` failure. */
  signal?: AbortSignal
}

/** The one question a session is asked. */
export type Question = {
  /** The shared context (header, commits, diff), the first content block; identical across a run so the provider's cache holds. */
  context: string
  /** This classification's question, the second block: the only part that differs. */
  question: string
  /** How long the question may take from `ask`; at the deadline the session is stopped. */
  deadlineMs: number
}

/** A session opened and asked in one go, as the memory fake's script and the tests see it. */
export type ClassifyInput = SessionSpec & Question

export type ModelAnswer = {
  /** The model's final text, unparsed: parsing it into an answer is core's. */
  text: string
  /** Token counts when the runtime reported them; `null` otherwise. */
  usage: Usage | null
  /** The runtime's own cost figure in USD (claude's `total_cost_usd`), when it reports one. */
  costUsd?: number
}

export type ModelFailure = {
  kind: 'timeout' | 'runtime'
  /** One short line: exit code or API status and the tail of stderr, with key material redacted. */
  detail: string
}

export type ClassifyResult = Result<ModelAnswer, ModelFailure>

export type AskOptions = {
  /**
   * Told once the question is on its way to the provider: the session has
   * started (its process is up) and sent it. The caller starts the next
   * sessions from here, so their start-up does not compete for the CPU
   * with this one's. Not told when the session fails or stops before that.
   */
  onUnderway?: () => void
}

export type ModelSession = {
  /** Sends the question and runs the session to its answer or its failure; once per session. Never rejects. */
  ask(question: Question, options?: AskOptions): Promise<ClassifyResult>
  /**
   * Ends the session: a session never asked stops its process (or drops its
   * ACP session) and removes its directories; after an ask it waits for that
   * to be over. Idempotent; never rejects.
   */
  close(): Promise<void>
}

export type ModelRuntime = {
  /** Starts a session ahead of its question and returns at once; a start that fails shows in `ask`'s result. */
  open(spec: SessionSpec): ModelSession
  /**
   * The run's sessions have all been closed: release what the runtime kept
   * for it (the ACP runtime stops the run's process and removes its
   * directory); a no-op for runtimes that keep nothing. Never rejects.
   */
  endRun(runId: string): Promise<void>
}
