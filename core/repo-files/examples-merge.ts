/**
 * Merging labels into a repo's examples file by PR number, for the try-out
 * page's "open a PR" (docs/behaviour.md, "Labelled examples and
 * reliability"): a PR already in the file gets its `expect` keys set (a
 * name already labelled is replaced, a new one added), a new PR goes at the
 * end, every other entry stays. A YAML file is edited through the `yaml`
 * library's Document, so comments are kept; a JSON file has none to keep
 * and is written out again. The result goes through the file's own checks.
 */
import { isMap, isScalar, isSeq, parseDocument } from 'yaml'
import { err, ok, type Result } from '../base/result.ts'
import type { Example, Verdict } from '../wire/types.ts'
import { EXAMPLES_YML_PATH, type ExamplesProblem, parseExamplesFile, validateExamples } from './examples-file.ts'
import { RULES_YAML_OPTIONS } from './rules-file.ts'
import { formatOf } from './source-file.ts'
import { formatSourceProblems } from './source-tree.ts'

export type ExamplesFileText = { path: string; text: string }

/** One PR's labels as the page sends them. */
export type PrLabels = { pr: number; expect: Record<string, Verdict> }

export type ExamplesMergeProblem =
  /** The labels break the file's rules on their own (a bad verdict, a PR twice, ...). */
  | { kind: 'labels-invalid'; problems: ExamplesProblem[] }
  /** The examples file on the default branch doesn't load. */
  | { kind: 'source-invalid'; path: string; problems: ExamplesProblem[] }
  /** The merged file would break the file's rules (more than 50 PRs, more than 10 labels on one). */
  | { kind: 'result-invalid'; path: string; problems: ExamplesProblem[] }

const LABELS_NAME = 'labels'

const NEW_FILE_HEADER = [
  '# Labelled PRs for the review classifier: for each PR, the verdict each',
  '# named classification should give on it (match, no-match, not-applicable).',
]

export function formatExamplesMergeProblem(problem: ExamplesMergeProblem): string {
  switch (problem.kind) {
    case 'labels-invalid':
      return formatSourceProblems(problem.problems)
    case 'source-invalid':
      return `${problem.path} on the default branch doesn't load:\n${formatSourceProblems(problem.problems)}`
    case 'result-invalid':
      return `the merged ${problem.path} would break the examples file's rules:\n${formatSourceProblems(problem.problems)}`
  }
}

/** Checks a body's `labels` with the file's rules and words (`labels[0] (pr 12): ...`). */
export function validateLabels(value: unknown): Result<PrLabels[], ExamplesProblem[]> {
  const checked = validateExamples(value, LABELS_NAME)
  if (!checked.ok) return checked
  return ok(checked.value.map(({ pr, expect }) => ({ pr, expect })))
}

/** The examples as they are once `labels` are merged in, by PR number. */
export function mergedExamples(existing: readonly Example[], labels: readonly PrLabels[]): Example[] {
  const merged = existing.map((example) => ({ ...example }))
  for (const { pr, expect } of labels) {
    const entry = merged.find((example) => example.pr === pr)
    if (entry === undefined) merged.push({ pr, expect: mergeExpect({}, expect) })
    else entry.expect = mergeExpect(entry.expect, expect)
  }
  return merged
}

/** A name already labelled keeps its place with the new verdict; a new one goes last. Own keys only, so "__proto__" stays a name. */
function mergeExpect(current: Record<string, Verdict>, changes: Record<string, Verdict>): Record<string, Verdict> {
  const entries = Object.entries(current).map(([name, verdict]): [string, Verdict] => [
    name,
    Object.hasOwn(changes, name) ? (changes[name] ?? verdict) : verdict,
  ])
  for (const [name, verdict] of Object.entries(changes))
    if (!Object.hasOwn(current, name)) entries.push([name, verdict])
  return Object.fromEntries(entries)
}

/**
 * The examples file with `labels` merged in; `null` (no examples file)
 * makes a new YAML file. The written text must read back, through the
 * examples file's checks, as exactly the merged examples.
 */
export function mergeLabels(
  file: ExamplesFileText | null,
  labels: readonly PrLabels[],
): Result<ExamplesFileText, ExamplesMergeProblem> {
  const checked = validateLabels(labels)
  if (!checked.ok) return err({ kind: 'labels-invalid', problems: checked.error })

  if (file === null) {
    const merged = mergedExamples([], labels)
    const doc = parseDocument('examples: []\n', RULES_YAML_OPTIONS)
    const list = isMap(doc.contents) ? doc.contents.get('examples', true) : undefined
    if (isSeq(list)) {
      list.flow = false
      for (const example of merged) list.items.push(doc.createNode(example))
    }
    const text = `${NEW_FILE_HEADER.join('\n')}\n${doc.toString({ lineWidth: 80 })}`
    return verified(EXAMPLES_YML_PATH, text, merged)
  }

  const source = parseExamplesFile(file.path, file.text)
  if (!source.ok) return err({ kind: 'source-invalid', path: file.path, problems: source.error })
  const merged = mergedExamples(source.value, labels)
  if (formatOf(file.path) === 'json') {
    return verified(file.path, `${JSON.stringify({ examples: merged }, null, 2)}\n`, merged)
  }
  return verified(file.path, mergeYaml(file.text, labels), merged)
}

/** Sets each label in the parsed document, so every comment and untouched entry stays. */
function mergeYaml(text: string, labels: readonly PrLabels[]): string {
  const doc = parseDocument(text, RULES_YAML_OPTIONS)
  const list = isMap(doc.contents) ? doc.contents.get('examples', true) : undefined
  // The source passed parseExamplesFile, so the list exists.
  if (!isSeq(list)) return doc.toString({ lineWidth: 80 })
  for (const { pr, expect } of labels) {
    const entry = list.items.find((item) => isMap(item) && isScalar(item.get('pr', true)) && item.get('pr') === pr)
    const labelsNode = isMap(entry) ? entry.get('expect', true) : undefined
    if (isMap(labelsNode)) {
      for (const [name, verdict] of Object.entries(expect)) labelsNode.set(name, verdict)
    } else {
      list.items.push(doc.createNode({ pr, expect }))
    }
  }
  return doc.toString({ lineWidth: 80 })
}

function verified(
  path: string,
  text: string,
  expected: readonly Example[],
): Result<ExamplesFileText, ExamplesMergeProblem> {
  const reread = parseExamplesFile(path, text)
  if (!reread.ok) return err({ kind: 'result-invalid', path, problems: reread.error })
  if (JSON.stringify(reread.value) !== JSON.stringify(expected)) {
    return err({
      kind: 'result-invalid',
      path,
      problems: [{ file: path, at: null, detail: 'the merged file does not read back as the merged examples' }],
    })
  }
  return ok({ path, text })
}
