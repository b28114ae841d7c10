/**
 * The newest 100 finished runs on the queue's KV bucket
 * `review-classifier-runs`, key `recent`, and the `review classifier run
 * finished` log event that reaches VictoriaLogs whether or not the write does:
 * what the rest of the controller sees of it (`RunStore`), and its
 * implementation over the KV port.
 */

import { describeError, isAppError } from '../../../../core/base/errors.ts'
import {
  type AppendedRuns,
  appendRunWithin,
  listRuns,
  RUN_FINISHED_MESSAGE,
  RUNS_BUCKET,
  RUNS_KEY,
  type RunRecord,
  runFinishedEvent,
} from '../../../../core/run/run-record.ts'
import type { KvBuckets } from '../../../../ports/kv.ts'
import type { Logger } from '../../../../ports/logger.ts'
import { updateWithRetry } from '../../../common/base/kv-update.ts'

export type RunStore = {
  /**
   * Adds a finished run (newest first, the newest 100 kept) with
   * compare-and-set, and logs the `review classifier run finished` event
   * whether or not the write succeeds. Never throws: a failed write is
   * logged and changes nothing else.
   */
  record(run: RunRecord): Promise<void>
  /** The runs, newest first, undecodable ones left out with a warning. Throws like `SettingsStore.read` (settings-store.ts). */
  list(): Promise<RunRecord[]>
}

export type KvRunStoreDeps = {
  buckets: KvBuckets
  logger: Logger
}

export const RUN_WRITE_FAILED_MESSAGE = 'review classifier run not recorded in the run store'
export const RUN_LEFT_OUT_MESSAGE = 'stored review classifier run left out of the list'
export const RUNS_DROPPED_MESSAGE = 'oldest review classifier runs dropped to fit the run store'

export function createKvRunStore(deps: KvRunStoreDeps): RunStore {
  const { buckets, logger } = deps
  // The same undecodable runs stay stored until 100 newer ones push them out; warn once per stored revision.
  let lastWarnedRevision: number | null = null

  return {
    async record(run) {
      // Logged first and unconditionally: the log is where a run whose write fails is still found.
      logger.info(RUN_FINISHED_MESSAGE, runFinishedEvent(run))
      try {
        const kv = await buckets.open(RUNS_BUCKET)
        // The whole list is one KV value, and one message: it must fit the server's max_payload.
        const maxBytes = kv.maxValueBytes()
        // What the attempt that was written appended: updateWithRetry answers only the text.
        const last: { appended: AppendedRuns | null } = { appended: null }
        await updateWithRetry(kv, RUNS_KEY, (current) => {
          last.appended = appendRunWithin(current, run, maxBytes)
          return last.appended.text
        })
        const written = last.appended
        if (written !== null && written.dropped > 0) {
          logger.warn(RUNS_DROPPED_MESSAGE, {
            bucket: RUNS_BUCKET,
            key: RUNS_KEY,
            id: run.id,
            kept: written.kept,
            dropped: written.dropped,
            bytes: written.bytes,
            max_bytes: maxBytes,
          })
        }
      } catch (error) {
        logger.warn(RUN_WRITE_FAILED_MESSAGE, {
          id: run.id,
          trigger: run.trigger,
          repo: run.repo,
          pr: run.pr,
          code: isAppError(error) ? error.code : 'internal',
          error: describeError(error),
        })
      }
    },

    async list() {
      const kv = await buckets.open(RUNS_BUCKET)
      const entry = await kv.get(RUNS_KEY)
      const { runs, warnings } = listRuns(entry === null ? null : entry.value)
      if (entry !== null && warnings.length > 0 && lastWarnedRevision !== entry.revision) {
        lastWarnedRevision = entry.revision
        for (const reason of warnings)
          logger.warn(RUN_LEFT_OUT_MESSAGE, { bucket: RUNS_BUCKET, key: RUNS_KEY, revision: entry.revision, reason })
      }
      return runs
    },
  } satisfies RunStore
}
