/**
 * The labels an author sets on a replay's cells (docs/behaviour.md,
 * "Try-out"): at most one per repo, PR and rule name, kept with the draft,
 * and what "open a PR" sends of them as the open-pr POST's `labels` and
 * says they change in the examples file. No DOM in here, so it is tested
 * outside a browser.
 */
import { EXAMPLE_LABELS_MAX, EXAMPLES_MAX } from '../core/repo-files/examples-check.ts'
import type { StoredLabel } from '../core/wire/page-schemas.ts'
import type { Example, Verdict } from '../core/wire/types.ts'

/** core/repo-files/examples-file.ts's EXAMPLES_YML_PATH (test/ui/labels.test.ts checks they agree): bundling it brings the YAML parser. */
export const NEW_EXAMPLES_PATH = '.hyperhive/review-classifier.examples.yml'

export type PageLabel = StoredLabel

/** Which cell a label is on: a rule, by name, on a PR of a repo. */
export type LabelCell = Pick<PageLabel, 'repo' | 'pr' | 'name'>

/** One PR's labels as the open-pr POST takes them. */
export type PrLabels = { pr: number; expect: Record<string, Verdict> }

/** The words of a label in the page: short, so a grid's cell stays narrow. */
export const LABEL_WORDS: Record<Verdict, string> = {
  match: 'match',
  'no-match': 'no match',
  'not-applicable': 'n.a.',
}

function sameCell(a: LabelCell, b: LabelCell): boolean {
  return a.repo === b.repo && a.pr === b.pr && a.name === b.name
}

/** The page's label on `cell`, or null. */
export function labelAt(labels: readonly PageLabel[], cell: LabelCell): Verdict | null {
  return labels.find((label) => sameCell(label, cell))?.verdict ?? null
}

/** The labels with `cell` set to `verdict` (where it stood, or last), or cleared with null. */
export function withLabel(labels: readonly PageLabel[], cell: LabelCell, verdict: Verdict | null): PageLabel[] {
  const { repo, pr, name } = cell
  const at = labels.findIndex((label) => sameCell(label, cell))
  if (verdict === null) return labels.filter((_, index) => index !== at)
  if (at < 0) return [...labels, { repo, pr, name, verdict }]
  return labels.map((label, index) => (index === at ? { repo, pr, name, verdict } : label))
}

/** The examples file's label of rule `name` on `pr`, or null. Own keys only: "__proto__" is a name like any. */
export function fileLabelAt(examples: readonly Example[], pr: number, name: string): Verdict | null {
  const entry = examples.find((example) => example.pr === pr)
  if (entry === undefined || !Object.hasOwn(entry.expect, name)) return null
  return entry.expect[name] ?? null
}

export type LabelsToSend = {
  /** The POST's `labels`: by PR number, lowest first, each PR's names in the order they were labelled. */
  labels: PrLabels[]
  /** The labels on `repo` naming a rule neither the draft nor the repo has: not sent. */
  leftOut: PageLabel[]
}

/** What "open a PR" on `repo` sends of the page's labels: those on `repo` for a name in `names` (the draft's and the repo's rules). */
export function labelsToSend(labels: readonly PageLabel[], repo: string, names: readonly string[]): LabelsToSend {
  const known = new Set(names)
  const mine = labels.filter((label) => label.repo === repo)
  const sent = mine.filter((label) => known.has(label.name))
  const prs = [...new Set(sent.map((label) => label.pr))].sort((a, b) => a - b)
  return {
    labels: prs.map((pr) => ({
      pr,
      // fromEntries makes own keys, so a rule named "__proto__" stays a label.
      expect: Object.fromEntries(sent.filter((label) => label.pr === pr).map((label) => [label.name, label.verdict])),
    })),
    leftOut: mine.filter((label) => !known.has(label.name)),
  }
}

/** One label as the examples file takes it: the verdict, and the file's before (null: none). */
export type LabelChange = { name: string; verdict: Verdict; was: Verdict | null }

/** One PR of the POST against the examples file: whether it is a new entry, and each label against the file's. */
export type PrLabelChange = { pr: number; added: boolean; labels: LabelChange[] }

/** What the POST's `labels` do to the file holding `examples`, merged by PR number as the controller merges them. */
export function labelChanges(labels: readonly PrLabels[], examples: readonly Example[]): PrLabelChange[] {
  return labels.map(({ pr, expect }) => ({
    pr,
    added: !examples.some((example) => example.pr === pr),
    labels: Object.entries(expect).map(([name, verdict]) => ({ name, verdict, was: fileLabelAt(examples, pr, name) })),
  }))
}

/** Whether any label changes the file. */
export function changesFile(changes: readonly PrLabelChange[]): boolean {
  return changes.some((change) => change.labels.some((label) => label.was !== label.verdict))
}

/**
 * Why the file merged with `changes` would break the examples file's bounds, in the file's words,
 * or null. The labels themselves can break nothing else: their names are rules' names, checked as
 * such, and their verdicts are picked from the three.
 */
export function labelsProblem(changes: readonly PrLabelChange[], examples: readonly Example[]): string | null {
  const problems: string[] = []
  const entries = examples.length + changes.filter((change) => change.added).length
  if (entries > EXAMPLES_MAX) {
    problems.push(`the examples file would have ${entries} examples; at most ${EXAMPLES_MAX} are allowed`)
  }
  for (const change of changes) {
    const before = examples.find((example) => example.pr === change.pr)
    const names = new Set([...Object.keys(before?.expect ?? {}), ...change.labels.map((label) => label.name)])
    if (names.size > EXAMPLE_LABELS_MAX) {
      problems.push(
        `pr ${change.pr}: expect would have ${names.size} labels; at most ${EXAMPLE_LABELS_MAX} are allowed`,
      )
    }
  }
  return problems.length === 0 ? null : problems.join('; ')
}
