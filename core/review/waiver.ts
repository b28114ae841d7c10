/**
 * A waiver of a failing rule (docs/behaviour.md, "Waivers and labels"): which
 * review it applies to, the rows and overall it re-posts, the body and the
 * commit status of that re-post, and the reminder a later head's review
 * carries. Pure; the use case (usecases/review/waivers.ts) reads the run
 * store and posts.
 *
 * A waiver belongs to one head. It takes its rule's row out of the
 * aggregate (the row stays in the table, saying who waived it), and never
 * carries to another head: a review of a later head counts the rule again
 * and only lists the earlier waivers as a reminder.
 */
import type { Static } from '@sinclair/typebox'
import { FAILING_VERDICT, rowBlocks } from '../run/aggregate.ts'
import type { RunRecord } from '../run/run-record.ts'
import { SERVICE_ACCOUNT } from '../settings/service-account.ts'
import type { WaiverSchema } from '../wire/page-schemas.ts'
import type { Overall, Row, Verdict } from '../wire/types.ts'
import type { StatusText } from './commit-status.ts'
import { escapeTableCell, renderReviewTable } from './review-body.ts'

export type Waiver = Static<typeof WaiverSchema>

/** A review the run store holds: a run's, or an earlier waiver's re-post. */
export function isPostedReview(record: RunRecord): boolean {
  return (record.trigger === 'review' || record.trigger === 'waiver') && record.outcome !== 'post-failed'
}

function sameRepo(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}

/** The classifier's latest posted review of `repo`'s PR `pr` among `runs` (newest first); `null` for none. */
export function latestReview(runs: readonly RunRecord[], repo: string, pr: number): RunRecord | null {
  return runs.find((run) => sameRepo(run.repo, repo) && run.pr === pr && isPostedReview(run)) ?? null
}

/** Whether a row blocks: it fails, counted, on a blocking rule (an advisory one never does), and nobody waived it. */
export function blocksUnwaived(row: Pick<Row, 'counted' | 'fails' | 'blocks' | 'waived_by'>): boolean {
  return row.counted && rowBlocks(row) && row.waived_by === undefined
}

/** The verdict that would not have failed the rule: what a waiver says it should have answered. */
export function shouldHaveAnswered(row: Pick<Row, 'polarity'>): Verdict {
  return FAILING_VERDICT[row.polarity] === 'match' ? 'no-match' : 'match'
}

/** Where a waiver goes: the rows and overall to re-post, or why it can't be applied now. */
export type WaiverTarget =
  | { kind: 'apply'; rows: Row[]; overall: 'approve' | 'request-changes'; waived: Waiver[] }
  | { kind: 'refuse'; reason: string }

function shortSha(sha: string): string {
  return sha.slice(0, 12)
}

/**
 * Applies `waiver` to `latest`, the latest review of the PR: it must be on
 * the waiver's head, have a verdict, and the rule's row must fail there
 * and not be waived yet. The overall is computed again without the waived
 * rows: approve when nothing else blocks.
 */
export function waiverTarget(latest: RunRecord | null, waiver: Waiver): WaiverTarget {
  const head = shortSha(waiver.head_sha)
  if (latest === null || latest.rows === undefined) {
    return { kind: 'refuse', reason: `there is no review of this PR with a table to waive a rule of` }
  }
  if ((latest.head_sha ?? '').toLowerCase() !== waiver.head_sha.toLowerCase()) {
    return {
      kind: 'refuse',
      reason: `the latest review is of another commit than the head ${head}; request a review of the head first`,
    }
  }
  if (latest.overall === 'no-verdict' || latest.overall === undefined) {
    return { kind: 'refuse', reason: `the latest review of ${head} has no verdict, so there is nothing to waive` }
  }
  const row = latest.rows.find((candidate) => candidate.name === waiver.rule)
  if (row === undefined) return { kind: 'refuse', reason: `the latest review of ${head} has no such rule` }
  if (row.waived_by !== undefined) {
    return { kind: 'refuse', reason: `the rule is already waived on ${head} by @${row.waived_by}` }
  }
  if (!row.counted || !row.fails)
    return { kind: 'refuse', reason: `nothing to waive: the rule doesn't fail on ${head}` }
  const rows = latest.rows.map((candidate) =>
    candidate === row ? { ...candidate, waived_by: waiver.by, blocks: false } : { ...candidate },
  )
  const earlier = latest.trigger === 'waiver' ? (latest.waived ?? []) : []
  const overall = rows.some(blocksUnwaived) ? 'request-changes' : 'approve'
  return { kind: 'apply', rows, overall, waived: [...earlier, waiver] }
}

/** The one-click label command a waiver offers, for the rule's answer as it should have been. */
export function labelCommand(rule: string, label: Verdict): string {
  return `@${SERVICE_ACCOUNT.login} label ${rule} ${label}`
}

/**
 * A command as a fenced code block, which the forge shows with a copy
 * button and renders nothing in (no mention, no link, no markup): the fence
 * is longer than any run of backticks in the one line, so it can't close early.
 */
function codeBlock(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ')
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length))
  const fence = '`'.repeat(Math.max(3, longest + 1))
  return `${fence}\n${flat}\n${fence}`
}

function waiverLines(waivers: readonly Waiver[], rows: readonly Row[]): string[] {
  return waivers.flatMap((waiver) => {
    const row = rows.find((candidate) => candidate.name === waiver.rule)
    const label = row === undefined ? null : labelCommand(waiver.rule, shouldHaveAnswered(row))
    return [
      `> **${escapeTableCell(waiver.rule)}** waived by ${escapeTableCell(`@${waiver.by}`)}: ${escapeTableCell(waiver.reason)}`,
      ...(label === null
        ? []
        : ['', 'To add it to the examples, label it (copy the line into a comment):', '', codeBlock(label)]),
      '',
    ]
  })
}

/** The re-posted review's body: the table with the waived rows, then each waiver's quoted reason and its label command. */
export function renderWaiverBody(rows: readonly Row[], overall: Overall, waived: readonly Waiver[]): string {
  const lines = waiverLines(waived, rows)
  return [renderReviewTable(rows, overall), `**Waived on this commit:**`, lines.join('\n').trimEnd()].join('\n\n')
}

/** The commit status a re-post sets: only its own words and counts, like every status. */
export function waiverStatus(rows: readonly Row[], overall: 'approve' | 'request-changes'): StatusText {
  const waived = rows.filter((row) => row.waived_by !== undefined).length
  const waivedText = `${waived} failing ${waived === 1 ? 'rule' : 'rules'} waived`
  if (overall === 'approve') return { state: 'success', description: `Approve: ${waivedText}, no other rule fails` }
  const failing = rows.filter(blocksUnwaived).length
  return {
    state: 'failure',
    description: `Request changes: ${failing === 1 ? '1 counted rule fails' : `${failing} counted rules fail`} (${waivedText})`,
  }
}

/**
 * The waivers of `repo`'s PR `pr` on heads other than `head`, from the
 * run store's waiver entries (newest first), one per head and rule.
 */
export function earlierWaivers(runs: readonly RunRecord[], repo: string, pr: number, head: string): Waiver[] {
  const seen = new Set<string>()
  const found: Waiver[] = []
  for (const run of runs) {
    if (run.trigger !== 'waiver' || run.pr !== pr || !sameRepo(run.repo, repo)) continue
    for (const waiver of run.waived ?? []) {
      const key = `${waiver.head_sha.toLowerCase()}\u0000${waiver.rule}`
      if (waiver.head_sha.toLowerCase() === head.toLowerCase() || seen.has(key)) continue
      seen.add(key)
      found.push(waiver)
    }
  }
  return found
}

/** The reminder a later head's review carries: the earlier waivers, which it doesn't apply. */
export function renderWaiverReminder(waivers: readonly Waiver[]): string | null {
  if (waivers.length === 0) return null
  const lines = waivers.map(
    (waiver) =>
      `- **${escapeTableCell(waiver.rule)}** on ${shortSha(waiver.head_sha)}, by ${escapeTableCell(`@${waiver.by}`)}: ${escapeTableCell(waiver.reason)}`,
  )
  return [
    `**Earlier waivers on this PR** (each was for its own commit; this review counts every rule again):`,
    lines.join('\n'),
  ].join('\n\n')
}
