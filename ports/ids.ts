/** Where the random parts of names come from, so tests can predict them. */
export type Ids = {
  /** A fresh, unguessable run id (a try-out's id is in its result URL). */
  runId(): string
  /** Eight lowercase hex digits, for a try-out branch `review-classifier/<you>-<hex8>`. */
  hex8(): string
}
