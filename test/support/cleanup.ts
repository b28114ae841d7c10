/**
 * Leaving nothing behind: a suite whose set-up fails half way, or whose
 * teardown trips over what was never made, must still stop every process
 * and server it started.
 */

/** Runs every step, each whether or not the ones before it failed or were never made, then rethrows the first failure. */
export async function cleanUp(...steps: Array<(() => unknown) | null | undefined>): Promise<void> {
  const failures: unknown[] = []
  for (const step of steps) {
    if (step === null || step === undefined) continue
    try {
      await step()
    } catch (error) {
      failures.push(error)
    }
  }
  if (failures.length > 0) throw failures[0]
}

const SETPRIV = Bun.which('setpriv')

/**
 * The command so that the child is killed when this test process dies, by
 * whatever means, its suite's teardown unreached included: util-linux's
 * `setpriv --pdeathsig KILL` sets the kernel's parent-death signal and then
 * execs the command, so the pid, and every signal a test sends it, is the
 * command's own. (Bun's test runner runs no `exit` handler, so a hook there
 * would not do.) Without setpriv the command runs as given.
 */
export function dieWithParent(command: readonly string[]): string[] {
  return SETPRIV === null ? [...command] : [SETPRIV, '--pdeathsig', 'KILL', ...command]
}
