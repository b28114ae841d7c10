/**
 * `POST /api/review-classifier/open-pr`: the try-out page's "open a PR"
 * (docs/behaviour.md, "Try-out"). The service account pushes a branch from the default
 * branch's head with one commit that merges the classifications into the
 * repo's rules file, with the swarm UI user as the commit's author; the
 * answer links to the forge's compare page, where the user opens the PR.
 *
 * The body is parsed here, not by Elysia, so a 400's detail is core's
 * message naming the field. Every refusal is thrown as an {@link HttpProblem}.
 */

import { Elysia, t } from 'elysia'
import { isAppError } from '../../../../core/errors.ts'
import { branchName, type CommitIdentity, commitAuthor, compareUrl } from '../../../../core/open-pr.ts'
import { repoName } from '../../../../core/repo.ts'
import { err, ok, type Result } from '../../../../core/result.ts'
import { formatRulesProblems, validateClassifications } from '../../../../core/rules-file.ts'
import { formatMergeProblem, mergeClassifications, type RulesFileText } from '../../../../core/rules-merge.ts'
import type { Classification, RepoRef } from '../../../../core/types.ts'
import type { Forge, ForgeReader, ForgeUser } from '../../../../ports/forge.ts'
import type { Ids } from '../../../../ports/ids.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { SecretStore } from '../../../../ports/secret-store.ts'
import { type DefaultBranchRules, describeRulesRefusal, loadDefaultBranchRules } from '../../usecases/rules-loader.ts'
import { SERVICE_ACCOUNT, SERVICE_TOKEN } from '../../usecases/service-account.ts'
import { HttpProblem, ProblemSchema, parseJsonBody, RemoteUserHeaders, requireRemoteUser } from '../problem.ts'
import { parseRepoValue } from './forge-read.ts'
import { ClassificationSchema } from './rules.ts'

/** What the route needs of the forge; `null` in the deps when this host has none (FORGE_URL unset). */
export type OpenPrForge = {
  /** Reads run on the controller's token; the push on the service account's, through `forAccount`. */
  api: ForgeReader & Pick<Forge, 'forAccount'>
  /** The forge's web root (`FORGE_URL`), e.g. `https://forge.example`; the compare page hangs off it. */
  webUrl: string
  /** `FORGE_NOREPLY_DOMAIN`: the commit author's address is `<login>@noreply.<domain>`. */
  noreplyDomain: string
}

export type OpenPrRoutesDeps = {
  forge: OpenPrForge | null
  /** Holds the service account's token, read for every push. */
  secrets: SecretStore
  /** The branch's 8 hex digits. */
  ids: Pick<Ids, 'hex8'>
  logger: Logger
}

export type OpenPrRequest = { repo: RepoRef; classifications: Classification[] }

export type OpenPrAnswer = { branch: string; path: string; compare_url: string }

export const OPEN_PR_PATH = '/api/review-classifier/open-pr'

/** A branch-name collision is a 1 in 4 billion chance; one more try with new digits is plenty. */
const PUSH_ATTEMPTS = 2
/** Git's advice for a commit subject; a longer one is shortened to a count. */
const SUBJECT_MAX_CHARS = 72

/** For the OpenAPI document only: the body is checked by core, field by field. */
const OpenPrRequestSchema = t.Object(
  {
    repo: t.String({ description: 'owner/name' }),
    classifications: t.Array(ClassificationSchema, {
      minItems: 1,
      maxItems: 10,
      description:
        'Merged into the rules file by name: a name already there replaces that entry, a new one goes at the end.',
    }),
  },
  { description: 'The classifications to add to the repo’s rules file.' },
)

const OpenPrAnswerSchema = t.Object({
  branch: t.String({ description: 'review-classifier/<login>-<8 hex digits>' }),
  path: t.String({ description: 'The rules file written.' }),
  compare_url: t.String({ description: "The forge's compare page for the branch, to open the PR from." }),
})

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The body as the try-out POST takes its repo and classifications. Other
 * fields are ignored, as docs/decisions.md's wire formats read every body.
 */
export function parseOpenPrBody(text: string): Result<OpenPrRequest, string> {
  const parsed = parseJsonBody(text)
  if (!parsed.ok) return err("the body isn't JSON: send { repo, classifications } as a JSON object")
  const body = parsed.value
  if (!isRecord(body)) return err('the body must be a JSON object { repo, classifications }')
  if (!('repo' in body)) return err('missing field "repo"')
  if (!('classifications' in body)) return err('missing field "classifications"')
  const repo = parseRepoValue(body.repo)
  if (!repo.ok) return repo
  const classifications = validateClassifications(body.classifications, 'the body')
  if (!classifications.ok) return err(formatRulesProblems(classifications.error))
  return ok({ repo: repo.value, classifications: classifications.value })
}

/** A name in a one-line commit message: line breaks and tabs become spaces. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/**
 * `Add review classifier rules: a, b` (or `Update`, or `Add and update`),
 * then who wrote them and where, then which names are new and which replaced.
 */
export function commitMessage(
  added: readonly string[],
  updated: readonly string[],
  author: { login: string; name: string },
): string {
  const verb = added.length > 0 && updated.length > 0 ? 'Add and update' : added.length > 0 ? 'Add' : 'Update'
  const names = [...added, ...updated].map(oneLine)
  const listed = `${verb} review classifier rules: ${names.join(', ')}`
  const counted = `${verb} ${names.length} review classifier rule${names.length === 1 ? '' : 's'}`
  const subject = listed.length <= SUBJECT_MAX_CHARS ? listed : counted
  const who = author.name === author.login ? author.login : `${oneLine(author.name)} (${author.login})`
  const lines = [
    subject,
    '',
    `Written by ${who} on the swarm UI's try-out page, and pushed by the ${SERVICE_ACCOUNT.login} service account.`,
    '',
    ...(added.length > 0 ? [`Added: ${added.map(oneLine).join(', ')}`] : []),
    ...(updated.length > 0 ? [`Updated: ${updated.map(oneLine).join(', ')}`] : []),
  ]
  return `${lines.join('\n')}\n`
}

/** Which of the classifications are new to the file and which replace an entry (the unchanged ones are neither). */
function splitChanges(
  existing: readonly Classification[],
  additions: readonly Classification[],
): { added: string[]; updated: string[] } {
  const added: string[] = []
  const updated: string[] = []
  for (const addition of additions) {
    const current = existing.find((entry) => entry.name === addition.name)
    if (current === undefined) added.push(addition.name)
    else if (
      current.description !== addition.description ||
      current.threshold !== addition.threshold ||
      current.polarity !== addition.polarity
    ) {
      updated.push(addition.name)
    }
  }
  return { added, updated }
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
      throw new HttpProblem(422, `${describeRulesRefusal(rules)}; fix the rules on ${rules.branch} first`)
  }
}

export function openPrRoutes(deps: OpenPrRoutesDeps) {
  const { secrets, ids, logger } = deps

  /** A read on the controller's token that failed: `not_found` is the caller's 404, anything else the forge or this host (503). */
  function readFailure(action: string, error: unknown): HttpProblem {
    if (isAppError(error, 'not_found')) return new HttpProblem(404, error.message)
    const reason = isAppError(error) ? error.message : 'an internal error'
    logger.warn('review classifier open-pr forge read failed', {
      action,
      code: isAppError(error) ? error.code : 'internal',
      error: reason,
    })
    return new HttpProblem(503, `the forge couldn't ${action}: ${reason}`)
  }

  /** The forge account named like the swarm UI user, who becomes the commit's author. */
  async function authorAccount(forge: OpenPrForge, remoteUser: string): Promise<ForgeUser> {
    let user: ForgeUser | null
    try {
      user = await forge.api.getUser(remoteUser)
    } catch (error) {
      throw readFailure(`look up the account ${remoteUser}`, error)
    }
    if (user === null) {
      throw new HttpProblem(
        409,
        `no forge account named like you (${remoteUser}) yet; log in to the forge once, then try again`,
      )
    }
    return user
  }

  async function readRules(forge: OpenPrForge, repo: RepoRef): Promise<DefaultBranchRules> {
    try {
      return await loadDefaultBranchRules(forge.api, repo)
    } catch (error) {
      throw readFailure(`read the rules of ${repoName(repo)}`, error)
    }
  }

  /** The service account's token, read from the store for this push and never cached: a re-minted token counts at once. */
  async function serviceToken(): Promise<string> {
    let token: string | null
    try {
      token = await secrets.read(SERVICE_TOKEN.secretPath, SERVICE_TOKEN.secretField)
    } catch (error) {
      const reason = isAppError(error) ? error.message : 'an internal error'
      logger.warn('review classifier open-pr token read failed', {
        code: isAppError(error) ? error.code : 'internal',
        error: reason,
      })
      throw new HttpProblem(503, `the service account's token can't be read from the secret store: ${reason}`)
    }
    if (token === null || token === '') {
      throw new HttpProblem(
        503,
        `the service account's token isn't minted yet (${SERVICE_TOKEN.secretPath}); the controller mints it within five minutes of reaching the forge`,
      )
    }
    return token
  }

  type Push = {
    repo: RepoRef
    defaultBranch: string
    login: string
    file: RulesFileText
    sha: string | null
    message: string
    author: CommitIdentity
    committer: CommitIdentity
  }

  /**
   * One commit on a new branch. The port's `conflict` is either the branch
   * name taken or the rules file moved since it was read; whether the branch
   * now exists tells which. A taken name gets one more try with new digits.
   */
  async function push(forge: OpenPrForge, request: Push): Promise<string> {
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
        })
        return branch
      } catch (error) {
        const taken = isAppError(error, 'conflict') ? await branchExists(forge, repo, branch) : false
        if (taken && attempt < PUSH_ATTEMPTS) continue
        throw await pushFailure(forge, request, branch, taken, error, token)
      }
    }
  }

  async function branchExists(forge: OpenPrForge, repo: RepoRef, branch: string): Promise<boolean> {
    try {
      return (await forge.api.getBranchHead(repo, branch)) !== null
    } catch (error) {
      throw readFailure(`check the branch ${branch} after a refused push`, error)
    }
  }

  async function pushFailure(
    forge: OpenPrForge,
    request: Push,
    branch: string,
    taken: boolean,
    error: unknown,
    token: string,
  ): Promise<HttpProblem> {
    const repo = repoName(request.repo)
    // The forge's text is never expected to hold the token; make sure.
    const reason = (isAppError(error) ? error.message : 'an internal error').replaceAll(token, '[redacted]')
    const noWrite = `the service account needs write access to ${repo}: add ${SERVICE_ACCOUNT.login} as a collaborator with write`
    if (isAppError(error, 'conflict')) {
      if (taken)
        return new HttpProblem(409, `the branch ${branch} already exists, as did the one tried before it; try again`)
      return new HttpProblem(
        409,
        `the rules file ${request.file.path} changed on ${request.defaultBranch} during the push; load the rules again`,
      )
    }
    if (isAppError(error, 'forbidden')) return new HttpProblem(403, noWrite)
    if (isAppError(error, 'not_found')) return notFoundOnPush(forge, request, noWrite)
    if (isAppError(error, 'unauthorized')) {
      return new HttpProblem(
        503,
        `the forge refuses the service account's token (${reason}); the controller mints a new one within five minutes`,
      )
    }
    const fields = { repo, branch, code: isAppError(error) ? error.code : 'internal', error: reason }
    // A forge that's down or slow comes back; any other refusal (a branch name git refuses) needs a look.
    if (isAppError(error, 'unavailable') || isAppError(error, 'timeout')) {
      logger.warn('review classifier open-pr push failed', fields)
      return new HttpProblem(503, `the forge couldn't take the push: ${reason}`)
    }
    logger.error('review classifier open-pr push failed', fields)
    return new HttpProblem(500, `the forge refused the push: ${reason}`)
  }

  /**
   * A private repo the account can't read is hidden behind a 404, so a 404
   * on a repo just read is missing access, unless the default branch itself
   * went away meanwhile.
   */
  async function notFoundOnPush(forge: OpenPrForge, request: Push, noWrite: string): Promise<HttpProblem> {
    let head: string | null
    try {
      head = await forge.api.getBranchHead(request.repo, request.defaultBranch)
    } catch (error) {
      return readFailure(`check ${repoName(request.repo)} after a refused push`, error)
    }
    if (head === null)
      return new HttpProblem(404, `${repoName(request.repo)} or its default branch ${request.defaultBranch} is gone`)
    return new HttpProblem(403, noWrite)
  }

  return (
    new Elysia({ name: 'review-classifier-open-pr', prefix: '/api/review-classifier' })
      // A named model, referenced by the documented body: Elysia mustn't validate the body itself.
      .model({ OpenPrRequest: OpenPrRequestSchema })
      .post(
        '/open-pr',
        async ({ body, request, set }) => {
          const remoteUser = requireRemoteUser(request, 'opening a PR')
          const parsed = parseOpenPrBody(typeof body === 'string' ? body : '')
          if (!parsed.ok) throw new HttpProblem(400, parsed.error)
          const { repo, classifications } = parsed.value
          const forge = deps.forge
          if (forge === null) throw new HttpProblem(503, 'this host has no forge: set FORGE_URL')

          const user = await authorAccount(forge, remoteUser)
          const rules = await readRules(forge, repo)
          const source = sourceFile(rules)
          const merged = mergeClassifications(source.file, classifications)
          if (!merged.ok) {
            const problem = merged.error
            throw new HttpProblem(problem.kind === 'additions-invalid' ? 400 : 422, formatMergeProblem(problem))
          }

          const author = commitAuthor({ login: user.login, full_name: user.fullName }, forge.noreplyDomain)
          const committer = commitAuthor(
            { login: SERVICE_ACCOUNT.login, full_name: SERVICE_ACCOUNT.fullName },
            forge.noreplyDomain,
          )
          const { added, updated } = splitChanges(source.existing, classifications)
          const branch = await push(forge, {
            repo,
            defaultBranch: rules.branch,
            login: user.login,
            file: merged.value,
            sha: source.sha,
            message: commitMessage(added, updated, { login: user.login, name: author.name }),
            author,
            committer,
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
          })
          set.status = 201
          return answer
        },
        {
          parse: 'text',
          headers: RemoteUserHeaders,
          response: {
            201: OpenPrAnswerSchema,
            400: ProblemSchema,
            401: ProblemSchema,
            403: ProblemSchema,
            404: ProblemSchema,
            409: ProblemSchema,
            422: ProblemSchema,
            500: ProblemSchema,
            503: ProblemSchema,
          },
          detail: {
            summary:
              "Push a branch adding the classifications to the repo's rules, authored by you, and answer its compare page",
            tags: ['try-out'],
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/OpenPrRequest' } } },
            },
          },
        },
      )
  )
}
