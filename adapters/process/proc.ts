/** What /proc tells about a process and a process group (Linux). */
import { readFileSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'

/** The fields of /proc/<pid>/stat after the command name (which is in parentheses and may hold spaces); index 0 is field 3, the state. */
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
}

/**
 * When the process started, in clock ticks since boot (stat(5) field 22):
 * with the pid, what tells the process apart from a later one given the same
 * pid. `null` when there is no such process (or no procfs).
 */
export function startTimeOf(pid: number): string | null {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return null
  }
  const fields = statFields(stat)
  const state = fields[0]
  // Field 22 of stat(5); index 0 is field 3.
  const startTime = fields[19]
  if (state === 'Z' || state === 'X' || startTime === undefined || !/^\d+$/.test(startTime)) return null
  return startTime
}

/** This boot's id, so a record from before a reboot is not taken for a process of this one; `unknown` without procfs. */
export function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
  } catch {
    return 'unknown'
  }
}

/**
 * The group's processes that still run. A zombie counts as gone: it is
 * dead and only waits for its reaper (an orphan's reaper is init, which
 * may take its time).
 */
export async function livingGroupMembers(pgid: number): Promise<number[]> {
  try {
    process.kill(-pgid, 0)
  } catch {
    return []
  }
  const entries = await readdir('/proc').catch(() => null)
  if (entries === null) return [pgid] // no procfs: the signal probe is all we know
  const living: number[] = []
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '')
    const [state, , group] = statFields(stat)
    if (group === String(pgid) && state !== 'Z' && state !== 'X') living.push(Number(name))
  }
  return living
}
