/**
 * What the try-out bench keeps across a reload, in `localStorage`, one
 * entry per repo: the draft as typed (checked or not), what it was last
 * loaded from, and the attempts with their results. What is read back is
 * outside data, checked against its schema like an answer of the
 * controller; a stored entry that doesn't fit is dropped, never trusted.
 */
import { fitsSchema } from '../core/wire/decode.ts'
import { type DraftEntry, type StoredBench, StoredBenchSchema } from '../core/wire/page-schemas.ts'
import type { Attempt } from './attempt.ts'

const PREFIX = 'review-classifier:try-out:'
const LAST_REPO = `${PREFIX}last-repo`
/** The newest attempts kept: a replay's view is a few KB, and the storage is a few MB shared by the site. */
export const STORED_ATTEMPTS = 12

export type { DraftEntry, StoredBench }

const fitsBench = fitsSchema(StoredBenchSchema)

function storage(): Storage | null {
  try {
    return window.localStorage
  } catch {
    // Storage refused (a private window, a policy): the bench works, it just forgets.
    return null
  }
}

/** The repo the bench last worked on, or null. */
export function lastRepo(): string | null {
  return storage()?.getItem(LAST_REPO) ?? null
}

/** What is kept for `repo`, or null when nothing (readable) is. */
export function loadBench(repo: string): StoredBench | null {
  const text = storage()?.getItem(PREFIX + repo) ?? null
  if (text === null) return null
  try {
    const value: unknown = JSON.parse(text)
    return fitsBench(value) ? value : null
  } catch {
    return null
  }
}

/** Keeps `bench` for `repo` and makes it the repo opened next time; a full storage keeps fewer attempts. */
export function saveBench(repo: string, bench: StoredBench): void {
  const store = storage()
  if (store === null) return
  let attempts = bench.attempts.slice(-STORED_ATTEMPTS)
  for (;;) {
    try {
      store.setItem(PREFIX + repo, JSON.stringify({ ...bench, attempts }))
      store.setItem(LAST_REPO, repo)
      return
    } catch {
      if (attempts.length === 0) return
      attempts = attempts.slice(1)
    }
  }
}

/** An attempt as kept: what it sent and the last view read (the trouble of a read is not worth keeping). */
export function storedAttempt(attempt: Attempt): StoredBench['attempts'][number] {
  const { number, id, mode, repo, pr, count, sent, view, lost } = attempt
  return { number, id, mode, repo, pr, count, sent, view, lost }
}
