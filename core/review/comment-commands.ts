/**
 * The commands a PR comment may give the service account (docs/behaviour.md,
 * "Waivers and labels"): a line that starts with `@<login>` followed by one
 * command, several lines for several commands, the command words in any
 * case.
 *
 * - `waive <rule>: <reason>`, the reason {@link WAIVER_REASON_MIN_CHARS} to
 *   {@link WAIVER_REASON_MAX_CHARS} characters;
 * - `label <rule> match|no-match|not-applicable`.
 *
 * Pure: reading the lines, matching a rule by name, and who may do what.
 * A mention anywhere but at a line's start, a quoted line (`> @…`) and a
 * line inside a fenced code block are not commands, so quoting a command
 * back or showing one as an example gives none. A comment gives at most
 * {@link MAX_COMMANDS_PER_COMMENT}; the rest are refused in one line.
 */
import { quoteInput } from '../base/text.ts'
import type { Verdict } from '../wire/types.ts'

/** A user's effective access to a repo, as the forge ranks it (the forge port's `RepoPermission`). */
export type RepoPermission = 'none' | 'read' | 'write' | 'admin' | 'owner'

export const WAIVER_REASON_MIN_CHARS = 10
export const WAIVER_REASON_MAX_CHARS = 500
/** The most commands one comment gives; a comment with hundreds costs no more than one with ten. */
export const MAX_COMMANDS_PER_COMMENT = 10
/**
 * How many refusal replies a commenter without write access gets on one PR
 * within {@link REFUSAL_REPLY_WINDOW_MS}: each reply notifies everyone
 * watching the PR, so a hostile commenter can't make the service account
 * post without end. The last one says so; the rest are logged, not posted.
 */
export const REFUSAL_REPLIES_PER_WINDOW = 3
export const REFUSAL_REPLY_WINDOW_MS = 60 * 60 * 1000

/** Whether a refusal reply to a commenter goes out, given when the earlier ones went (newest last): `last` adds the notice that no more will. */
export function refusalReplyAllowance(earlier: readonly number[], nowMs: number): 'reply' | 'last' | 'silent' {
  const recent = earlier.filter((at) => nowMs - at < REFUSAL_REPLY_WINDOW_MS).length
  if (recent < REFUSAL_REPLIES_PER_WINDOW - 1) return 'reply'
  return recent === REFUSAL_REPLIES_PER_WINDOW - 1 ? 'last' : 'silent'
}

/** The line the last allowed refusal reply ends with. */
export function refusalRepliesEnd(commenter: string): string {
  return `More refused commands from @${commenter} on this PR get no reply for an hour.`
}

/** How much of a comment is read; a real one is a few hundred bytes, Forgejo takes up to 64 KiB and more. */
export const COMMENT_READ_MAX_CHARS = 65_536

export const LABELS = ['match', 'no-match', 'not-applicable'] as const satisfies readonly Verdict[]

/** One command line as written; the rule is still text, matched against the rules later. */
export type CommentCommand =
  | { kind: 'waive'; line: number; rule: string; reason: string }
  | { kind: 'label'; line: number; rule: string; label: Verdict }
  /** A line addressed to the account that isn't a command it knows, or one beyond the bound. */
  | { kind: 'unreadable'; line: number; problem: string }

export type ParsedComment = {
  commands: CommentCommand[]
  /** Command lines past {@link MAX_COMMANDS_PER_COMMENT}, left unread. */
  beyond: number
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** The length a person counts: code points, not UTF-16 units. */
export function charCount(text: string): number {
  return [...text].length
}

function readCommand(rest: string, line: number): CommentCommand {
  const word = /^(\S+)\s*/.exec(rest)
  const verb = word?.[1]?.toLowerCase() ?? ''
  const args = rest.slice(word?.[0].length ?? 0)
  if (verb === 'waive') {
    const colon = args.indexOf(':')
    if (colon < 0) return { kind: 'unreadable', line, problem: 'a waiver is `waive <rule>: <reason>`' }
    return { kind: 'waive', line, rule: args.slice(0, colon).trim(), reason: args.slice(colon + 1).trim() }
  }
  if (verb === 'label') {
    const last = /\s+(\S+)$/.exec(args)
    const label = LABELS.find((known) => known === last?.[1]?.toLowerCase())
    if (last === null || label === undefined) {
      return { kind: 'unreadable', line, problem: 'a label is `label <rule> match|no-match|not-applicable`' }
    }
    return { kind: 'label', line, rule: args.slice(0, last.index).trim(), label }
  }
  return {
    kind: 'unreadable',
    line,
    problem: `${verb === '' ? 'no command' : `${quoteInput(verb)} is no command`}: the commands are waive and label`,
  }
}

/**
 * The commands of a comment addressed to `login`, in order. Case-insensitive
 * for the login (Forgejo's logins are) and the command words.
 */
export function parseCommentCommands(body: string, login: string): ParsedComment {
  const mention = new RegExp(`^[ \\t]{0,3}@${escapeRegExp(login)}(?![\\w.-])[ \\t]*(.*)$`, 'i')
  const commands: CommentCommand[] = []
  let beyond = 0
  let fence: string | null = null
  const lines = body.slice(0, COMMENT_READ_MAX_CHARS).split(/\r\n|\r|\n/)
  lines.forEach((text, index) => {
    const opening = FENCE.exec(text)?.[1]
    if (opening !== undefined) {
      if (fence === null) fence = opening
      else if (opening[0] === fence[0] && opening.length >= fence.length) fence = null
      return
    }
    if (fence !== null) return
    const matched = mention.exec(text)
    if (matched === null) return
    if (commands.length >= MAX_COMMANDS_PER_COMMENT) {
      beyond += 1
      return
    }
    commands.push(readCommand((matched[1] ?? '').trim(), index + 1))
  })
  return { commands, beyond }
}

/** The rule of `names` a command means: the same name ignoring case and surrounding spaces; `null` for none. */
export function matchRule(written: string, names: readonly string[]): string | null {
  const wanted = written.trim().toLowerCase()
  if (wanted === '') return null
  return names.find((name) => name.trim().toLowerCase() === wanted) ?? null
}

/** Why a waiver's reason can't be taken; `null` when it can. */
export function reasonProblem(reason: string): string | null {
  const count = charCount(reason)
  if (count >= WAIVER_REASON_MIN_CHARS && count <= WAIVER_REASON_MAX_CHARS) return null
  return `a waiver's reason is ${WAIVER_REASON_MIN_CHARS} to ${WAIVER_REASON_MAX_CHARS} characters, and this one has ${count}`
}

/** Who the commenter is to the repo and the PR. */
export type Commenter = { permission: RepoPermission; isAuthor: boolean }

const WRITES: readonly RepoPermission[] = ['write', 'admin', 'owner']

/**
 * Why `commenter` may not give a command of `kind`; `null` when they may.
 * Write and admin access may waive and label; the PR's author may label,
 * and waive only when `waiversByAuthor`.
 */
export function whyNotAllowed(kind: 'waive' | 'label', commenter: Commenter, waiversByAuthor: boolean): string | null {
  if (WRITES.includes(commenter.permission)) return null
  if (kind === 'label') {
    return commenter.isAuthor ? null : "only the PR's author and people with write access to the repo may label"
  }
  if (commenter.isAuthor && waiversByAuthor) return null
  return commenter.isAuthor
    ? "only people with write access to the repo may waive (this forge doesn't let a PR's author waive on it)"
    : 'only people with write access to the repo may waive'
}
