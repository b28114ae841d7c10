/**
 * How a classification's answers on labelled PRs compare with their labels
 * (docs/behaviour.md, "Labelled examples and reliability"): the score a
 * try-out against the examples file shows per rule, and its threshold
 * curve. Pure and small, so the try-out page bundles it and recomputes a
 * card at a what-if threshold from the answers it holds (ui/).
 *
 * An answer is judged at a threshold as the review would count it
 * (aggregate.ts): applicable and at or over the threshold, or not counted.
 * - **agree**: counted, and its verdict is the label;
 * - **disagree**: counted, and its verdict isn't the label. A PR labelled
 *   `not-applicable` is one the rule should have no say on, so every counted
 *   answer on it disagrees;
 * - **abstain**: not counted: no answer (the run failed, the row has an
 *   error), a `not-applicable` answer at any certainty (the review never
 *   counts one), or a verdict below the threshold. So a `not-applicable`
 *   label is never agreed with: it can only be kept (abstain) or broken.
 *
 * A disagreement that fails the rule is a **false block**; one that passes
 * it on a PR labelled with the rule's failing verdict is a **false pass**,
 * the kind that lets through what the rule exists to stop. A counted pass
 * on a PR labelled `not-applicable` is a disagreement of neither kind: the
 * review comes out the same whether the rule passes or doesn't count.
 */

import type { AppliedLabels, LabelledPr } from '../repo-files/examples-check.ts'
import { FAILING_VERDICT, isCounted } from '../run/aggregate.ts'
import type {
  Classification,
  ClassificationScore,
  Disagreement,
  Polarity,
  RecordedRow,
  ReliabilityScore,
  ThresholdPoint,
  Verdict,
} from '../wire/types.ts'

/** An answer as the score reads it: a recorded row's verdict and certainty, or null where no answer came. */
export type ScoredAnswer = Pick<RecordedRow, 'verdict' | 'certainty'> | null

/** One labelled PR of one classification: the label, and the answers asked, in the order asked. */
export type LabelledAnswers = { pr: number; expected: Verdict; answers: readonly ScoredAnswer[] }

/** What an answer does to the rule in a review: pass it, fail it, or not count. */
export type Outcome = 'pass' | 'fail' | 'uncounted'

export type Judgement =
  | { kind: 'agree' }
  | { kind: 'disagree'; disagreement: Disagreement['kind'] }
  | { kind: 'abstain' }

/** The rule the score is about: its name, and what decides its outcomes. */
export type ScoredRule = Pick<Classification, 'name' | 'polarity' | 'threshold'>

export const THRESHOLDS = Array.from({ length: 101 }, (_, threshold) => threshold)

/**
 * An answer's verdict and certainty, or null when it has none (no answer, an
 * error row). A rule out of the PR's scope was not asked, and its row is
 * not-applicable with no certainty: that is its answer, never counted.
 */
function answered(answer: ScoredAnswer): { verdict: Verdict; certainty: number } | null {
  if (answer?.verdict === 'not-applicable' && answer.certainty === null)
    return { verdict: 'not-applicable', certainty: 0 }
  if (answer === null || answer.verdict === null || answer.certainty === null) return null
  return { verdict: answer.verdict, certainty: answer.certainty }
}

/** What an answer does to a rule of `polarity` at `threshold`; null for no answer. */
export function outcomeAt(polarity: Polarity, answer: ScoredAnswer, threshold: number): Outcome | null {
  const given = answered(answer)
  if (given === null) return null
  if (!isCounted(given.verdict, given.certainty, threshold)) return 'uncounted'
  return given.verdict === FAILING_VERDICT[polarity] ? 'fail' : 'pass'
}

/** One answer against its label, at `threshold`. */
export function judgeAnswer(polarity: Polarity, expected: Verdict, answer: ScoredAnswer, threshold: number): Judgement {
  const outcome = outcomeAt(polarity, answer, threshold)
  if (outcome === null || outcome === 'uncounted') return { kind: 'abstain' }
  if (answer?.verdict === expected) return { kind: 'agree' }
  if (outcome === 'fail') return { kind: 'disagree', disagreement: 'false-block' }
  return { kind: 'disagree', disagreement: expected === FAILING_VERDICT[polarity] ? 'false-pass' : null }
}

type Tally = ThresholdPoint & { answers: number; false_block: number }

function tally(polarity: Polarity, labelled: readonly LabelledAnswers[], threshold: number): Tally {
  const counts: Tally = { threshold, answers: 0, agree: 0, disagree: 0, abstain: 0, false_pass: 0, false_block: 0 }
  for (const { expected, answers } of labelled) {
    for (const answer of answers) {
      counts.answers += 1
      const judged = judgeAnswer(polarity, expected, answer, threshold)
      counts[judged.kind] += 1
      if (judged.kind === 'disagree' && judged.disagreement === 'false-pass') counts.false_pass += 1
      if (judged.kind === 'disagree' && judged.disagreement === 'false-block') counts.false_block += 1
    }
  }
  return counts
}

/** The same answers judged at every threshold from 0 to 100. */
export function thresholdCurve(polarity: Polarity, labelled: readonly LabelledAnswers[]): ThresholdPoint[] {
  return THRESHOLDS.map((threshold) => {
    const { agree, disagree, abstain, false_pass } = tally(polarity, labelled, threshold)
    return { threshold, agree, disagree, abstain, false_pass }
  })
}

/**
 * The threshold with no false pass that agrees most; among those, the one
 * that disagrees least, then the nearest to `own`, then the higher. Since a
 * higher threshold only ever counts fewer answers, this is the lowest
 * threshold free of false passes, moved up through thresholds that judge
 * the answers alike towards `own`. Null when every threshold leaves a false
 * pass (one came at certainty 100), or when nothing was answered.
 */
export function suggestThreshold(
  curve: readonly ThresholdPoint[],
  own: number,
  labelled: readonly LabelledAnswers[],
): number | null {
  if (!labelled.some(({ answers }) => answers.some((answer) => answered(answer) !== null))) return null
  let best: ThresholdPoint | null = null
  for (const point of curve) {
    if (point.false_pass > 0) continue
    if (best === null || better(point, best, own)) best = point
  }
  return best?.threshold ?? null
}

function better(point: ThresholdPoint, than: ThresholdPoint, own: number): boolean {
  if (point.agree !== than.agree) return point.agree > than.agree
  if (point.disagree !== than.disagree) return point.disagree < than.disagree
  const distance = Math.abs(point.threshold - own)
  const thanDistance = Math.abs(than.threshold - own)
  if (distance !== thanDistance) return distance < thanDistance
  return point.threshold > than.threshold
}

/**
 * One classification's card: its answers on its labelled PRs judged at
 * `threshold` (its own unless a what-if one is given, a whole number
 * 0–100). The curve and the suggestion don't depend on `threshold`.
 */
export function scoreClassification(
  rule: ScoredRule,
  labelled: readonly LabelledAnswers[],
  threshold: number = rule.threshold,
): ClassificationScore {
  const counts = tally(rule.polarity, labelled, threshold)
  const disagreements: Disagreement[] = []
  let flips = 0
  let margin: number | null = null
  for (const { pr, expected, answers } of labelled) {
    const outcomes = new Set<Outcome>()
    for (const answer of answers) {
      const outcome = outcomeAt(rule.polarity, answer, threshold)
      if (outcome !== null) outcomes.add(outcome)
      const given = answered(answer)
      if (given === null || outcome === null || outcome === 'uncounted') continue
      margin = Math.min(margin ?? Number.POSITIVE_INFINITY, given.certainty - threshold)
      const judged = judgeAnswer(rule.polarity, expected, answer, threshold)
      if (judged.kind === 'disagree') {
        disagreements.push({
          pr,
          expected,
          verdict: given.verdict,
          certainty: given.certainty,
          kind: judged.disagreement,
        })
      }
    }
    if (outcomes.size > 1) flips += 1
  }
  const curve = thresholdCurve(rule.polarity, labelled)
  return {
    name: rule.name,
    polarity: rule.polarity,
    threshold,
    labelled: labelled.length,
    answers: counts.answers,
    agree: counts.agree,
    disagree: counts.disagree,
    abstain: counts.abstain,
    false_pass: counts.false_pass,
    false_block: counts.false_block,
    flips,
    margin,
    disagreements,
    threshold_curve: curve,
    suggested_threshold: suggestThreshold(curve, rule.threshold, labelled),
  }
}

/** The rows one run of a labelled PR gave (null: the run gave none, it failed), as the score reads them. */
export type ScoredRun = readonly Pick<RecordedRow, 'name' | 'verdict' | 'certainty'>[] | null

/** A labelled PR's runs, in the order asked. */
export type PrRuns = { pr: number; runs: readonly ScoredRun[] }

/**
 * A classification's labelled PRs with their answers, each PR given exactly
 * `repeat` answers: a run missing, failed, or without a row of the name
 * counts as no answer (abstain), and runs past `repeat` are left out.
 */
export function labelledAnswers(
  name: string,
  labelled: readonly LabelledPr[],
  runs: readonly PrRuns[],
  repeat: number,
): LabelledAnswers[] {
  const byPr = new Map(runs.map((entry) => [entry.pr, entry.runs]))
  return labelled.map(({ pr, expected }) => {
    const asked = byPr.get(pr) ?? []
    const answers = Array.from({ length: repeat }, (_, index): ScoredAnswer => {
      const row = asked[index]?.find((candidate) => candidate.name === name)
      return row === undefined ? null : { verdict: row.verdict, certainty: row.certainty }
    })
    return { pr, expected, answers }
  })
}

/** The score of a try-out against the labelled examples: one card per classification, in the order given. */
export function scoreExamples(
  classifications: readonly ScoredRule[],
  applied: AppliedLabels,
  runs: readonly PrRuns[],
  repeat: number,
): ReliabilityScore {
  const labelsOf = new Map(applied.classifications.map((entry) => [entry.name, entry.labelled]))
  return {
    repeat,
    classifications: classifications.map((rule) =>
      scoreClassification(rule, labelledAnswers(rule.name, labelsOf.get(rule.name) ?? [], runs, repeat)),
    ),
    unknown_labels: applied.unknown.map(({ pr, name }) => ({ pr, name })),
  }
}
