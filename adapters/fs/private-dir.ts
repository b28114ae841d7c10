/**
 * The classifier's `WORK_DIR` must be its own: the model processes run in
 * it, and `claude` and `opencode` look for instructions (`CLAUDE.md`,
 * `AGENTS.md`) in their working directory and its parents, and `claude` for
 * hooks in its working directory (docs/runtimes.md, "Setting sources"). A
 * directory another local user made first (the default lives under `/tmp`)
 * or can write would let them plant those files.
 *
 * So the directory is created (mode 0700) when missing, and then checked,
 * after the create, so that one made by someone else in between is caught:
 * owned by this process's user and not writable by group or others. Each
 * parent must be owned by this user or root and either not writable by
 * group or others or sticky (like `/tmp`), or another user could rename the
 * directory away and put their own in its place.
 */
import { lstatSync, mkdirSync, type Stats, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { describeError } from '../../core/base/errors.ts'

const GROUP_OR_OTHER_WRITE = 0o022
const STICKY = 0o1000

function modeOf(stats: Stats): string {
  return `0${(stats.mode & 0o7777).toString(8)}`
}

/** Why the parent `dir` lets another user replace what is under it, or null. */
function parentProblem(dir: string, uid: number): string | null {
  const stats = statSync(dir)
  if (stats.uid !== uid && stats.uid !== 0) {
    return `its parent ${dir} belongs to uid ${stats.uid}, who could replace it`
  }
  if ((stats.mode & GROUP_OR_OTHER_WRITE) !== 0 && (stats.mode & STICKY) === 0) {
    return `its parent ${dir} is writable by group or others without the sticky bit (mode ${modeOf(stats)}), so another user could replace it`
  }
  return null
}

/**
 * Creates `path` (0700) when missing and checks it and its parents for `uid`;
 * the problem as one line naming `name` (say `WORK_DIR`), or null when it is private.
 */
export function ensurePrivateDir(name: string, path: string, uid: number): string | null {
  const subject = `${name} ${path}`
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 })
  } catch (error) {
    // Something that isn't a directory is there: the checks below say what.
    if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) {
      return `${subject} can't be created: ${describeError(error)}`
    }
  }
  try {
    const link = lstatSync(path)
    if (link.isSymbolicLink() && link.uid !== uid && link.uid !== 0) {
      return `${subject} is a symbolic link of uid ${link.uid}, who could point it elsewhere`
    }
    const stats = statSync(path)
    if (!stats.isDirectory()) return `${subject} is not a directory`
    if (stats.uid !== uid) {
      return `${subject} belongs to uid ${stats.uid}, not this process's uid ${uid}: another user may have made it to plant files the model processes read; remove it or set ${name} to a directory of this user`
    }
    if ((stats.mode & GROUP_OR_OTHER_WRITE) !== 0) {
      return `${subject} is writable by group or others (mode ${modeOf(stats)}); chmod 700 it or set ${name} to a private directory`
    }
    for (let dir = dirname(path); ; dir = dirname(dir)) {
      const problem = parentProblem(dir, uid)
      if (problem !== null)
        return `${subject}: ${problem}; set ${name} to a directory under one only this user or root can write`
      if (dirname(dir) === dir) break
    }
    return null
  } catch (error) {
    return `${subject} can't be checked: ${describeError(error)}`
  }
}
