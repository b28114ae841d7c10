import { describe, expect, it } from 'bun:test'
import {
  countDiffFiles,
  defaultTitle,
  parseCommitLog,
  parseTreeEntries,
  repoFromFolderName,
  repoFromRemoteUrl,
  shortBranchName,
  unreadableEntry,
} from '../../../core/run/local-branch.ts'

describe('parseCommitLog', () => {
  it.each([
    ['', []],
    ['one\n\0', ['one\n']],
    ['one\n\0two\n\nbody\n\0', ['one\n', 'two\n\nbody\n']],
    // An empty message stays a commit, as the forge would list it.
    ['one\n\0\0', ['one\n', '']],
  ])('reads %j', (text, expected) => {
    expect(parseCommitLog(text).map((c) => c.message)).toEqual(expected)
  })
})

describe('parseTreeEntries', () => {
  it('reads files, symlinks, directories and submodules, with sizes for blobs', () => {
    const text = [
      '100644 blob 1111111111111111111111111111111111111111     123\t.hyperhive/review-classifier.yml',
      '120000 blob 2222222222222222222222222222222222222222      10\t.hyperhive/link',
      '040000 tree 3333333333333333333333333333333333333333       -\t.hyperhive/review-classifier.json',
      '160000 commit 4444444444444444444444444444444444444444       -\tvendor/lib',
      '',
    ].join('\0')
    const entries = parseTreeEntries(text)
    expect(entries).toEqual([
      { mode: '100644', type: 'blob', size: 123, path: '.hyperhive/review-classifier.yml' },
      { mode: '120000', type: 'blob', size: 10, path: '.hyperhive/link' },
      { mode: '040000', type: 'tree', size: null, path: '.hyperhive/review-classifier.json' },
      { mode: '160000', type: 'commit', size: null, path: 'vendor/lib' },
    ])
    expect(entries.map(unreadableEntry)).toEqual([
      null,
      'is a symlink, not a file',
      'is a directory, not a file',
      'is a submodule, not a file',
    ])
  })

  it('keeps a path holding a tab or a newline whole', () => {
    expect(parseTreeEntries('100644 blob abc 1\ta\tb\nc\0')[0]?.path).toBe('a\tb\nc')
  })
})

describe('repoFromRemoteUrl', () => {
  it.each([
    ['https://forge.example/acme/widgets.git', 'acme/widgets'],
    ['https://forge.example/acme/widgets', 'acme/widgets'],
    ['https://forge.example/acme/widgets/', 'acme/widgets'],
    ['https://user:s3cret@forge.example/acme/widgets.git', 'acme/widgets'],
    ['https://forge.example/sub/path/acme/widgets.git', 'acme/widgets'],
    ['ssh://git@forge.example:2222/acme/widgets.git', 'acme/widgets'],
    ['git@forge.example:acme/widgets.git', 'acme/widgets'],
    ['file:///srv/git/acme/widgets.git', 'acme/widgets'],
    ['/srv/git/acme/widgets.git', 'acme/widgets'],
  ])('reads %s as %s', (url, repo) => {
    expect(repoFromRemoteUrl(url)).toBe(repo)
  })

  it.each([
    'https://forge.example/widgets.git',
    'https://forge.example',
    '../widgets.git',
    'git@forge.example:widgets.git',
  ])('finds no owner/name in %s', (url) => {
    expect(repoFromRemoteUrl(url)).toBeNull()
  })
})

describe('repoFromFolderName', () => {
  it('puts the folder under the local owner, whitespace made dashes', () => {
    expect(repoFromFolderName('widgets')).toBe('local/widgets')
    expect(repoFromFolderName('my widgets')).toBe('local/my-widgets')
    expect(repoFromFolderName('')).toBe('local/repo')
  })
})

describe('defaultTitle', () => {
  it("takes the only commit's subject, else the branch, else the newest subject", () => {
    expect(defaultTitle([{ message: 'Fix the clock\n\nBecause.\n' }], 'feature')).toBe('Fix the clock')
    expect(defaultTitle([{ message: 'a\n' }, { message: 'b\n' }], 'feature')).toBe('feature')
    expect(defaultTitle([{ message: 'a\n' }, { message: 'b\n' }], null)).toBe('b')
    expect(defaultTitle([{ message: '' }], 'feature')).toBe('feature')
  })
})

describe('shortBranchName and countDiffFiles', () => {
  it('shortens branch refs only', () => {
    expect(shortBranchName('refs/heads/feature/x')).toBe('feature/x')
    expect(shortBranchName('refs/remotes/origin/main')).toBe('origin/main')
    expect(shortBranchName('refs/tags/v1')).toBeNull()
  })

  it('counts the files of a diff', () => {
    expect(countDiffFiles('diff --git a/x b/x\n+diff --git no\ndiff --git a/y b/y\n')).toBe(2)
    expect(countDiffFiles('')).toBe(0)
  })
})
