/**
 * The try-out page's "open a PR" (docs/behaviour.md, "Try-out"): the service
 * account pushes a branch from the default branch's head with one commit
 * that merges the classifications into the repo's rules file, with the swarm
 * UI user as the commit's author, and the answer links to the forge's
 * compare page, where the user opens the PR.
 *
 * Every refusal is an AppError whose code the HTTP layer maps to its status
 * (invalid 400, forbidden 403, not_found 404, conflict 409, unprocessable
 * 422, internal 500, unavailable 503) and whose message is the `detail`.
 */
import { type AppError, appError, errorReason, isAppError } from '../../../../core/base/errors.ts'
import { redactSecrets } from '../../../../core/base/text.ts'
import type { PrLabels } from '../../../../core/repo-files/examples-merge.ts'
import {
  branchName,
  type CommitIdentity,
  changedNames,
  commitAuthor,
  commitMessage,
  compareUrl,
  type OpenPrRequest,
} from '../../../../core/repo-files/open-pr.ts'
import { type DefaultBranchRules, describeRulesRefusal } from '../../../../core/repo-files/repo-rules.ts'
import {
  formatMergeProblem,
  mergeClassifications,
  type RulesFileText,
} from '../../../../core/repo-files/rules-merge.ts'
import { SERVICE_ACCOUNT } from '../../../../core/settings/service-account.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { Classification, OpenPrAnswer, RepoRef } from '../../../../core/wire/types.ts'
import type { BranchFileWrite, Forge, ForgeReader, ForgeUser } from '../../../../ports/forge.ts'
import type { Ids } from '../../../../ports/ids.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { SecretStore } from '../../../../ports/secret-store.ts'
import { readServiceToken, type ServiceAccountGate, TOKEN_MINTING_DETAIL } from '../settings/service-token.ts'
import { isExamplesPath, mergedExamplesWrite, readExamplesFile } from './open-pr-labels.ts'
import { loadDefaultBranchRules } from './rules-loader.ts'

/** What opening a PR needs of the forge. */
export type OpenPrForge = {
  /** Reads run on the controller's token; the push on the service account's, through `forAccount`. */
  api: ForgeReader & Pick<Forge, 'forAccount'>
  /** The forge's web root (`FORGE_URL`), e.g. `https://forge.example`; the compare page hangs off it. */
  webUrl: string
  /** `FORGE_NOREPLY_DOMAIN`: the commit author's address is `<login>@noreply.<domain>`. */
  noreplyDomain: string
}

export type OpenPrDeps = {
  forge: OpenPrForge
  /** Holds the service account's token, read for every push. */
  secrets: SecretStore
  /** The branch's 8 hex digits. */
  ids: Pick<Ids, 'hex8'>
  logger: Logger
  /**
   * Whether the service account may push (an admin may have stopped it), and
   * its token's mint; none: the forge's refusal alone says, and a missing
   * token is the old "isn't minted yet".
   */
  serviceAccount?: ServiceAccountGate
}

export type OpenPr = {
  /** Pushes the branch for `remoteUser` (the swarm UI login) and answers where to open the PR; throws a coded AppError. */
  open(remoteUser: string, request: OpenPrRequest): Promise<OpenPrAnswer>
}

/** A branch-name collision is a 1 in 4 billion chance; one more try with new digits is plenty. */
const PUSH_ATTEMPTS = 2

type Push = {
  repo: RepoRef
  defaultBranch: string
  login: string
  file: RulesFileText
  sha: string | null
  message: string
  author: CommitIdentity
  committer: CommitIdentity
  /** The examples file, when the labels change it. */
  moreFiles: BranchFileWrite[]
}

/** The rules file to merge into, or the 422 the `rules` route would answer for it. */
function sourceFile(rules: DefaultBranchRules): {
  file: RulesFileText | null
  sha: string | null
  existing: Classification[]
} {
  switch (rules.kind) {
    case 'rules':
      return {
        file: { path: rules.file.path, text: rules.file.text },
        sha: rules.file.sha,
        existing: rules.classifications,
      }
    case 'none':
      return { file: null, sha: null, existing: [] }
    case 'both':
    case 'invalid':
      // The `rules` route's words, so the page says the same thing whichever route found it.
      throw appError('unprocessable', `${describeRulesRefusal(rules)}; fix the rules on ${rules.branch} first`)
  }
}

/**
 * Pushing the branch on the service account's token: the token, the push
 * with its one retry on a taken name, and what a refused push means.
 * `readFailure` words a failed read as the open does.
 */
function createBranchPusher(
  deps: OpenPrDeps,
  readFailure: (action: string, error: unknown) => AppError,
): (request: Push) => Promise<string> {
  const { forge, ids, logger } = deps

  /**
   * The token for this push. A missing one is being minted: the pass in
   * flight is joined, or one starts now, and the push doesn't wait for it (an
   * HTTP answer can't wait the minutes a mint may take): the 503 says when to
   * try again.
   */
  async function serviceToken(): Promise<string> {
    const token = await readServiceToken(deps.secrets, deps.serviceAccount)
    if (token.ok) return token.value
    if (token.error.kind === 'unreadable')
      logger.warn('review classifier open-pr token read failed', { error: token.error.detail })
    if (token.error.kind === 'missing' && deps.serviceAccount !== undefined) {
      void deps.serviceAccount.mintToken()
      throw appError('unavailable', TOKEN_MINTING_DETAIL)
    }
    throw appError('unavailable', token.error.detail)
  }

  /**
   * One commit on a new branch. The port's `conflict` is either the branch
   * name taken or the rules file moved since it was read; whether the branch
   * now exists tells which. A taken name gets one more try with new digits.
   */
  async function push(request: Push): Promise<string> {
    const { repo } = request
    for (let attempt = 1; ; attempt += 1) {
      const branch = branchName(request.login, ids.hex8())
      const token = await serviceToken()
      try {
        await forge.api.forAccount(token).commitFile(repo, {
          branch,
          from: request.defaultBranch,
          path: request.file.path,
          content: request.file.text,
          sha: request.sha,
          message: request.message,
          author: request.author,
          committer: request.committer,
          ...(request.moreFiles.length === 0 ? {} : { moreFiles: request.moreFiles }),
        })
        return branch
      } catch (error) {
        const taken = isAppError(error, 'conflict') ? await branchExists(repo, branch) : false
        if (taken && attempt < PUSH_ATTEMPTS) continue
        throw await pushFailure(request, branch, taken, error, token)
      }
    }
  }

  async function branchExists(repo: RepoRef, branch: string): Promise<boolean> {
    try {
      return (await forge.api.getBranchHead(repo, branch)) !== null
    } catch (error) {
      throw readFailure(`check the branch ${branch} after a refused push`, error)
    }
  }

  async function pushFailure(
    request: Push,
    branch: string,
    taken: boolean,
    error: unknown,
    token: string,
  ): Promise<AppError> {
    const repo = repoName(request.repo)
    // The forge's text is never expected to hold the token; make sure.
    const reason = redactSecrets(errorReason(error), [token])
    const noWrite = `the service account needs write access to ${repo}: add ${SERVICE_ACCOUNT.login} as a collaborator with write`
    if (isAppError(error, 'conflict')) {
      if (taken)
        return appError('conflict', `the branch ${branch} already exists, as did the one tried before it; try again`)
      const files =
        request.moreFiles.length === 0
          ? `the ${isExamplesPath(request.file.path) ? 'examples' : 'rules'} file ${request.file.path}`
          : [request.file.path, ...request.moreFiles.map((file) => file.path)].join(' or ')
      return appError('conflict', `${files} changed on ${request.defaultBranch} during the push; load the rules again`)
    }
    if (isAppError(error, 'forbidden')) return appError('forbidden', noWrite)
    if (isAppError(error, 'not_found')) return notFoundOnPush(request, noWrite)
    if (isAppError(error, 'unauthorized')) {
      return appError(
        'unavailable',
        `the forge refuses the service account's token (${reason}); the controller mints a new one within five minutes`,
      )
    }
    const fields = { repo, branch, code: isAppError(error) ? error.code : 'internal', error: reason }
    // A forge that's down or slow comes back; any other refusal (a branch name git refuses) needs a look.
    if (isAppError(error, 'unavailable') || isAppError(error, 'timeout')) {
      logger.warn('review classifier open-pr push failed', fields)
      return appError('unavailable', `the forge couldn't take the push: ${reason}`)
    }
    logger.error('review classifier open-pr push failed', fields)
    return appError('internal', `the forge refused the push: ${reason}`)
  }

  /**
   * A private repo the account can't read is hidden behind a 404, so a 404
   * on a repo just read is missing access, unless the default branch itself
   * went away meanwhile.
   */
  async function notFoundOnPush(request: Push, noWrite: string): Promise<AppError> {
    let head: string | null
    try {
      head = await forge.api.getBranchHead(request.repo, request.defaultBranch)
    } catch (error) {
      return readFailure(`check ${repoName(request.repo)} after a refused push`, error)
    }
    if (head === null) {
      return appError('not_found', `${repoName(request.repo)} or its default branch ${request.defaultBranch} is gone`)
    }
    return appError('forbidden', noWrite)
  }

  return push
}

export function createOpenPr(deps: OpenPrDeps): OpenPr {
  const { forge, logger } = deps

  /** A read on the controller's token that failed: `not_found` is the caller's 404, anything else the forge or this host (503). */
  function readFailure(action: string, error: unknown): AppError {
    if (isAppError(error, 'not_found')) return appError('not_found', error.message, error)
    const reason = errorReason(error)
    logger.warn('review classifier open-pr forge read failed', {
      action,
      code: isAppError(error) ? error.code : 'internal',
      error: reason,
    })
    return appError('unavailable', `the forge couldn't ${action}: ${reason}`, error)
  }

  /** The forge account named like the swarm UI user, who becomes the commit's author. */
  async function authorAccount(remoteUser: string): Promise<ForgeUser> {
    let user: ForgeUser | null
    try {
      user = await forge.api.getUser(remoteUser)
    } catch (error) {
      throw readFailure(`look up the account ${remoteUser}`, error)
    }
    if (user === null) {
      throw appError(
        'conflict',
        `no forge account named like you (${remoteUser}) yet; log in to the forge once, then try again`,
      )
    }
    return user
  }

  async function readRules(repo: RepoRef): Promise<DefaultBranchRules> {
    try {
      return await loadDefaultBranchRules(forge.api, repo)
    } catch (error) {
      throw readFailure(`read the rules of ${repoName(repo)}`, error)
    }
  }

  const push = createBranchPusher(deps, readFailure)

  async function readExamples(
    repo: RepoRef,
    branch: string,
    commit: string,
    labels: readonly PrLabels[],
  ): Promise<BranchFileWrite | null> {
    let read: Awaited<ReturnType<typeof readExamplesFile>>
    try {
      read = await readExamplesFile(forge.api, repo, branch, commit)
    } catch (error) {
      if (isAppError(error, 'unprocessable')) throw error
      throw readFailure(`read the examples file of ${repoName(repo)}`, error)
    }
    return mergedExamplesWrite(read, labels)
  }

  return {
    async open(remoteUser, { repo, classifications, labels = [] }) {
      const user = await authorAccount(remoteUser)
      const rules = await readRules(repo)
      const source = sourceFile(rules)
      const mergedRules = mergeClassifications(source.file, classifications)
      // With labels, rules left as they are still make a commit of the labels alone.
      const rulesUnchanged = !mergedRules.ok && mergedRules.error.kind === 'unchanged'
      if (!mergedRules.ok && !(rulesUnchanged && labels.length > 0)) {
        const problem = mergedRules.error
        throw appError(problem.kind === 'additions-invalid' ? 'invalid' : 'unprocessable', formatMergeProblem(problem))
      }
      const examples = labels.length === 0 ? null : await readExamples(repo, rules.branch, rules.commit, labels)
      const rulesWrite: BranchFileWrite | null = mergedRules.ok
        ? { path: mergedRules.value.path, content: mergedRules.value.text, sha: source.sha }
        : null
      const [first, ...rest] = [rulesWrite, examples].filter((file) => file !== null)
      if (first === undefined) {
        throw appError('unprocessable', 'the rules and the examples file already hold every one of these, unchanged')
      }
      const merged = { value: { path: first.path, text: first.content } }

      const author = commitAuthor({ login: user.login, full_name: user.fullName }, forge.noreplyDomain)
      const committer = commitAuthor(
        { login: SERVICE_ACCOUNT.login, full_name: SERVICE_ACCOUNT.fullName },
        forge.noreplyDomain,
      )
      const { added, updated } = changedNames(source.existing, classifications)
      const branch = await push({
        repo,
        defaultBranch: rules.branch,
        login: user.login,
        file: merged.value,
        sha: first.sha,
        message: commitMessage(added, updated, { login: user.login, name: author.name }, labelledPrs(labels)),
        author,
        committer,
        moreFiles: rest,
      })
      const answer: OpenPrAnswer = {
        branch,
        path: merged.value.path,
        compare_url: compareUrl(forge.webUrl, repo.owner, repo.name, rules.branch, branch),
      }
      logger.info('review classifier rules branch pushed', {
        user: remoteUser,
        author: user.login,
        repo: repoName(repo),
        branch,
        path: answer.path,
        from: rules.branch,
        from_commit: rules.commit,
        added: added.join(','),
        updated: updated.join(','),
        labelled: labelledPrs(labels).join(','),
        examples: examples?.path ?? '',
      })
      return answer
    },
  } satisfies OpenPr
}

function labelledPrs(labels: readonly PrLabels[]): number[] {
  return labels.map(({ pr }) => pr)
}
