/**
 * The bounds the controller holds, each number written once for the schema
 * that documents it, the check that enforces it and the use case it limits.
 */

/**
 * Review places (docs/behaviour.md, "Trigger and lifecycle", "Swarm-level
 * settings"): `max_concurrent_reviews` requested reviews run at once, from
 * one to eight, and eight more wait in memory for a place.
 */
export const MIN_CONCURRENT_REVIEWS = 1
export const MAX_CONCURRENT_REVIEWS = 8
/** Requested reviews waiting in the controller's memory for a run place, beside those running. */
export const WAITING_PLACES = 8
