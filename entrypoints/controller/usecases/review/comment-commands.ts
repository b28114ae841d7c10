/**
 * The commands of a PR comment (docs/behaviour.md, "Waivers and labels"):
 * `waive <rule>: <reason>` and `label <rule> match|no-match|not-applicable`
 * on lines that start with `@review-classifier`.
 *
 * Who may: the commenter's permission is read with the controller's own
 * token (a write collaborator can't read another user's); write and admin
 * may waive and label, the PR's author may label, and waive only with the
 * setting `waivers_by_author`. Each accepted command gets the service
 * account's `+1` on the comment; the refused ones get one reply, a line
 * each saying why, every text from the comment escaped as in a review.
 *
 * `handle` answers at once (the webhook must not wait) and the commands
 * are carried out in the background, one comment of a PR at a time.
 */
import { describeError, isAppError } from '../../../../core/base/errors.ts'
import { capLine } from '../../../../core/base/text.ts'
import {
  type CommentCommand,
  type Commenter,
  MAX_COMMANDS_PER_COMMENT,
  matchRule,
  parseCommentCommands,
  REFUSAL_REPLY_WINDOW_MS,
  reasonProblem,
  refusalRepliesEnd,
  refusalReplyAllowance,
  whyNotAllowed,
} from '../../../../core/review/comment-commands.ts'
import type { PullComment } from '../../../../core/review/comment-webhook.ts'
import { escapeTableCell } from '../../../../core/review/review-body.ts'
import { latestReview } from '../../../../core/review/waiver.ts'
import { SERVICE_ACCOUNT } from '../../../../core/settings/service-account.ts'
import { repoName } from '../../../../core/wire/repo.ts'
import type { Clock } from '../../../../ports/clock.ts'
import type { Forge, RepoPermission } from '../../../../ports/forge.ts'
import type { Logger } from '../../../../ports/logger.ts'
import type { SecretStore } from '../../../../ports/secret-store.ts'
import type { PrLabelStore } from '../repo-files/pr-labels.ts'
import { loadDefaultBranchRules } from '../repo-files/rules-loader.ts'
import type { RunStore } from '../run/run-store.ts'
import { createServiceTokens, type ServiceAccountGate } from '../settings/service-token.ts'
import type { SettingsStore } from '../settings/settings-store.ts'
import type { WaiverRequest, Waivers } from './waivers.ts'

export const COMMENT_COMMANDS_MESSAGE = 'review classifier comment commands'

export type CommentCommandsDeps = {
  forge: Pick<
    Forge,
    'getRepoPermission' | 'getPullRequest' | 'getRepository' | 'getBranchHead' | 'getFileContent' | 'forAccount'
  >
  secrets: SecretStore
  settings: Pick<SettingsStore, 'read'>
  runs: Pick<RunStore, 'list'>
  labels: PrLabelStore
  waivers: Waivers
  clock: Clock
  logger: Logger
  serviceAccount?: ServiceAccountGate
  tokenWaitMs?: number
}

export type CommentCommands = {
  /** Takes a PR comment in and answers at once; its commands are carried out in the background. */
  handle(comment: PullComment): 'accepted'
  /** Resolves once no comment is being handled (tests, shutdown). */
  idle(): Promise<void>
}

/** One command's end: accepted, or refused with why (one line). */
type Answer = { command: string; refused: string | null }

/** The command as quoted back in a refusal: its own words, escaped, cut to one short line. */
function quoted(command: CommentCommand, lines: readonly string[]): string {
  const text = (lines[command.line - 1] ?? '').trim()
  return escapeTableCell(capLine(text, 120))
}

export function createCommentCommands(deps: CommentCommandsDeps): CommentCommands {
  const { forge, logger } = deps
  const inFlight = new Set<Promise<void>>()
  const chains = new Map<string, Promise<void>>()
  /** When each commenter without write access was last sent refusals, by repo, PR and login (refusalReplyAllowance). */
  const refusalsSent = new Map<string, number[]>()

  /** The refusal lines as they may go out to this commenter now, or null when the allowance is spent (logged). */
  function allowedRefusals(comment: PullComment, permission: RepoPermission | null, lines: string[]): string[] | null {
    if (lines.length === 0 || permission === 'write' || permission === 'admin' || permission === 'owner') return lines
    const now = deps.clock.nowMs()
    const key = `${repoName(comment.repo).toLowerCase()}#${comment.pr}#${comment.commenter.toLowerCase()}`
    const earlier = refusalsSent.get(key) ?? []
    const allowance = refusalReplyAllowance(earlier, now)
    if (allowance === 'silent') {
      logger.info('comment command refusal not replied: the commenter had their replies for the hour', {
        repo: repoName(comment.repo),
        pr: comment.pr,
        comment_id: comment.commentId,
        commenter: comment.commenter,
      })
      return null
    }
    // Kept small: the entries of commenters quiet for the window go once the map grows.
    if (refusalsSent.size > 10_000) {
      for (const [k, times] of refusalsSent) {
        if (times.every((at) => now - at >= REFUSAL_REPLY_WINDOW_MS)) refusalsSent.delete(k)
      }
    }
    refusalsSent.set(key, [...earlier.filter((at) => now - at < REFUSAL_REPLY_WINDOW_MS), now])
    return allowance === 'last' ? [...lines, escapeTableCell(refusalRepliesEnd(comment.commenter))] : lines
  }

  async function asAccount(work: (writer: ReturnType<Forge['forAccount']>) => Promise<unknown>): Promise<void> {
    const token = await createServiceTokens(deps.secrets, deps.serviceAccount, deps.tokenWaitMs).read()
    if (!token.ok) {
      logger.warn('comment command not answered: no service account token', { error: token.error.detail })
      return
    }
    try {
      await work(forge.forAccount(token.value))
    } catch (error) {
      logger.warn('comment command not answered: the forge refused', { error: describeError(error) })
    }
  }

  async function reply(comment: Pick<PullComment, 'repo' | 'pr'>, lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return
    await asAccount((writer) => writer.createComment(comment.repo, comment.pr, lines.join('\n')))
  }

  deps.waivers.onLateRefusal((request: WaiverRequest, reason: string) => {
    const rule = escapeTableCell(request.waiver.rule)
    const line = `Not waived: ${rule} by ${escapeTableCell(`@${request.waiver.by}`)}: ${escapeTableCell(reason)}.`
    void reply(request, [line])
  })

  async function readPermission(comment: PullComment): Promise<RepoPermission> {
    try {
      return await forge.getRepoPermission(comment.repo, comment.commenter)
    } catch (error) {
      // An unknown user has no access; a forge that fails is answered below as a refusal of every command.
      if (isAppError(error, 'not_found')) return 'none'
      throw error
    }
  }

  /** The rule names a command may name: the latest review's on the head, and the default branch's rules. */
  async function ruleNames(comment: PullComment, head: string): Promise<string[]> {
    const latest = latestReview(await deps.runs.list(), repoName(comment.repo), comment.pr)
    const fromReview = latest !== null && latest.head_sha === head ? (latest.rows ?? []).map((row) => row.name) : []
    const loaded = await loadDefaultBranchRules(forge, comment.repo).catch(() => null)
    const fromRules = loaded?.kind === 'rules' ? loaded.classifications.map((rule) => rule.name) : []
    return [...new Set([...fromReview, ...fromRules])]
  }

  async function carryOut(
    command: CommentCommand,
    comment: PullComment,
    context: { commenter: Commenter; waiversByAuthor: boolean; head: string; names: () => Promise<string[]> },
  ): Promise<string | null> {
    if (command.kind === 'unreadable') return command.problem
    const why = whyNotAllowed(command.kind, context.commenter, context.waiversByAuthor)
    if (why !== null) return why
    const rule = matchRule(command.rule, await context.names())
    if (rule === null) return 'there is no rule by that name in the latest review or the rules file'
    if (command.kind === 'label') {
      await deps.labels.add(repoName(comment.repo), {
        pr: comment.pr,
        rule,
        label: command.label,
        by: comment.commenter,
        at_unix: Math.floor(deps.clock.nowMs() / 1000),
      })
      return null
    }
    const short = reasonProblem(command.reason)
    if (short !== null) return short
    const outcome = await deps.waivers.apply({
      repo: comment.repo,
      pr: comment.pr,
      waiver: { rule, by: comment.commenter, reason: command.reason, head_sha: context.head },
    })
    return outcome.kind === 'refused' ? outcome.reason : null
  }

  async function process(comment: PullComment): Promise<void> {
    const parsed = parseCommentCommands(comment.body, SERVICE_ACCOUNT.login)
    if (parsed.commands.length === 0) return
    const lines = comment.body.split(/\r\n|\r|\n/)
    const answers: Answer[] = []
    let permission: RepoPermission | null = null
    try {
      const [read, settings, pull] = await Promise.all([
        readPermission(comment),
        deps.settings.read(),
        forge.getPullRequest(comment.repo, comment.pr),
      ])
      permission = read
      const commenter = {
        permission: read,
        isAuthor: comment.author.toLowerCase() === comment.commenter.toLowerCase(),
      }
      let names: Promise<string[]> | null = null
      const context = {
        commenter,
        waiversByAuthor: settings.waivers_by_author,
        head: pull.headSha,
        names: () => {
          names ??= ruleNames(comment, pull.headSha)
          return names
        },
      }
      for (const command of parsed.commands) {
        const refused = await carryOut(command, comment, context).catch(
          (error: unknown) => `it couldn't be carried out (${describeError(error).replace(/\.$/, '')}); try again`,
        )
        answers.push({ command: quoted(command, lines), refused })
      }
    } catch (error) {
      const why = `the controller couldn't read the PR or your access (${describeError(error).replace(/\.$/, '')}); try again`
      for (const command of parsed.commands) answers.push({ command: quoted(command, lines), refused: why })
    }
    const accepted = answers.filter((answer) => answer.refused === null).length
    const refusals = answers.flatMap((answer) =>
      answer.refused === null ? [] : [`Not done: ${answer.command}: ${escapeTableCell(answer.refused)}.`],
    )
    if (parsed.beyond > 0) {
      refusals.push(
        `Not read: ${parsed.beyond} more command lines; a comment gives at most ${MAX_COMMANDS_PER_COMMENT}.`,
      )
    }
    logger.info(COMMENT_COMMANDS_MESSAGE, {
      repo: repoName(comment.repo),
      pr: comment.pr,
      comment_id: comment.commentId,
      commenter: comment.commenter,
      accepted,
      refused: answers.length - accepted,
      beyond: parsed.beyond,
    })
    if (accepted > 0) await asAccount((writer) => writer.reactToComment(comment.repo, comment.commentId, '+1'))
    const allowed = allowedRefusals(comment, permission, refusals)
    if (allowed !== null) await reply(comment, allowed)
  }

  function track(comment: PullComment): void {
    const key = `${repoName(comment.repo).toLowerCase()}#${comment.pr}`
    const before = chains.get(key) ?? Promise.resolve()
    const run = before.then(() =>
      process(comment).catch((error: unknown) => logger.error('comment commands failed', { error })),
    )
    chains.set(key, run)
    inFlight.add(run)
    void run.finally(() => {
      inFlight.delete(run)
      if (chains.get(key) === run) chains.delete(key)
    })
  }

  return {
    handle(comment) {
      track(comment)
      return 'accepted'
    },
    async idle() {
      while (inFlight.size > 0) await Promise.all(inFlight)
      await deps.waivers.idle()
    },
  } satisfies CommentCommands
}
