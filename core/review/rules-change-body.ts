/**
 * The rules-change report as the review shows it, below the table
 * (docs/behaviour.md, "The rules-change report"). Every name is text from
 * the repo and goes through the review table's escaping, and so do the PR
 * numbers, so the report references no labelled PR (no cross-reference
 * lands on it).
 */

import type { Overall } from '../wire/types.ts'
import { escapeTableCell } from './review-body.ts'
import type { RulesChangeReport, SideCounts } from './rules-change.ts'

export const REPORT_HEADING = '**Rules change report**'

const OUTCOME_WORDS = {
  approve: 'approve',
  'request-changes': 'request changes',
  'no-verdict': 'no verdict',
} as const satisfies Record<Overall, string>

function pr(number: number): string {
  return escapeTableCell(`#${number}`)
}

function names(list: readonly string[]): string {
  return list.map(escapeTableCell).join(', ')
}

function cell(before: SideCounts | null, after: SideCounts | null, field: keyof SideCounts): string {
  const side = (counts: SideCounts | null) => (counts === null ? '—' : String(counts[field]))
  return `${side(before)} → ${side(after)}`
}

/** Why a report stopped before every labelled PR was asked, and how many were answered in full by then. */
export type ReportStop = { why: string; answered: number }

/**
 * The report: the PRs it ran, a line per rule (before → after), the rules
 * added and removed, the outcomes that change; and, when it stopped early
 * (its deadline, the budget, the controller stopping), a line saying so.
 */
export function renderRulesChangeReport(
  report: RulesChangeReport,
  examplesChanged: boolean,
  stopped: ReportStop | null = null,
): string {
  const what = examplesChanged ? "This PR's rules and examples" : "This PR's rules"
  const lines = [
    REPORT_HEADING,
    '',
    `${what}, scored against the default branch's on the newest ${report.prs.length} labelled PRs (${report.prs.map(pr).join(', ')}), one answer each, default branch → this PR. The review's verdict, posted before this report, is the default branch's rules' alone.`,
    ...(stopped === null
      ? []
      : [
          '',
          `Stopped early: ${escapeTableCell(stopped.why)}. ${stopped.answered} of ${report.prs.length} labelled PRs were answered in full; an answer missing counts as no answer.`,
        ]),
    '',
    '| classification | labelled | agree | disagree | false passes |',
    '| --- | --- | --- | --- | --- |',
    ...report.rules.map((rule) => {
      const cells = [
        escapeTableCell(rule.name),
        cell(rule.before, rule.after, 'labelled'),
        cell(rule.before, rule.after, 'agree'),
        cell(rule.before, rule.after, 'disagree'),
        cell(rule.before, rule.after, 'false_pass'),
      ]
      return `| ${cells.join(' | ')} |`
    }),
    '',
    `Added: ${report.added.length > 0 ? names(report.added) : 'none'}. Removed: ${report.removed.length > 0 ? names(report.removed) : 'none'}.`,
    '',
    report.changed.length === 0
      ? 'No labelled PR would be reviewed otherwise.'
      : `Would be reviewed otherwise: ${report.changed
          .map((change) => `${pr(change.pr)} (${OUTCOME_WORDS[change.before]} → ${OUTCOME_WORDS[change.after]})`)
          .join(', ')}.`,
  ]
  return lines.join('\n')
}

/** The one line a report that didn't run shows instead, saying why. */
export function renderReportSkipped(reason: string): string {
  return `${REPORT_HEADING}: skipped, ${escapeTableCell(reason)}`
}
