/** The wall clock. Timestamps come from here so tests can fix them. */
export type Clock = {
  /** The current time in milliseconds since the Unix epoch. */
  nowMs(): number
}
