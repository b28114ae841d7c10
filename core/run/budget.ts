/**
 * The size budget of the shared context. A run over it never calls the
 * model: a PR the model could not read whole must not be approved.
 */

/** 600 KB, roughly 150k tokens. */
export const DEFAULT_CONTEXT_BUDGET_BYTES = 600_000

/**
 * The most of a PR's diff the controller reads from the forge, 10 MB: far
 * above the budget, since lockfiles collapse to a line each only after the
 * read, and a diff past it could never have been classified anyway.
 */
export const DIFF_READ_MAX_BYTES = 10_000_000

/** Lower-case sentence for after `**No verdict:** `: the diff was longer than the read cap, so its read stopped. */
export function diffOverReadCapMessage(maxBytes: number): string {
  return `the PR's diff is larger than ${formatSize(maxBytes, 'down')}, the most the controller reads of a diff, so it was read no further`
}

export type BudgetCheck =
  | { ok: true; bytes: number }
  | {
      ok: false
      bytes: number
      budget: number
      /** Lower-case sentence for after `**No verdict:** `, naming the size and the budget. */
      message: string
    }

/**
 * Measures the shared context in UTF-8 bytes (the context is built after the
 * lockfiles collapse, so that is what counts). Exactly the budget is fine.
 */
export function checkContextBudget(
  sharedContext: string,
  budgetBytes: number = DEFAULT_CONTEXT_BUDGET_BYTES,
): BudgetCheck {
  return budgetCheckOf(utf8Length(sharedContext), budgetBytes)
}

/** The check of a shared context of `bytes` UTF-8 bytes, however they were counted. */
export function budgetCheckOf(bytes: number, budgetBytes: number = DEFAULT_CONTEXT_BUDGET_BYTES): BudgetCheck {
  if (bytes <= budgetBytes) return { ok: true, bytes }
  return {
    ok: false,
    bytes,
    budget: budgetBytes,
    message: `the PR's commits and diff come to ${formatSize(bytes, 'up')}, over the ${formatSize(budgetBytes, 'down')} budget`,
  }
}

/**
 * The size in the largest fitting decimal unit. The size rounds up and the
 * budget down, so a size just over the budget never reads as equal to it.
 */
export function formatSize(bytes: number, rounding: 'up' | 'down'): string {
  const round = rounding === 'up' ? Math.ceil : Math.floor
  if (bytes < 1_000) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`
  if (bytes < 1_000_000) return `${round(bytes / 1_000)} KB`
  return `${round(bytes / 100_000) / 10} MB`
}

/**
 * What `new TextEncoder().encode(text).length` gives (a lone surrogate counts
 * as U+FFFD, 3 bytes), without building the bytes: the runtime's own count.
 */
export function utf8Length(text: string): number {
  return RUNTIME_BUFFER.byteLength(text, 'utf8')
}

/**
 * Bun's (and Node's) Buffer, typed here: core/run/prompt.ts, which counts a
 * context's bytes with `utf8Length`, is in the pages' type check through a
 * type import, and the pages' tsconfig has no runtime's type definitions.
 * The pages never call it.
 */
const RUNTIME_BUFFER = (globalThis as unknown as { Buffer: { byteLength(text: string, encoding: 'utf8'): number } })
  .Buffer
