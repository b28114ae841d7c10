/**
 * The labels given from PR comments, in the KV bucket
 * `review-classifier-labels`, one value per repo (core/repo-files/pr-labels.ts).
 */
import {
  addPrLabel,
  LABELS_BUCKET,
  labelsKey,
  type PrLabel,
  readPrLabels,
} from '../../../../core/repo-files/pr-labels.ts'
import type { KvBuckets } from '../../../../ports/kv.ts'
import { updateWithRetry } from '../../../common/base/kv-update.ts'

export type PrLabelStore = {
  /** Keeps `label` for `repo` (`owner/name`), replacing the one for the same PR and rule; throws when the bucket can't be written. */
  add(repo: string, label: PrLabel): Promise<void>
  /** The repo's labels, newest first. Throws when the bucket can't be read. */
  list(repo: string): Promise<PrLabel[]>
}

export function createKvPrLabelStore(buckets: KvBuckets): PrLabelStore {
  return {
    async add(repo, label) {
      const kv = await buckets.open(LABELS_BUCKET)
      await updateWithRetry(kv, labelsKey(repo), (current) => addPrLabel(current, label))
    },
    async list(repo) {
      const kv = await buckets.open(LABELS_BUCKET)
      const entry = await kv.get(labelsKey(repo))
      return readPrLabels(entry === null ? null : entry.value)
    },
  } satisfies PrLabelStore
}
