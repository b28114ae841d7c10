import type { Redacted, RedactionInput } from '../core/redaction/redact.ts'

/**
 * Takes the secrets out of a run's shared context (core/redaction/redact.ts) where the
 * caller's event loop is not held meanwhile: the classifier keeps sending
 * heartbeats and answering other runs while a large PR is redacted.
 */
export type Redactor = {
  /**
   * The parts redacted. Rejects with an `AppError` of code `timeout` once
   * `signal` aborts (the run's deadline, or a shutdown): the redaction is
   * then abandoned, and nothing of it may be sent anywhere.
   */
  redact(input: RedactionInput, signal: AbortSignal): Promise<Redacted>
  /** Stops whatever the redactor runs on; a later `redact` starts it again. */
  close(): void
}
