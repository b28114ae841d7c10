/** Picking what a child process may see of ours. */

/** The named variables of `env` that are set and not empty. */
export function pickEnv<Name extends string>(
  env: Record<string, string | undefined>,
  names: readonly Name[],
): Partial<Record<Name, string>> {
  const picked: Partial<Record<Name, string>> = {}
  for (const name of names) {
    const value = env[name]
    if (value !== undefined && value !== '') picked[name] = value
  }
  return picked
}
