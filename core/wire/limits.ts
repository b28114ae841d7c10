/**
 * The bounds a body or a rule is held to, written once: the schemas of
 * schemas.ts carry them into the OpenAPI document, the checks of core
 * (rules-check.ts, settings.ts, try-out.ts, answer.ts) into their messages,
 * and the try-out page into its hints. Nothing here imports anything, so
 * any module may use them without a circle.
 */

/** The most classifications a rules file, a run, a try-out or an open-PR body holds. */
export const MAX_CLASSIFICATIONS = 10
/** A name's length in characters (code points): it is a label in a table and a commit message. */
export const NAME_MAX_CHARS = 64
/** A description's: a question of a few sentences, not a document. */
export const DESCRIPTION_MAX_CHARS = 2000
/** A model answer's `reason`, in characters, once capped (spec: 499 and `…`). */
export const ANSWER_REASON_MAX_CHARS = 500

/** The most times a try-out asks each classification (`repeat`). */
export const REPEAT_MAX = 10
/** The most recent PRs a try-out replays (`replay`). */
export const REPLAY_MAX = 20

/** `max_concurrent_reviews`: the fewest and the most requested reviews run at once. */
export const MIN_CONCURRENT_REVIEWS = 1
export const MAX_CONCURRENT_REVIEWS = 8
/** Requested reviews waiting in the controller's memory for a run place, beside those running. */
export const WAITING_PLACES = 8

/** A run request's `id`, in characters. */
export const RUN_ID_MAX_CHARS = 200

/** `max_output_tokens`: the fewest and the most output tokens, thinking included, a model request may ask for, and the default. */
export const MIN_OUTPUT_TOKENS = 256
export const MAX_OUTPUT_TOKENS = 8192
export const DEFAULT_OUTPUT_TOKENS = 1024

/** A classification's `paths`: the fewest and the most glob patterns it may list. */
export const PATHS_MIN_PATTERNS = 1
export const PATHS_MAX_PATTERNS = 20
/** One pattern of `paths`, in characters (code points). */
export const PATH_PATTERN_MAX_CHARS = 200
/** The in-scope files a question names before it says "and N more". */
export const SCOPE_FILES_NAMED_MAX = 50
