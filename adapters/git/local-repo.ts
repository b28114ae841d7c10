/**
 * A local git work tree, read with the `git` command for the `check`
 * command: refs, the merge base, commit messages, the diff and files at a
 * commit. Each method runs one `git`; what is expected to be missing (a ref,
 * a merge base, a remote) comes back as null, and anything else becomes an
 * `AppError` carrying the command, its exit code and the tail of its stderr.
 *
 * The diff is pinned to git's built-in behaviour, whatever the user's
 * config: no colour, no external diff or textconv driver, `a/` and `b/`
 * prefixes, three lines of context, the default algorithm, renames found as
 * a forge's `git diff` finds them, and binary files as git shows them
 * (`Binary files … differ`). That keeps the bytes the model sees the bytes a
 * PR of the same commits would give.
 */
import { appError } from '../../core/base/errors.ts'
import { parseCommitLog, parseTreeEntries, shortBranchName, type TreeEntry } from '../../core/run/local-branch.ts'
import { type DecodedText, decodeUtf8 } from '../../core/run/utf8.ts'
import type { CommitMessage } from '../../core/wire/types.ts'

export type LocalRepoConfig = {
  /** Any directory inside the work tree. */
  cwd: string
  /** The environment `git` runs with (its config, `PATH`, a hook's `GIT_DIR`). */
  env: Record<string, string | undefined>
  /** The `git` program; default `git` from `PATH`. */
  gitBin?: string
}

export type LocalRepo = {
  /** The work tree's top directory; `not_found` when `cwd` is in no git work tree. */
  topLevel(): Promise<string>
  /** The commit `ref` (anything the user typed) names, or null when it names none. The other methods take the commits this gives. */
  resolveCommit(ref: string): Promise<string | null>
  /** `origin`'s default branch as git last learnt it (`origin/main`), or null when `refs/remotes/origin/HEAD` isn't set. */
  remoteDefaultBranch(): Promise<string | null>
  /**
   * The branch `ref` names (`feature` for `HEAD` on it, `origin/feature` for a remote one), or null for a
   * detached head, a tag or a commit.
   */
  branchOf(ref: string): Promise<string | null>
  /** The best common ancestor of two commits, or null when they share no history. */
  mergeBase(a: string, b: string): Promise<string | null>
  /**
   * For `commit` already in `tip`: the oldest commit of `tip`'s first-parent line that has it
   * (the merge commit that brought it in), or null when `commit` is on that line itself.
   */
  mergedBy(commit: string, tip: string): Promise<string | null>
  /** The full messages of the commits in `from..to`, oldest first. */
  commitMessages(from: string, to: string): Promise<CommitMessage[]>
  /** The unified diff from `from` to `to`, decoded as the service decodes a PR's (core/run/utf8.ts). */
  diff(from: string, to: string): Promise<DecodedText>
  /** The tree entries at `paths` in `commit` (a path that isn't there has none). */
  entriesAt(commit: string, paths: readonly string[]): Promise<TreeEntry[]>
  /** A file's bytes at `commit`, decoded as UTF-8 the way the forge's contents route is. */
  readFileAt(commit: string, path: string): Promise<string>
  /** The URL of the remote `name`, or null when there is none. */
  remoteUrl(name: string): Promise<string | null>
  /**
   * The commits the remote's refs `refs` point at, by ref, as it advertises them now (`git ls-remote`);
   * a ref the remote hasn't is left out.
   */
  remoteRefs(remote: string, refs: readonly string[]): Promise<Map<string, string>>
  /** Fetches `refs` from the remote, objects only: no local ref is written, FETCH_HEAD aside. */
  fetchRefs(remote: string, refs: readonly string[]): Promise<void>
  /** True when tracked files differ from `HEAD` (staged or not): those changes are not what a push would send. */
  hasUncommittedChanges(): Promise<boolean>
}

type GitRun = { code: number; stdout: Uint8Array; stderr: string }

const STDERR_TAIL_CHARS = 300

/** Config that would change the diff's bytes, set back to git's own defaults for every command. */
const PINNED_CONFIG = [
  'core.quotePath=true',
  'diff.noprefix=false',
  'diff.mnemonicPrefix=false',
  'diff.relative=false',
  'diff.renames=true',
  'diff.algorithm=default',
  'diff.suppressBlankEmpty=false',
  'diff.indentHeuristic=true',
  'diff.submodule=short',
  'diff.orderFile=/dev/null',
  'log.showSignature=false',
  'i18n.logOutputEncoding=UTF-8',
].flatMap((setting) => ['-c', setting])

const DIFF_OPTIONS = [
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '--unified=3',
  '--inter-hunk-context=0',
]

function tail(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length <= STDERR_TAIL_CHARS ? line : `…${line.slice(-STDERR_TAIL_CHARS)}`
}

export function createLocalRepo(config: LocalRepoConfig): LocalRepo {
  const gitBin = config.gitBin ?? 'git'
  const decoder = new TextDecoder()

  async function git(args: readonly string[]): Promise<GitRun> {
    let child: Bun.Subprocess<'ignore', 'pipe', 'pipe'>
    try {
      child = Bun.spawn([gitBin, ...PINNED_CONFIG, ...args], {
        cwd: config.cwd,
        env: { ...config.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
        stdin: 'ignore',
        stdout: 'pipe',
        stderr: 'pipe',
      })
    } catch (error) {
      throw appError('unavailable', `git can't be run (${gitBin}): is it installed and on PATH?`, error)
    }
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).bytes(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    return { code, stdout, stderr }
  }

  function failure(args: readonly string[], run: GitRun): Error {
    return appError('unavailable', `git ${args.join(' ')} failed (exit ${run.code}): ${tail(run.stderr)}`)
  }

  /** Runs git and returns stdout as text; any non-zero exit is a failure. */
  async function text(args: readonly string[]): Promise<string> {
    const run = await git(args)
    if (run.code !== 0) throw failure(args, run)
    return decoder.decode(run.stdout)
  }

  return {
    async topLevel() {
      const args = ['rev-parse', '--show-toplevel']
      const run = await git(args)
      if (run.code === 0) return decoder.decode(run.stdout).trim()
      if (/not a git repository/i.test(run.stderr)) {
        throw appError('not_found', `${config.cwd} is not in a git repository`)
      }
      if (/must be run in a work tree/i.test(run.stderr)) {
        throw appError('not_found', `${config.cwd} is in a bare git repository; run check in a work tree`)
      }
      throw failure(args, run)
    },
    async resolveCommit(ref) {
      const run = await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`])
      return run.code === 0 ? decoder.decode(run.stdout).trim() : null
    },
    async remoteDefaultBranch() {
      const run = await git(['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD'])
      const ref = decoder.decode(run.stdout).trim()
      return run.code === 0 && ref !== '' ? ref : null
    },
    async branchOf(ref) {
      // No branch name starts with "-", and this rev-parse mode echoes `--end-of-options` back.
      if (ref.startsWith('-')) return null
      const run = await git(['rev-parse', '--symbolic-full-name', ref])
      return run.code === 0 ? shortBranchName(decoder.decode(run.stdout)) : null
    },
    async mergeBase(a, b) {
      const args = ['merge-base', a, b]
      const run = await git(args)
      // Exit 1 with no output: no common ancestor.
      if (run.code === 1 && run.stdout.length === 0) return null
      if (run.code !== 0) throw failure(args, run)
      return decoder.decode(run.stdout).trim()
    },
    async mergedBy(commit, tip) {
      const line = await text(['rev-list', '--first-parent', '--ancestry-path', '--reverse', `${commit}..${tip}`])
      const oldest = line.split('\n')[0]?.trim() ?? ''
      if (oldest === '') return null
      // On the first-parent line itself (a fast-forward): no merge commit brought it in.
      const onLine = await git(['merge-base', '--is-ancestor', commit, `${oldest}^1`])
      return onLine.code === 0 ? null : oldest
    },
    async commitMessages(from, to) {
      return parseCommitLog(await text(['log', '-z', '--reverse', '--format=%B', `${from}..${to}`]))
    },
    async diff(from, to) {
      // As the service reads the forge's diff: invalid UTF-8 as U+FFFD, and said so (core/run/utf8.ts).
      const args = ['diff', ...DIFF_OPTIONS, from, to, '--']
      const run = await git(args)
      if (run.code !== 0) throw failure(args, run)
      return decodeUtf8(run.stdout)
    },
    async entriesAt(commit, paths) {
      return parseTreeEntries(await text(['ls-tree', '-z', '--long', commit, '--', ...paths]))
    },
    async readFileAt(commit, path) {
      // The forge's contents route decodes the same way: invalid bytes become U+FFFD.
      const args = ['cat-file', 'blob', `${commit}:${path}`]
      const run = await git(args)
      if (run.code !== 0) throw failure(args, run)
      return decoder.decode(run.stdout)
    },
    async remoteUrl(name) {
      const run = await git(['remote', 'get-url', name])
      const url = decoder.decode(run.stdout).trim()
      return run.code === 0 && url !== '' ? url : null
    },
    async remoteRefs(remote, refs) {
      const found = new Map<string, string>()
      if (refs.length === 0) return found
      const listed = await text(['ls-remote', '--refs', '--end-of-options', remote, ...refs])
      const wanted = new Set(refs)
      for (const line of listed.split('\n')) {
        const [commit, ref] = line.split('\t')
        // ls-remote matches patterns against a ref's tail: keep only the refs asked for, exactly.
        if (commit !== undefined && ref !== undefined && wanted.has(ref)) found.set(ref, commit)
      }
      return found
    },
    async fetchRefs(remote, refs) {
      if (refs.length === 0) return
      await text(['fetch', '--quiet', '--no-tags', '--no-recurse-submodules', '--end-of-options', remote, ...refs])
    },
    async hasUncommittedChanges() {
      const run = await git(['status', '--porcelain', '--untracked-files=no'])
      return run.code === 0 && run.stdout.length > 0
    },
  } satisfies LocalRepo
}
