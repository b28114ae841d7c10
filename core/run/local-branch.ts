/**
 * A local branch as the `check` command reads it with `git`: parsing git's
 * output, and the values a branch lacks that a pull request has (the repo's
 * `owner/name`, a title). Pure: the git adapter runs the commands.
 */
import type { CommitMessage } from '../wire/types.ts'

/**
 * `git log -z --format=%B` output: each message is followed by a NUL, so the
 * text after the last one is empty. An empty message stays (the prompt shows
 * it as `(empty message)`, as it would for a PR), unlike a hand-written
 * commits file, whose empty entries are dropped.
 */
export function parseCommitLog(text: string): CommitMessage[] {
  if (text === '') return []
  const body = text.endsWith('\0') ? text.slice(0, -1) : text
  return body.split('\0').map((message) => ({ message }))
}

/** One entry of `git ls-tree -z --long`. */
export type TreeEntry = {
  mode: string
  type: 'blob' | 'tree' | 'commit'
  /** Bytes for a blob; null for a tree or a submodule. */
  size: number | null
  path: string
}

const TREE_ENTRY = /^(\d{6}) (blob|tree|commit) [0-9a-f]+ +(-|\d+)\t(.+)$/s

/** `git ls-tree -z --long` output; a line in any other shape is left out. */
export function parseTreeEntries(text: string): TreeEntry[] {
  const entries: TreeEntry[] = []
  for (const line of text.split('\0')) {
    const m = TREE_ENTRY.exec(line)
    const [, mode, type, size, path] = m ?? []
    if (mode === undefined || path === undefined || (type !== 'blob' && type !== 'tree' && type !== 'commit')) continue
    entries.push({ mode, type, size: size === '-' || size === undefined ? null : Number(size), path })
  }
  return entries
}

/**
 * Why an entry is not a file the rules can be read from, in the forge's
 * words for the same thing (it counts as present and doesn't load); null
 * for a regular file.
 */
export function unreadableEntry(entry: TreeEntry): string | null {
  if (entry.type === 'tree') return 'is a directory, not a file'
  if (entry.type === 'commit') return 'is a submodule, not a file'
  if (entry.mode === '120000') return 'is a symlink, not a file'
  return null
}

const REPO_PART = /^[^/\s]+$/

function isRepoPart(part: string | undefined): part is string {
  return part !== undefined && part !== '.' && part !== '..' && REPO_PART.test(part)
}

/**
 * `owner/name` from a remote URL's last two path segments, the way a forge
 * lays out its repos: `https://forge/acme/widgets.git`,
 * `ssh://git@forge:2222/acme/widgets`, `git@forge:acme/widgets.git`, or a
 * path. Null when the URL has no two such segments. A user or token in the
 * URL is never part of the answer.
 */
export function repoFromRemoteUrl(url: string): string | null {
  let path = url.trim()
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)?$/i.exec(path)
  if (scheme !== null) {
    path = scheme[1] ?? ''
  } else {
    // scp-like `host:path` (no slash before the colon); a Windows drive letter is not a host.
    const scp = /^[^/:]{2,}:(.*)$/.exec(path)
    if (scp !== null) path = scp[1] ?? ''
  }
  const parts = path
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')
    .split('/')
  const name = parts.at(-1)
  const owner = parts.at(-2)
  return isRepoPart(owner) && isRepoPart(name) ? `${owner}/${name}` : null
}

/** The owner a repo gets when no remote names one. */
export const LOCAL_OWNER = 'local'

/** `local/<folder>` for a work tree with no usable `origin`; whitespace in the folder's name becomes `-`. */
export function repoFromFolderName(folder: string): string {
  const name = folder.trim().replace(/[\s/]+/g, '-')
  return `${LOCAL_OWNER}/${name === '' || name === '.' || name === '..' ? 'repo' : name}`
}

/** `feature` from `refs/heads/feature`, `origin/feature` from `refs/remotes/origin/feature`; null for anything else. */
export function shortBranchName(fullRef: string): string | null {
  const ref = fullRef.trim()
  if (ref.startsWith('refs/heads/')) return ref.slice('refs/heads/'.length) || null
  if (ref.startsWith('refs/remotes/')) return ref.slice('refs/remotes/'.length) || null
  return null
}

function subject(commit: CommitMessage | undefined): string {
  return commit?.message.trim().split('\n')[0]?.trim() ?? ''
}

/**
 * The title a forge gives a new pull request: the commit's subject when the
 * branch has exactly one, else the branch's name. A detached head has no
 * name, so the newest commit's subject stands in.
 */
export function defaultTitle(commits: readonly CommitMessage[], branch: string | null): string {
  const only = commits.length === 1 ? subject(commits[0]) : ''
  if (only !== '') return only
  return branch ?? subject(commits.at(-1))
}

/** How many files a unified git diff changes: its `diff --git` lines. */
export function countDiffFiles(diff: string): number {
  return diff.match(/^diff --git /gm)?.length ?? 0
}
