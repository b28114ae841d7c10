import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensurePrivateDir } from '../../../adapters/fs/private-dir.ts'

const uid = process.getuid?.() ?? 0

describe('ensurePrivateDir', () => {
  let root: string
  beforeEach(() => {
    // mkdtemp makes it 0700 under the sticky, world-writable /tmp: the usual place, and allowed.
    root = mkdtempSync(join(tmpdir(), 'rc-private-dir-'))
  })
  afterEach(() => {
    rmSync(root, { recursive: true, force: true })
  })

  it('creates a missing directory, and its missing parents, mode 0700', () => {
    const path = join(root, 'a', 'work')
    expect(ensurePrivateDir('WORK_DIR', path, uid)).toBeNull()
    expect(statSync(path).mode & 0o777).toBe(0o700)
    expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700)
  })

  it('accepts a directory of this user that only it can write, under a sticky world-writable parent', () => {
    expect(statSync(tmpdir()).mode & 0o1000).toBe(0o1000)
    expect(ensurePrivateDir('WORK_DIR', root, uid)).toBeNull()
    chmodSync(root, 0o755)
    expect(ensurePrivateDir('WORK_DIR', root, uid)).toBeNull()
  })

  it('refuses a directory of another user, naming the variable, the path and both uids', () => {
    const problem = ensurePrivateDir('WORK_DIR', root, uid + 4242)
    expect(problem).toStartWith(`WORK_DIR ${root} belongs to uid ${uid}, not this process's uid ${uid + 4242}`)
    expect(problem).not.toContain('\n')
  })

  it('refuses a directory its group or others can write', () => {
    for (const mode of [0o777, 0o770, 0o702, 0o1777]) {
      chmodSync(root, mode)
      expect(ensurePrivateDir('WORK_DIR', root, uid)).toBe(
        `WORK_DIR ${root} is writable by group or others (mode 0${mode.toString(8)}); chmod 700 it or set WORK_DIR to a private directory`,
      )
    }
  })

  it('refuses one under a parent others can write without the sticky bit', () => {
    const parent = join(root, 'shared')
    mkdirSync(parent)
    chmodSync(parent, 0o777)
    const path = join(parent, 'work')
    const problem = ensurePrivateDir('WORK_DIR', path, uid)
    expect(problem).toContain(`WORK_DIR ${path}: its parent ${parent} is writable by group or others`)
    chmodSync(parent, 0o1777)
    expect(ensurePrivateDir('WORK_DIR', path, uid)).toBeNull()
  })

  it('refuses a path that is a file, and one that cannot be created', () => {
    const file = join(root, 'file')
    writeFileSync(file, 'x')
    expect(ensurePrivateDir('WORK_DIR', file, uid)).toBe(`WORK_DIR ${file} is not a directory`)
    expect(ensurePrivateDir('WORK_DIR', join(file, 'below'), uid)).toStartWith(
      `WORK_DIR ${join(file, 'below')} can't be created: `,
    )
  })

  it('follows a link of this user to the directory it names, and checks that one', () => {
    const target = join(root, 'target')
    mkdirSync(target, { mode: 0o700 })
    const link = join(root, 'link')
    symlinkSync(target, link)
    expect(ensurePrivateDir('WORK_DIR', link, uid)).toBeNull()
    chmodSync(target, 0o777)
    expect(ensurePrivateDir('WORK_DIR', link, uid)).toContain('is writable by group or others')
  })
})
