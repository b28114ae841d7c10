/** What the claude runtime's tests share: the real binary, a work dir, the spawned pids. */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RecordingLogger } from '../../../adapters/memory/logger.ts'
import { livingGroupMembers } from '../../../adapters/process/proc.ts'

/** The pinned native binary; `bun add`/the postinstall link `.bin/claude` straight to the ELF, no node needed. */
export const CLAUDE_BIN = join(import.meta.dir, '../../../node_modules/.bin/claude')

/** Looks like a real key, so a leak would show. */
export const SECRET_KEY = 'sk-ant-api03-TESTONLY-9f8e7d6c5b4a'

export async function aWorkDir(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'claude-runtime-test-'))
  return { path, remove: () => rm(path, { recursive: true, force: true }) }
}

/** The pids of the sessions the runtime started, from its debug log. */
export function startedPids(logger: RecordingLogger): number[] {
  return logger.withMessage('claude session started').map((entry) => Number(entry.fields.pid))
}

/** True while any process of the group led by `pid` still runs (zombies waiting for init count as gone). */
export async function groupAlive(pid: number): Promise<boolean> {
  return (await livingGroupMembers(pid)).length > 0
}

/** True while the process runs; a zombie is dead. */
export async function processAlive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
  const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
  return stat !== '' && state !== 'Z' && state !== 'X'
}
