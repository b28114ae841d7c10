/**
 * What `check --examples` prints: one line per rule with its score against
 * the labelled PRs (docs/behaviour.md, "Labelled examples and
 * reliability"), the answers that disagree, the labels left out and the PRs
 * that got no answer, then one closing line. Pure: the command writes it.
 */

import { describeUnknownLabel } from '../repo-files/examples-check.ts'
import type { ClassificationScore, ReliabilityScore } from '../wire/types.ts'
import { displayWidth, plainLabel, type TerminalLayout, wrapToWidth } from './check-report.ts'
import { flattenCellText, VERDICT_LABEL } from './review-body.ts'

/** What a scoring run comes to: the exit code's three cases. */
export type ExamplesOutcome = 'agree' | 'disagree' | 'no-verdict'

/** A labelled PR whose answers are missing, and why (no ref on origin, a failed run, ...). */
export type UnansweredPr = { pr: number; reason: string }

const HEADER = [
  'rule',
  'labelled',
  'agree',
  'disagree',
  'abstain',
  'false passes',
  'flips',
  'margin',
  'suggested threshold',
]
const GAP = '  '

function signed(value: number): string {
  return value > 0 ? `+${value}` : String(value)
}

function suggestion(card: ClassificationScore): string {
  if (card.suggested_threshold === null) return card.answers === card.abstain ? '— (nothing counted)' : 'none'
  if (card.suggested_threshold === card.threshold) return `${card.threshold} (its own)`
  return `${card.suggested_threshold} (now ${card.threshold})`
}

function cells(card: ClassificationScore): string[] {
  return [
    plainLabel(card.name, 40),
    String(card.labelled),
    String(card.agree),
    String(card.disagree),
    String(card.abstain),
    String(card.false_pass),
    String(card.flips),
    card.margin === null ? '—' : signed(card.margin),
    suggestion(card),
  ]
}

function table(rows: readonly string[][]): string[] {
  const widths = HEADER.map((title, i) => Math.max(displayWidth(title), ...rows.map((r) => displayWidth(r[i] ?? ''))))
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => {
        const pad = ' '.repeat(Math.max(0, (widths[i] ?? 0) - displayWidth(cell)))
        // The name and the suggestion read left to right; the counts line up on the right.
        return i === 0 || i === HEADER.length - 1 ? cell + pad : pad + cell
      })
      .join(GAP)
      .trimEnd()
  return [line(HEADER), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)]
}

const KIND_TEXT = { 'false-pass': 'a false pass', 'false-block': 'a false block' } as const

function disagreementLines(card: ClassificationScore): string[] {
  return card.disagreements.map(({ pr, expected, verdict, certainty, kind }) => {
    const what = kind === null ? '' : `: ${KIND_TEXT[kind]}`
    return `${JSON.stringify(plainLabel(card.name, 40))} on PR #${pr}: labelled ${VERDICT_LABEL[expected]}, answered ${VERDICT_LABEL[verdict]} at certainty ${certainty}${what}`
  })
}

/** Exit 1 when an answer disagrees; else 2 when an answer is missing; else 0. */
export function examplesOutcome(score: ReliabilityScore, unanswered: readonly UnansweredPr[]): ExamplesOutcome {
  if (score.classifications.some((card) => card.disagree > 0)) return 'disagree'
  return unanswered.length > 0 ? 'no-verdict' : 'agree'
}

function closing(score: ReliabilityScore, outcome: ExamplesOutcome): string {
  const disagree = score.classifications.reduce((sum, card) => sum + card.disagree, 0)
  const falsePass = score.classifications.reduce((sum, card) => sum + card.false_pass, 0)
  if (outcome === 'disagree') {
    const passes = falsePass === 0 ? '' : ` (${falsePass} of them ${falsePass === 1 ? 'a false pass' : 'false passes'})`
    return `${disagree} ${disagree === 1 ? 'answer disagrees' : 'answers disagree'} with ${disagree === 1 ? 'its label' : 'their labels'}${passes}.`
  }
  if (outcome === 'no-verdict') return 'No answer disagrees, but not every labelled PR was answered: no verdict.'
  return 'No answer disagrees with its label.'
}

/** The whole report; ends with a newline. */
export function renderExamplesReport(
  score: ReliabilityScore,
  unanswered: readonly UnansweredPr[],
  layout: TerminalLayout,
): string {
  const outcome = examplesOutcome(score, unanswered)
  const wrap = (text: string): string[] => (layout.width === null ? [text] : wrapToWidth(text, layout.width))
  const parts = [...table(score.classifications.map(cells))]
  const section = (title: string, lines: readonly string[]): void => {
    if (lines.length === 0) return
    parts.push('', title, ...lines.flatMap((line) => wrap(`  ${flattenCellText(line)}`)))
  }
  section('Disagreements:', score.classifications.flatMap(disagreementLines))
  section(
    'No answer:',
    unanswered.map(({ pr, reason }) => `PR #${pr}: ${reason}`),
  )
  section('Labels left out:', score.unknown_labels.map(describeUnknownLabel))
  parts.push('', ...wrap(closing(score, outcome)))
  return `${parts.join('\n')}\n`
}
