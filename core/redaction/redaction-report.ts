/**
 * How a run's redaction is told (docs/behaviour.md, "Redaction"): the
 * summary the classifier's reply carries, and the lines the review, the
 * try-out and `check` show from it. Counts, kinds and places only: a value
 * is never kept, so none can be shown.
 */

import { plural } from '../base/text.ts'
import { REDACTION_PLACES_MAX } from '../wire/page-schemas.ts'
import type { RedactionSummary } from '../wire/types.ts'
import type { Redacted } from './redact.ts'

/** The reply's summary of a shared context's redaction: the first places listed, all of them counted. */
export function redactionSummary(context: Pick<Redacted, 'findings' | 'redacted'>): RedactionSummary {
  return {
    redacted: context.redacted,
    places: context.findings.length,
    findings: context.findings.slice(0, REDACTION_PLACES_MAX),
  }
}

type Finding = RedactionSummary['findings'][number]

/** Distinct secrets per kind, in the order the kinds are first met. */
function kindCounts(findings: readonly Finding[]): string {
  const byKind = new Map<string, Set<number>>()
  for (const { kind, n } of findings) {
    const numbers = byKind.get(kind) ?? new Set<number>()
    numbers.add(n)
    byKind.set(kind, numbers)
  }
  return [...byKind].map(([kind, numbers]) => `${numbers.size} ${kind}`).join(', ')
}

/** Where one finding was, as a reader finds it: the title, a commit, or a file and its line. */
export function placeText(finding: Finding): string {
  const label = `${finding.kind} #${finding.n}`
  switch (finding.part) {
    case 'title':
      return `${label}: the title`
    case 'commit':
      return `${label}: the message of commit ${finding.commit}`
    case 'diff': {
      if (finding.path === null) return `${label}: the diff, before its first file`
      if (finding.line === null) return `${label}: ${finding.path}, its file header`
      return `${label}: ${finding.path}, line ${finding.line}${finding.side === 'old' ? ' (a removed line)' : ''}`
    }
  }
}

/**
 * The sentence that heads a redaction's lines, or null when nothing was
 * redacted. The kinds are counted over the listed places, so with more
 * places than are listed they may not add up to the total.
 */
export function redactionHeadline(summary: RedactionSummary): string | null {
  if (summary.redacted === 0) return null
  const kinds = kindCounts(summary.findings)
  const listed =
    summary.findings.length < summary.places
      ? `; of the first ${summary.findings.length} places: ${kinds}`
      : `: ${kinds}`
  return `${plural(summary.redacted, 'secret')} redacted before the pull request went to the model, each replaced by a placeholder${listed}. No value is shown here.`
}

/** One line per listed place, and one for the places past the list. */
export function redactionPlaceLines(summary: RedactionSummary): string[] {
  const lines = summary.findings.map(placeText)
  const more = summary.places - summary.findings.length
  if (more > 0) lines.push(`and ${plural(more, 'more place')}`)
  return lines
}
