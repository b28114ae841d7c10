/**
 * Waiting in tests without guessing: for a thing that should happen, poll
 * until it has (with a generous bound, so a broken test fails instead of
 * hanging); for a thing that must not happen where no event marks "it can
 * no longer happen now", hold a bounded idle that fails the moment it does.
 */

/**
 * The deadline of a model call a test waits on without it being the subject: a process start
 * takes seconds of CPU, which on a loaded 2-core machine is close to a minute, so only a broken
 * runtime comes near this. Files that use it give their tests more than it (bun's timeout).
 */
export const ROOMY_DEADLINE_MS = 120_000

/** Resolves once `condition` holds; rejects after `timeoutMs` naming `what`. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

/**
 * A bounded idle: resolves after `forMs` if `happened` stayed false all the
 * while, rejects as soon as it turns true. `forMs` should be a few times the
 * period in which the thing would have happened (a timer's interval, a
 * round trip), so a regression shows on the first run.
 */
export async function expectNothingFor(happened: () => boolean, what: string, forMs: number): Promise<void> {
  const until = Date.now() + forMs
  while (Date.now() < until) {
    if (happened()) throw new Error(`${what} happened, and should not have`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  if (happened()) throw new Error(`${what} happened, and should not have`)
}
