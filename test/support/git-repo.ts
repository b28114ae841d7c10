/**
 * A hermetic git for tests that build repositories in a temp directory: no
 * user or system config, a fixed identity and fixed dates, so commits are
 * the same on every machine.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

export type HermeticGit = {
  /** The environment git runs with; `home` is its HOME. */
  env(): Record<string, string>
  /** Runs git in `cwd` and answers its stdout; throws with its stderr when it fails. */
  git(cwd: string, ...args: string[]): string
  /** Writes `text` at `path` under `dir`, making the directories. */
  write(dir: string, path: string, text: string): void
  /** Writes `files` under `dir` and commits them all (an empty commit when there are none). */
  commit(dir: string, message: string, files: Record<string, string>): void
}

/** `home` is read at each call, so a suite can make its temp directory in `beforeAll`. */
export function hermeticGit(home: () => string): HermeticGit {
  const env = (): Record<string, string> => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home(),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Ada',
    GIT_AUTHOR_EMAIL: 'ada@example.org',
    GIT_COMMITTER_NAME: 'Ada',
    GIT_COMMITTER_EMAIL: 'ada@example.org',
    GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
  })
  const git = (cwd: string, ...args: string[]): string => {
    const run = Bun.spawnSync(['git', ...args], { cwd, env: env() })
    if (run.exitCode !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr.toString()}`)
    return run.stdout.toString()
  }
  const write = (dir: string, path: string, text: string): void => {
    mkdirSync(resolve(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  return {
    env,
    git,
    write,
    commit(dir, message, files) {
      for (const [path, text] of Object.entries(files)) write(dir, path, text)
      git(dir, 'add', '-A')
      git(dir, 'commit', '-q', '--allow-empty', '-m', message)
    },
  }
}
