/** The git adapter against the real `git`, in a repo whose config would change every diff it could. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLocalRepo, type LocalRepo } from '../../../adapters/git/local-repo.ts'
import { isAppError } from '../../../core/base/errors.ts'

let dir = ''
let git: LocalRepo
let first = ''
let second = ''

const env = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Ada',
  GIT_AUTHOR_EMAIL: 'ada@example.org',
  GIT_COMMITTER_NAME: 'Ada',
  GIT_COMMITTER_EMAIL: 'ada@example.org',
}

function run(...args: string[]): string {
  const result = Bun.spawnSync(['git', ...args], { cwd: dir, env: { ...env, HOME: dir } })
  if (result.exitCode !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr.toString()}`)
  return result.stdout.toString().trim()
}

const numbered = (from: number, to: number): string =>
  Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}\n`).join('')

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rc-git-'))
  run('init', '-q', '-b', 'main')
  // What a user's config might hold, each changing the bytes of `git diff`.
  for (const [key, value] of [
    ['color.ui', 'always'],
    ['diff.noprefix', 'true'],
    ['diff.mnemonicPrefix', 'true'],
    ['diff.context', '10'],
    ['diff.external', 'false'],
    ['diff.upper.textconv', 'tr a-z A-Z'],
    ['log.showSignature', 'true'],
  ] as const) {
    run('config', key, value)
  }
  writeFileSync(join(dir, '.gitattributes'), '*.txt diff=upper\n')
  writeFileSync(join(dir, 'notes.txt'), numbered(1, 30))
  writeFileSync(join(dir, 'blob.bin'), new Uint8Array([0, 1, 2, 3]))
  run('add', '-A')
  run('commit', '-q', '-m', 'first')
  first = run('rev-parse', 'HEAD')
  writeFileSync(join(dir, 'notes.txt'), numbered(1, 30).replace('line 15\n', 'line fifteen\n'))
  writeFileSync(join(dir, 'blob.bin'), new Uint8Array([0, 1, 2, 4]))
  symlinkSync('notes.txt', join(dir, 'link'))
  run('add', '-A')
  run('commit', '-q', '-m', 'second\n\nwith a body', '--allow-empty')
  second = run('rev-parse', 'HEAD')
  git = createLocalRepo({ cwd: dir, env: { ...env, HOME: dir } })
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('createLocalRepo', () => {
  it("diffs as git's defaults do, whatever the repo's config says", async () => {
    const { text: diff, valid } = await git.diff(first, second)
    expect(valid).toBe(true)
    expect(diff).not.toContain('\x1b')
    expect(diff).toContain('diff --git a/notes.txt b/notes.txt\n')
    expect(diff).toContain('--- a/notes.txt\n+++ b/notes.txt\n@@ -12,7 +12,7 @@ line 11\n')
    // No textconv: the text as committed, not upper-cased.
    expect(diff).toContain('-line 15\n+line fifteen\n')
    expect(diff).toContain('Binary files a/blob.bin and b/blob.bin differ\n')
    expect(diff).toContain('diff --git a/link b/link\nnew file mode 120000\n')
  })

  it('reads a diff that is not UTF-8 as the service does, invalid bytes as U+FFFD, and says so', async () => {
    // Text to git (no NUL byte), but a lone 0xff and a cut-off two-byte sequence are no UTF-8.
    // On a branch of its own, so main stays where the other tests expect it.
    run('checkout', '-q', '-b', 'latin-1')
    writeFileSync(join(dir, 'latin1.txt'), new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x6f, 0x6b, 0xff, 0x0a]))
    run('add', 'latin1.txt')
    run('commit', '-q', '-m', 'latin-1')
    const third = run('rev-parse', 'HEAD')
    run('checkout', '-q', 'main')
    const diff = await git.diff(second, third)
    expect(diff.valid).toBe(false)
    expect(diff.text).toContain('+caf\ufffd\n+ok\ufffd\n')
  })

  it('reads the full messages oldest first', async () => {
    expect(await git.commitMessages(first, second)).toEqual([{ message: 'second\n\nwith a body\n' }])
    expect(await git.commitMessages(second, second)).toEqual([])
  })

  it('resolves refs, and none that looks like an option', async () => {
    expect(await git.resolveCommit('main')).toBe(second)
    expect(await git.resolveCommit('main~1')).toBe(first)
    expect(await git.resolveCommit('no-such-ref')).toBeNull()
    expect(await git.resolveCommit('--output=x')).toBeNull()
    expect(await git.branchOf('HEAD')).toBe('main')
    expect(await git.branchOf(second)).toBeNull()
    expect(await git.remoteDefaultBranch()).toBeNull()
    expect(await git.remoteUrl('origin')).toBeNull()
  })

  it('lists entries with their kind and reads a file at a commit', async () => {
    const entries = await git.entriesAt(second, ['notes.txt', 'link', 'missing'])
    expect(entries.map((e) => [e.path, e.mode, e.type])).toEqual([
      ['link', '120000', 'blob'],
      ['notes.txt', '100644', 'blob'],
    ])
    expect(await git.readFileAt(first, 'notes.txt')).toBe(numbered(1, 30))
  })

  it('says a directory outside any repo is not in one', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'rc-nogit-'))
    try {
      const error = await createLocalRepo({ cwd: outside, env })
        .topLevel()
        .catch((e: unknown) => e)
      expect(isAppError(error, 'not_found') && error.message).toBe(`${outside} is not in a git repository`)
    } finally {
      rmSync(outside, { recursive: true, force: true })
    }
  })
})
