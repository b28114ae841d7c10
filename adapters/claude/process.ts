/** Small helpers around one child process and its process group. */
import type { FileSink } from 'bun'
import { livingGroupMembers } from '../process/proc.ts'

/** Why the runtime ended a session before it ended on its own. */
export type StopReason = 'timeout' | 'cancelled'

/**
 * Signals every process in the group the child leads (it was spawned
 * detached, so its pid is the group id). A group already gone is fine.
 */
export function endProcessGroup(pid: number, signal: 'SIGTERM' | 'SIGKILL'): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // ESRCH: nothing left in the group
  }
}

/**
 * Waits until no living process is left in the group (signals are
 * delivered a moment after `kill` returns), at most `maxMs`. Returns
 * whether the group is gone.
 */
export async function waitForGroupGone(pgid: number, maxMs: number): Promise<boolean> {
  const until = performance.now() + maxMs
  for (;;) {
    if ((await livingGroupMembers(pgid)).length === 0) return true
    if (performance.now() >= until) return false
    await Bun.sleep(10)
  }
}

/**
 * Writes the one line and closes stdin: the CLI waits for more input while
 * stdin is open. Not awaited by the caller: a child that dies before reading
 * makes the write fail, and its exit is what counts.
 */
export function feedStdin(stdin: FileSink, line: string): void {
  try {
    stdin.write(line)
    Promise.resolve(stdin.end()).catch(() => undefined)
  } catch {
    // the child is gone; its exit status tells the story
  }
}

/** Reads a stream to its end, keeping only the last `maxChars` characters. */
export async function readTail(stream: ReadableStream<Uint8Array>, maxChars: number): Promise<string> {
  const decoder = new TextDecoder()
  let tail = ''
  for await (const chunk of stream) {
    tail = (tail + decoder.decode(chunk, { stream: true })).slice(-maxChars)
  }
  return (tail + decoder.decode()).slice(-maxChars)
}
