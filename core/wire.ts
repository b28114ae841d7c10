/**
 * The run's wire formats: the request the controller sends the classifier on
 * `<SWARM>.review-classifier.try-out`, and the reply it gets back.
 *
 * Types only. Both sides read JSON from outside, so each decodes what it
 * receives against a schema (unknown fields ignored, a missing required one
 * is an error) rather than trusting these types; a split deploy must keep
 * working.
 */
import type { AcpProvider, Classification, CommitMessage, Effort, Overall, Row, Runtime } from './types.ts'

/** Controller → classifier: one PR and the rules to run against it. */
export type RunRequest = {
  /** A try-out's id is the one its POST answered with; a review gets a fresh one. */
  id: string
  trigger: 'review' | 'try-out'
  /** `owner/name` */
  repo: string
  pr: number
  title: string
  /** Oldest first, messages only: no sha, so a rebase keeps the prompt bytes. */
  commits: CommitMessage[]
  /** The unified diff as the forge returns it; the classifier strips hashes itself. */
  diff: string
  /** 1–10 rules, in the rules file's shape. */
  classifications: Classification[]
  /** Absent on the wire means `api-key` (a controller older than the ACP runtime). */
  runtime: Runtime
  /** The API key runtime's model; absent on the wire means `haiku`. */
  model: string
  /** `null` runs at the runtime's own default. */
  effort: Effort | null
  /** The settings' provider; the ACP runtime needs it, the API key runtime ignores it. */
  acp: AcpProvider | null
}

/** Classifier → controller: the run's rows and overall verdict, or why it failed. */
export type RunReply = {
  /** The request's id, echoed. */
  id: string
  /** `false` when the run failed as a whole; `error` then says why. */
  ok: boolean
  /** No key for the runtime, no classification answered, diff over budget, a bad request. */
  error?: string
  /** One per classification sent, in the request's order; `usage` here feeds metrics only. */
  rows: Row[]
  overall: Overall
}
