/** What both benchmarks run: the same run sizes, PR and service limits, so their numbers compare. */

/** Classifications per run. 10 is the spec's maximum per repo. */
export const NS = [1, 5, 10] as const
/** The classifier's default cap on sessions at once (docs/decisions.md, "Process fan-out"). */
export const MAX_SESSIONS = 8
/** The PR's diff: ~96 KB is a large but ordinary PR, ~25k tokens, far under the 600 KB budget. */
export const DIFF_BYTES = 96_000
/** The classifier's default deadline; nothing here should come near it. */
export const CLASSIFICATION_TIMEOUT_MS = 180_000
export const CONTEXT_BUDGET_BYTES = 600_000
