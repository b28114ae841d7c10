/**
 * What a classifier leaves in `WORK_DIR` so that the model processes it
 * started do not outlive it (issue 11, item 6): `claude` and `opencode` run
 * in process groups of their own, so a classifier killed with SIGKILL leaves
 * them running until their API timeout, still calling the provider.
 *
 * Each classifier instance owns one directory,
 * `<WORK_DIR>/instances/<pid>-<start time>`, holding `owner.json` (host and
 * boot id) and one record per live process group under `sessions/`
 * (`<pid>.json`: pid, process group, start time, runtime). The runtimes put
 * their private session directories under the instance directory too, so
 * removing it removes everything the instance made. A record is written
 * synchronously right after the spawn and removed once the group is gone.
 *
 * At start, before it takes any run, a classifier ends what dead instances
 * left: an instance is alive while a process with its pid and start time
 * (stat(5) field 22, which a later process given the same pid does not
 * share) runs on this boot, and a live instance's directory is never
 * touched, so two classifiers can share a host and a `WORK_DIR`. A dead
 * instance's directory is first claimed by renaming it (one of two
 * classifiers starting together wins), then each recorded group still
 * running as the same process is ended (SIGTERM, then SIGKILL), with one log
 * line per group, and the directory is removed. An instance of another host
 * (a `WORK_DIR` on shared storage) is left alone; one of an earlier boot has
 * only its directory removed, its processes died with that boot.
 */
import { mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { readdir, rename, rm } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { type Static, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { describeError } from '../../core/base/errors.ts'
import type { Logger } from '../../ports/logger.ts'
import { bootId, livingGroupMembers, startTimeOf } from './proc.ts'

const RecordedRuntimeSchema = Type.Union([Type.Literal('claude'), Type.Literal('opencode')])
export type RecordedRuntime = Static<typeof RecordedRuntimeSchema>

export type ProcessRecords = {
  /**
   * Records a session's process group: `pid` was just spawned leading a
   * group of its own. Synchronous, so nothing is awaited between the spawn
   * and the record. Returns the removal, for once the group is gone.
   */
  add(entry: { pid: number; runtime: RecordedRuntime }): () => void
}

export type Instance = ProcessRecords & {
  /** The instance's own directory: the runtimes' session directories go under it. */
  dir: string
  /** Removes the instance's directory, at a clean exit once every session has ended. */
  remove(): Promise<void>
}

type Owner = { host: string; boot_id: string; pid: number; start_time: string }

/** The fields of `owner.json` read back: whose host and boot the instance was. */
const OwnerReadSchema = Type.Object({ host: Type.String(), boot_id: Type.String() })

/** One `sessions/<pid>.json`; a group id of 0 or 1 would signal far more than a session's group. */
const SessionRecordSchema = Type.Object({
  pid: Type.Integer(),
  pgid: Type.Integer({ minimum: 2 }),
  start_time: Type.String(),
  runtime: RecordedRuntimeSchema,
})
type SessionRecord = Static<typeof SessionRecordSchema>

const INSTANCES = 'instances'
const CLAIM_PREFIX = '.ending-'
/** How long a leftover group has between SIGTERM and SIGKILL, and then to be gone. */
const TERM_GRACE_MS = 1_500
const GONE_WAIT_MS = 2_000

function ownIdentity(): { name: string; owner: Owner } {
  const start = startTimeOf(process.pid) ?? '0'
  return {
    name: `${process.pid}-${start}`,
    owner: { host: hostname(), boot_id: bootId(), pid: process.pid, start_time: start },
  }
}

/** Whether `<pid>-<start time>` names a process running now on this boot. */
function aliveByName(name: string): boolean {
  const match = /^(\d+)-(\d+)$/.exec(name)
  if (match === null) return false
  return startTimeOf(Number(match[1])) === match[2]
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    return null
  }
}

function isSessionRecord(value: unknown): value is SessionRecord {
  return Value.Check(SessionRecordSchema, value)
}

/** Starts this classifier's instance directory; call it after {@link endLeftovers}. */
export function startInstance(workDir: string): Instance {
  const { name, owner } = ownIdentity()
  const dir = join(workDir, INSTANCES, name)
  const sessions = join(dir, 'sessions')
  // A directory of this name is an earlier boot's (same pid and start ticks): what it held is gone.
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(sessions, { recursive: true, mode: 0o700 })
  writeFileSync(join(dir, 'owner.json'), JSON.stringify(owner), { mode: 0o600 })
  return {
    dir,
    add({ pid, runtime }) {
      const path = join(sessions, `${pid}.json`)
      const record: SessionRecord = { pid, pgid: pid, start_time: startTimeOf(pid) ?? '', runtime }
      try {
        writeFileSync(path, JSON.stringify(record), { mode: 0o600 })
      } catch {
        // A full disk must not fail the session; the group is then only ended by the runtime.
        return () => undefined
      }
      return () => {
        try {
          unlinkSync(path)
        } catch {
          // already gone
        }
      }
    },
    async remove() {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined)
    },
  }
}

export type LeftoversEnded = { instances: number; groups: number }

/**
 * Ends what dead classifier instances left under `workDir`: their recorded
 * process groups still running, then their directories. Never rejects; a
 * group or directory that can't be handled is logged and left.
 */
export async function endLeftovers(workDir: string, logger: Logger): Promise<LeftoversEnded> {
  const root = join(workDir, INSTANCES)
  const mine = ownIdentity()
  const thisBoot = mine.owner.boot_id
  const thisHost = mine.owner.host
  const ended: LeftoversEnded = { instances: 0, groups: 0 }
  const entries = await readdir(root).catch(() => [] as string[])
  for (const entry of entries) {
    let name = entry
    if (entry.startsWith(CLAIM_PREFIX)) {
      // Claimed by a classifier that died while ending it: take it over if that one is dead too.
      const [claimer, ...rest] = entry.slice(CLAIM_PREFIX.length).split('--')
      if (claimer === undefined || aliveByName(claimer) || claimer === mine.name) continue
      name = rest.join('--')
    } else if (aliveByName(entry)) continue
    const read = readJson(join(root, entry, 'owner.json'))
    const owner = Value.Check(OwnerReadSchema, read) ? read : null
    // Another host's instance, on a shared WORK_DIR: its processes are not ours to judge.
    if (owner !== null && owner.host !== thisHost) continue
    const claimed = join(root, `${CLAIM_PREFIX}${mine.name}--${name}`)
    try {
      await rename(join(root, entry), claimed)
    } catch {
      continue // another classifier claimed it first, or it went
    }
    const sameBoot = owner === null || owner.boot_id === thisBoot
    const instancePid = Number(/^(\d+)-/.exec(name)?.[1] ?? 0)
    if (sameBoot) {
      const files = await readdir(join(claimed, 'sessions')).catch(() => [] as string[])
      const records = files.map((file) => readJson(join(claimed, 'sessions', file))).filter(isSessionRecord)
      // All at once: each may take its SIGTERM grace, and the classifier takes no run until they are done.
      const outcomes = await Promise.all(records.map((record) => endGroup(record, instancePid, logger)))
      ended.groups += outcomes.filter(Boolean).length
    }
    try {
      await rm(claimed, { recursive: true, force: true })
      ended.instances += 1
      logger.info('leftovers of a dead classifier removed', { instance_pid: instancePid, dir: join(root, name) })
    } catch (error) {
      logger.warn('leftovers of a dead classifier not removed', { dir: claimed, error: describeError(error) })
    }
  }
  return ended
}

/**
 * Ends a recorded group if it still runs as the process recorded: its
 * leader with the recorded start time, or (the leader gone) members still in
 * the group, whose id no new process can take while they live. A leader pid
 * now held by another process means the group is long gone.
 */
async function endGroup(record: SessionRecord, instancePid: number, logger: Logger): Promise<boolean> {
  const leaderStart = startTimeOf(record.pid)
  if (leaderStart !== null && leaderStart !== record.start_time) return false
  if ((await livingGroupMembers(record.pgid)).length === 0) return false
  const signal = (name: 'SIGTERM' | 'SIGKILL') => {
    try {
      process.kill(-record.pgid, name)
    } catch {
      // ESRCH: gone meanwhile
    }
  }
  signal('SIGTERM')
  let used: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'
  if (!(await goneWithin(record.pgid, TERM_GRACE_MS))) {
    signal('SIGKILL')
    used = 'SIGKILL'
  }
  const gone = await goneWithin(record.pgid, GONE_WAIT_MS)
  const fields = {
    pid: record.pid,
    pgid: record.pgid,
    runtime: record.runtime,
    instance_pid: instancePid,
    signal: used,
  }
  if (gone) logger.warn('leftover model process group ended', fields)
  else logger.error('leftover model process group still alive after SIGKILL', fields)
  return gone
}

async function goneWithin(pgid: number, ms: number): Promise<boolean> {
  const until = performance.now() + ms
  for (;;) {
    if ((await livingGroupMembers(pgid)).length === 0) return true
    if (performance.now() >= until) return false
    await Bun.sleep(20)
  }
}
