/**
 * The report on a PR that changes the rules or the examples
 * (docs/behaviour.md, "The rules-change report"): which PRs it is scored on,
 * which questions need asking, and the default branch's version against the
 * PR's, per rule and per PR. Pure: the controller reads the files, asks the
 * classifier and hands the answers in. The verdict never depends on it.
 */

import { fileSections } from '../diff/diff.ts'
import { applyLabels, EXAMPLES_JSON_PATH, EXAMPLES_YML_PATH } from '../repo-files/examples-file.ts'
import { RULES_JSON_PATH, RULES_YML_PATH } from '../repo-files/rules-file.ts'
import { outcomeAt, type ScoredAnswer, scoreExamples } from '../try-out/reliability.ts'
import type { Classification, Example, Overall } from '../wire/types.ts'

/** How many labelled PRs the report runs: the newest, by number. */
export const REPORT_PRS_MAX = 10

/** The paths a unified diff changes: both sides of every file's `diff --git` line and its `---`/`+++` lines. */
export function changedPaths(diff: string): Set<string> {
  const paths = new Set<string>()
  for (const section of fileSections(diff)) {
    const header = diff.slice(section.start, section.end).split('\n')
    for (const line of header) {
      if (line.startsWith('@@')) break
      const named = /^(?:diff --git a\/(.+) b\/(.+)|--- a\/(.+)|\+\+\+ b\/(.+)|rename (?:from|to) (.+))$/.exec(
        line.replace(/\r$/, ''),
      )
      for (const path of named?.slice(1) ?? []) if (path !== undefined) paths.add(path)
    }
  }
  return paths
}

/** Whether a PR's diff changes the rules file, the examples file, either format of each. */
export function touchedFiles(diff: string): { rules: boolean; examples: boolean } {
  const paths = changedPaths(diff)
  return {
    rules: paths.has(RULES_YML_PATH) || paths.has(RULES_JSON_PATH),
    examples: paths.has(EXAMPLES_YML_PATH) || paths.has(EXAMPLES_JSON_PATH),
  }
}

/** One version of the rules with the labels it is judged by. */
export type ReportSide = { rules: readonly Classification[]; examples: readonly Example[] }

/** The newest {@link REPORT_PRS_MAX} PRs either side has a label for one of its own rules on, newest first. */
export function reportPrs(before: ReportSide, after: ReportSide): number[] {
  const labelled = new Set([
    ...applyLabels(before.examples, before.rules).prs,
    ...applyLabels(after.examples, after.rules).prs,
  ])
  return [...labelled].sort((a, b) => b - a).slice(0, REPORT_PRS_MAX)
}

/**
 * What the model is asked: a rule's name and description, and the files it
 * is about (its `paths`, which decide whether it is asked at all); its
 * threshold, polarity and mode only judge the answer.
 */
export function questionKey(rule: Pick<Classification, 'name' | 'description' | 'paths'>): string {
  return JSON.stringify([rule.name, rule.description.trim(), ...(rule.paths === undefined ? [] : [rule.paths])])
}

/** The PR's rules whose question the default branch's rules don't ask already: the second run per PR. */
export function newQuestions(before: readonly Classification[], after: readonly Classification[]): Classification[] {
  const asked = new Set(before.map(questionKey))
  return after.filter((rule) => !asked.has(questionKey(rule)))
}

/** One labelled PR's answers, by {@link questionKey}; a question without an entry got no answer. */
export type ReportAnswers = { pr: number; answers: ReadonlyMap<string, ScoredAnswer> }

export type SideCounts = { labelled: number; agree: number; disagree: number; false_pass: number }

export type RulesChangeReport = {
  prs: number[]
  /** The default branch's rules in order, then the ones the PR adds; `null` for the side without it. */
  rules: { name: string; before: SideCounts | null; after: SideCounts | null }[]
  added: string[]
  removed: string[]
  /** The PRs whose review would come out otherwise, newest first. */
  changed: { pr: number; before: Overall; after: Overall }[]
}

function sideCounts(
  side: ReportSide,
  prs: readonly number[],
  answers: readonly ReportAnswers[],
): Map<string, SideCounts> {
  const kept = new Set(prs)
  const applied = applyLabels(
    side.examples.filter((example) => kept.has(example.pr)),
    side.rules,
  )
  const runs = answers.map(({ pr, answers: byKey }) => ({
    pr,
    runs: [side.rules.map((rule) => ({ name: rule.name, ...(byKey.get(questionKey(rule)) ?? noAnswer) }))],
  }))
  const score = scoreExamples(side.rules, applied, runs, 1)
  return new Map(
    score.classifications.map(({ name, labelled, agree, disagree, false_pass }) => [
      name,
      { labelled, agree, disagree, false_pass },
    ]),
  )
}

const noAnswer = { verdict: null, certainty: null }

/** How the review of a PR with these answers would come out under `rules`. */
export function outcomeUnder(rules: readonly Classification[], answers: ReadonlyMap<string, ScoredAnswer>): Overall {
  if (rules.length === 0) return 'no-verdict'
  let fails = false
  for (const rule of rules) {
    const outcome = outcomeAt(rule.polarity, answers.get(questionKey(rule)) ?? null, rule.threshold)
    if (outcome === null) return 'no-verdict'
    if (outcome === 'fail') fails = true
  }
  return fails ? 'request-changes' : 'approve'
}

export function compareRules(
  before: ReportSide,
  after: ReportSide,
  answers: readonly ReportAnswers[],
): RulesChangeReport {
  const prs = answers.map(({ pr }) => pr)
  const beforeCounts = sideCounts(before, prs, answers)
  const afterCounts = sideCounts(after, prs, answers)
  const beforeNames = new Set(before.rules.map((rule) => rule.name))
  const afterNames = new Set(after.rules.map((rule) => rule.name))
  const names = [...beforeNames, ...[...afterNames].filter((name) => !beforeNames.has(name))]
  return {
    prs,
    rules: names.map((name) => ({
      name,
      before: beforeCounts.get(name) ?? null,
      after: afterCounts.get(name) ?? null,
    })),
    added: [...afterNames].filter((name) => !beforeNames.has(name)),
    removed: [...beforeNames].filter((name) => !afterNames.has(name)),
    changed: answers.flatMap(({ pr, answers: byKey }) => {
      const was = outcomeUnder(before.rules, byKey)
      const would = outcomeUnder(after.rules, byKey)
      return was === would ? [] : [{ pr, before: was, after: would }]
    }),
  }
}
