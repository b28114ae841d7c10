/**
 * The controller's two documents on the swarm queue's KV, as the rest of the
 * controller sees them. Implemented over the KV port in settings-store.ts and
 * run-store.ts.
 */
import type { Result } from '../../../core/result.ts'
import type { RunRecord } from '../../../core/run-record.ts'
import type { Settings } from '../../../core/types.ts'

export type SettingsStore = {
  /**
   * The settings in force: the stored document, or the defaults when none is
   * stored or it can't be decoded (with a warning in the log). Throws
   * `unavailable` (no queue, not connected) or `timeout`; any other failure to
   * read is an AppError the routes answer with 500.
   */
  read(): Promise<Settings>
  /**
   * Applies a PUT body (the spec's merge rules) with compare-and-set on the
   * stored revision, retried on conflict. `ok: false` carries the 400 detail;
   * store failures throw as for `read`.
   */
  update(body: unknown): Promise<Result<Settings, string>>
}

export type RunStore = {
  /**
   * Adds a finished run (newest first, the newest 100 kept) with
   * compare-and-set, and logs the `review classifier run finished` event
   * whether or not the write succeeds. Never throws: a failed write is
   * logged and changes nothing else.
   */
  record(run: RunRecord): Promise<void>
  /** The runs, newest first, undecodable ones left out with a warning. Throws like {@link SettingsStore.read}. */
  list(): Promise<RunRecord[]>
}
