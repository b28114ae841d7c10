/**
 * The swarm-wide settings document on the queue's KV bucket
 * `review-classifier-settings`, key `all`: what the rest of the controller
 * sees of it (`SettingsStore`), and its implementation over the KV port.
 */

import { err, ok, type Result } from '../../../../core/base/result.ts'
import {
  applySettingsUpdate,
  DEFAULT_SETTINGS,
  decodeStoredSettingsText,
  SETTINGS_BUCKET,
  SETTINGS_KEY,
} from '../../../../core/settings/settings.ts'
import type { Settings } from '../../../../core/wire/types.ts'
import type { KvBuckets } from '../../../../ports/kv.ts'
import type { Logger } from '../../../../ports/logger.ts'
import { updateWithRetry } from '../../../common/base/kv-update.ts'

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

export type KvSettingsStoreDeps = {
  buckets: KvBuckets
  logger: Logger
}

export const UNDECODABLE_SETTINGS_MESSAGE = 'stored review classifier settings undecodable; using the defaults'

/** A copy, so no caller can change the defaults for everyone. */
function defaults(): Settings {
  return { ...DEFAULT_SETTINGS }
}

/** Thrown out of the compare-and-set step to stop it when the PUT is refused; never leaves this module. */
class UpdateRefused extends Error {
  readonly detail: string
  constructor(detail: string) {
    super(detail)
    this.detail = detail
  }
}

export function createKvSettingsStore(deps: KvSettingsStoreDeps): SettingsStore {
  const { buckets, logger } = deps
  // Every read would otherwise repeat the same warning; one per stored revision says it.
  let lastWarnedRevision: number | null = null

  function decode(value: string, revision: number): Settings {
    const decoded = decodeStoredSettingsText(value)
    if (decoded.settings !== null) return decoded.settings
    if (lastWarnedRevision !== revision) {
      lastWarnedRevision = revision
      logger.warn(UNDECODABLE_SETTINGS_MESSAGE, {
        bucket: SETTINGS_BUCKET,
        key: SETTINGS_KEY,
        revision,
        reason: decoded.warning,
      })
    }
    return defaults()
  }

  return {
    async read() {
      const kv = await buckets.open(SETTINGS_BUCKET)
      const entry = await kv.get(SETTINGS_KEY)
      return entry === null ? defaults() : decode(entry.value, entry.revision)
    },

    async update(body): Promise<Result<Settings, string>> {
      const kv = await buckets.open(SETTINGS_BUCKET)
      // The step must be pure, so the warning for an undecodable stored value is left to reads.
      function next(current: string | null): string {
        const decoded = current === null ? null : decodeStoredSettingsText(current).settings
        const applied = applySettingsUpdate(decoded ?? defaults(), body)
        if (!applied.ok) throw new UpdateRefused(applied.error)
        return JSON.stringify(applied.value)
      }
      try {
        const written = await updateWithRetry(kv, SETTINGS_KEY, next)
        // Read back through the lenient decoder so the answer is exactly what a GET will see.
        return ok(decode(written.value, written.revision))
      } catch (error) {
        if (error instanceof UpdateRefused) return err(error.detail)
        throw error
      }
    },
  } satisfies SettingsStore
}
