/**
 * The records a classifier leaves in WORK_DIR and the sweep of a dead one's,
 * against real process groups (`sleep` leading a group of its own) and
 * instance directories laid out as a classifier lays them out.
 */
import { afterEach, describe, expect, it } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { bootId, startTimeOf } from '../../../adapters/process/proc.ts'
import { endLeftovers, startInstance } from '../../../adapters/process/records.ts'
import { processAlive } from '../claude/support.ts'

const spawned: Subprocess[] = []
const dirs: string[] = []

function aWorkDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'records-test-'))
  dirs.push(dir)
  return dir
}

/** A process leading a group of its own, as the runtimes start claude and opencode. */
function aGroupLeader(): number {
  const child = Bun.spawn(['sleep', '600'], { detached: true, stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' })
  spawned.push(child)
  return child.pid
}

/** A pid no process has now: one that ran and exited. */
async function aDeadPid(): Promise<number> {
  const child = Bun.spawn(['true'])
  await child.exited
  return child.pid
}

/** An instance directory as a classifier with `pid` and `start` would have left it. */
function anInstance(
  workDir: string,
  name: string,
  records: Array<{ pid: number; start_time: string }>,
  owner: Record<string, unknown> = { host: hostname(), boot_id: bootId() },
): string {
  const dir = join(workDir, 'instances', name)
  mkdirSync(join(dir, 'sessions'), { recursive: true })
  mkdirSync(join(dir, 'claude', 'session-x', 'home'), { recursive: true })
  writeFileSync(join(dir, 'owner.json'), JSON.stringify(owner))
  for (const record of records)
    writeFileSync(
      join(dir, 'sessions', `${record.pid}.json`),
      JSON.stringify({ ...record, pgid: record.pid, runtime: 'claude' }),
    )
  return dir
}

afterEach(async () => {
  for (const child of spawned.splice(0)) {
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {
      // gone
    }
    await child.exited
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('endLeftovers', () => {
  it("ends a dead instance's recorded groups still running, one log line each, and removes its directory", async () => {
    const workDir = aWorkDir()
    const leaders = [aGroupLeader(), aGroupLeader()]
    const dead = await aDeadPid()
    const dir = anInstance(
      workDir,
      `${dead}-12345`,
      leaders.map((pid) => ({ pid, start_time: startTimeOf(pid) ?? '' })),
    )
    const logger = createRecordingLogger()
    expect(await endLeftovers(workDir, logger)).toEqual({ instances: 1, groups: 2 })
    for (const pid of leaders) expect(await processAlive(pid)).toBe(false)
    const lines = logger.withMessage('leftover model process group ended')
    expect(lines.map((line) => line.fields.pid).sort()).toEqual([...leaders].sort())
    expect(lines[0]?.fields).toMatchObject({ runtime: 'claude', instance_pid: dead, signal: 'SIGTERM' })
    expect(existsSync(dir)).toBe(false)
    expect(readdirSync(join(workDir, 'instances'))).toEqual([])
  })

  it('leaves a process alone whose pid now belongs to another process (its start time differs)', async () => {
    const workDir = aWorkDir()
    const other = aGroupLeader()
    const dead = await aDeadPid()
    anInstance(workDir, `${dead}-12345`, [{ pid: other, start_time: '1' }])
    const logger = createRecordingLogger()
    expect(await endLeftovers(workDir, logger)).toEqual({ instances: 1, groups: 0 })
    expect(await processAlive(other)).toBe(true)
    expect(logger.withMessage('leftover model process group ended')).toEqual([])
  })

  it("signals no group for a record that doesn't fit, and still removes the dead instance's directory", async () => {
    const workDir = aWorkDir()
    const leader = aGroupLeader()
    const dead = await aDeadPid()
    const dir = anInstance(workDir, `${dead}-12345`, [])
    const start = startTimeOf(leader) ?? ''
    const misfits = [
      { pid: leader, pgid: leader, start_time: start, runtime: 'bash' },
      { pid: leader, pgid: String(leader), start_time: start, runtime: 'claude' },
      { pid: leader, pgid: 1, start_time: start, runtime: 'claude' },
    ]
    misfits.forEach((record, index) => {
      writeFileSync(join(dir, 'sessions', `${index}.json`), JSON.stringify(record))
    })
    expect(await endLeftovers(workDir, createRecordingLogger())).toEqual({ instances: 1, groups: 0 })
    expect(await processAlive(leader)).toBe(true)
    expect(existsSync(dir)).toBe(false)
  })

  it("never touches a live instance's records or one of another host", async () => {
    const workDir = aWorkDir()
    const leader = aGroupLeader()
    const record = [{ pid: leader, start_time: startTimeOf(leader) ?? '' }]
    // Named after a process that runs (this test), as a live classifier's is.
    const live = anInstance(workDir, `${process.pid}-${startTimeOf(process.pid)}`, record)
    const dead = await aDeadPid()
    const elsewhere = anInstance(workDir, `${dead}-777`, record, { host: 'another-host.example', boot_id: 'x' })
    const logger = createRecordingLogger()
    expect(await endLeftovers(workDir, logger)).toEqual({ instances: 0, groups: 0 })
    expect(await processAlive(leader)).toBe(true)
    expect([existsSync(live), existsSync(elsewhere)]).toEqual([true, true])
  })

  it("only removes the directory of an earlier boot's instance: its processes died with that boot", async () => {
    const workDir = aWorkDir()
    const leader = aGroupLeader()
    const dead = await aDeadPid()
    const dir = anInstance(workDir, `${dead}-1`, [{ pid: leader, start_time: startTimeOf(leader) ?? '' }], {
      host: hostname(),
      boot_id: 'an-earlier-boot',
    })
    expect(await endLeftovers(workDir, createRecordingLogger())).toEqual({ instances: 1, groups: 0 })
    expect(await processAlive(leader)).toBe(true)
    expect(existsSync(dir)).toBe(false)
  })

  it('takes over a dead instance that a classifier which died while ending it had claimed', async () => {
    const workDir = aWorkDir()
    const leader = aGroupLeader()
    const [deadOwner, deadSweeper] = [await aDeadPid(), await aDeadPid()]
    anInstance(workDir, `.ending-${deadSweeper}-5--${deadOwner}-6`, [
      { pid: leader, start_time: startTimeOf(leader) ?? '' },
    ])
    expect(await endLeftovers(workDir, createRecordingLogger())).toEqual({ instances: 1, groups: 1 })
    expect(await processAlive(leader)).toBe(false)
  })

  it('finds nothing to do in a WORK_DIR no classifier has used', async () => {
    expect(await endLeftovers(aWorkDir(), createRecordingLogger())).toEqual({ instances: 0, groups: 0 })
  })
})

describe('startInstance', () => {
  it('records a group while it lives and forgets it when told, in a directory named after this process', async () => {
    const workDir = aWorkDir()
    const instance = startInstance(workDir)
    expect(instance.dir).toBe(join(workDir, 'instances', `${process.pid}-${startTimeOf(process.pid)}`))
    const leader = aGroupLeader()
    const forget = instance.add({ pid: leader, runtime: 'opencode' })
    expect(readdirSync(join(instance.dir, 'sessions'))).toEqual([`${leader}.json`])
    // A live instance's own records survive a sweep by another classifier.
    expect(await endLeftovers(workDir, createRecordingLogger())).toEqual({ instances: 0, groups: 0 })
    forget()
    expect(readdirSync(join(instance.dir, 'sessions'))).toEqual([])
    await instance.remove()
    expect(existsSync(instance.dir)).toBe(false)
  })
})
