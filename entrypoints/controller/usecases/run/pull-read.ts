/**
 * Reading a PR as a run needs it: its head, its commits and its diff, all of
 * one head. A review and a try-out read it the same way.
 */

import { describeError, isAppError } from '../../../../core/base/errors.ts'
import { err, ok, type Result } from '../../../../core/base/result.ts'
import { DIFF_READ_MAX_BYTES } from '../../../../core/run/budget.ts'
import { settingsForRunRequest } from '../../../../core/settings/settings.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type {
  Classification,
  CommitMessage,
  RepoRef,
  RunRequest,
  Runtime,
  Settings,
} from '../../../../core/wire/types.ts'
import type { ForgePullRequest, ForgeReader } from '../../../../ports/forge.ts'

export type PullRead = { pull: ForgePullRequest; commits: CommitMessage[]; diff: string }

/** The forge reads a PR read makes, all with the controller's own token. */
export type PullReader = Pick<ForgeReader, 'getPullRequest' | 'listPullCommits' | 'getPullDiff'>

/** A push between reading the head and the diff makes the read inconsistent; read again this many times at most. */
const PULL_READ_ATTEMPTS = 3

/** The diff was over the read cap: the message is core's, ready for a no-verdict. */
class DiffTooLarge extends Error {}

async function readDiff(forge: PullReader, repo: RepoRef, pr: number): Promise<string> {
  try {
    return await forge.getPullDiff(repo, pr, DIFF_READ_MAX_BYTES)
  } catch (error) {
    if (isAppError(error, 'unprocessable')) throw new DiffTooLarge(error.message)
    throw error
  }
}

/**
 * The PR, its commits and its diff, all of one head. The diff route has no
 * sha to pin, so the head is read again after the diff: when a push moved
 * it in between, the read starts over on the new head. `onHead` hears each
 * head being read, so a caller knows it even when the read fails.
 * A diff over the read cap (core's `DIFF_READ_MAX_BYTES`) stops the read at
 * once, with core's sentence naming the cap: it would be over again.
 */
export async function readPullAtOneHead(
  forge: PullReader,
  repo: RepoRef,
  pr: number,
  onHead: (sha: string) => void = () => {},
): Promise<Result<PullRead, string>> {
  try {
    let pull = await forge.getPullRequest(repo, pr)
    for (let attempt = 1; ; attempt += 1) {
      if (pull.headSha === '') return err("the forge can't resolve the pull request's head commit")
      onHead(pull.headSha)
      const [commits, diff] = await Promise.all([forge.listPullCommits(repo, pr), readDiff(forge, repo, pr)])
      const after = await forge.getPullRequest(repo, pr)
      if (after.headSha === pull.headSha) return ok({ pull, commits, diff })
      if (attempt >= PULL_READ_ATTEMPTS) return err("the pull request's head kept moving while it was read")
      pull = after
    }
  } catch (error) {
    if (error instanceof DiffTooLarge) return err(error.message)
    return err(`the pull request couldn't be read: ${describeError(error)}`)
  }
}

/**
 * The run request for a PR as read: a review's and a try-out's differ only
 * in their trigger and id. `runtime` is the one the settings' repo_runtimes
 * resolved for the repo (core/settings/repo-runtimes.ts); the classifier follows it.
 */
export function runRequestFor(run: {
  id: string
  trigger: RunRequest['trigger']
  repo: RepoRef
  pr: number
  read: PullRead
  classifications: Classification[]
  settings: Settings
  runtime: Runtime
}): RunRequest {
  return {
    id: run.id,
    trigger: run.trigger,
    repo: repoName(run.repo),
    pr: run.pr,
    title: run.read.pull.title,
    commits: run.read.commits,
    diff: run.read.diff,
    classifications: run.classifications,
    ...settingsForRunRequest(run.settings),
    runtime: run.runtime,
  }
}
