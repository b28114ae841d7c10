/**
 * Merging classifications into a repo's rules file by name, for the try-out
 * page's "open a PR". A YAML file is edited as text, so every entry the
 * merge leaves alone keeps its exact bytes, comments included; a JSON file
 * has no comments to keep and is written out again.
 */
import { Document, isMap, isScalar, isSeq, parseDocument, visit } from 'yaml'
import { err, ok, type Result } from '../base/result.ts'
import type { Classification } from '../wire/types.ts'
import { sameClassification } from './rules-check.ts'
import {
  CLASSIFICATION_KEYS,
  formatOf,
  formatRulesProblems,
  parseRulesFile,
  RULES_YAML_OPTIONS,
  RULES_YML_PATH,
  type RulesProblem,
  validateClassifications,
} from './rules-file.ts'

export type RulesFileText = { path: string; text: string }

export type MergeProblem =
  /** The file on the default branch doesn't load, so there is nothing sound to merge into. */
  | { kind: 'source-invalid'; path: string; problems: RulesProblem[] }
  /** The classifications to add break a rule on their own (duplicate names, 0 or more than 10, ...). */
  | { kind: 'additions-invalid'; problems: RulesProblem[] }
  /** Every classification to add is already in the file, unchanged. */
  | { kind: 'unchanged'; path: string }
  /** The merged file would break a rule, such as more than ten classifications. */
  | { kind: 'result-invalid'; path: string; problems: RulesProblem[] }

type ClassificationKey = (typeof CLASSIFICATION_KEYS)[number]

const ADDITIONS_LABEL = 'the new classifications'

const NEW_FILE_HEADER = [
  '# Rules for the review classifier. Each entry is a yes/no question asked',
  '# about every pull request: name, description, threshold (0-100) and',
  '# polarity (positive: a match is wanted; negative: a match is a violation);',
  '# optionally paths (globs of the files it is about) and mode (advisory: never blocks).',
]

export function formatMergeProblem(problem: MergeProblem): string {
  switch (problem.kind) {
    case 'source-invalid':
      return `${problem.path} on the default branch doesn't load:\n${formatRulesProblems(problem.problems)}`
    case 'additions-invalid':
      return formatRulesProblems(problem.problems)
    case 'unchanged':
      return `${problem.path} already holds every one of these classifications unchanged`
    case 'result-invalid':
      return `the merged ${problem.path} would break the rules:\n${formatRulesProblems(problem.problems)}`
  }
}

/**
 * The rules file with `additions` merged in by name: an addition named like
 * an entry replaces it in place, a new name goes at the end, every other
 * entry stays. `null` (no rules file) makes a new YAML file.
 */
export function mergeClassifications(
  file: RulesFileText | null,
  additions: readonly Classification[],
): Result<RulesFileText, MergeProblem> {
  const checked = validateClassifications(additions, ADDITIONS_LABEL)
  if (!checked.ok) return err({ kind: 'additions-invalid', problems: checked.error })

  if (file === null) return verified(RULES_YML_PATH, renderNewFile(additions), additions)

  const source = parseRulesFile(file.path, file.text)
  if (!source.ok) return err({ kind: 'source-invalid', path: file.path, problems: source.error })

  const existing = source.value
  const replacements = new Map<number, Classification>()
  const appends: Classification[] = []
  for (const addition of additions) {
    const index = existing.findIndex((entry) => entry.name === addition.name)
    const current = existing[index]
    if (current === undefined) appends.push(addition)
    else if (!sameClassification(current, addition)) replacements.set(index, addition)
  }
  if (replacements.size === 0 && appends.length === 0) return err({ kind: 'unchanged', path: file.path })

  const merged = [...existing.map((entry, index) => replacements.get(index) ?? entry), ...appends]
  const text =
    formatOf(file.path) === 'json'
      ? `${JSON.stringify({ classifications: merged.map((entry) => ordered(entry, CLASSIFICATION_KEYS)) }, null, 2)}\n`
      : mergeYamlText(file.text, replacements, appends)
  return verified(file.path, text, merged)
}

/** The written file must load exactly as the merged list, through the same checks as the `rules` route. */
function verified(
  path: string,
  text: string,
  expected: readonly Classification[],
): Result<RulesFileText, MergeProblem> {
  const reread = parseRulesFile(path, text)
  if (!reread.ok) return err({ kind: 'result-invalid', path, problems: reread.error })
  const same =
    reread.value.length === expected.length && reread.value.every((entry, i) => sameClassification(entry, expected[i]))
  if (!same) {
    return err({
      kind: 'result-invalid',
      path,
      problems: [{ file: path, at: null, detail: 'the merged file does not read back as the merged classifications' }],
    })
  }
  return ok({ path, text })
}

/** The entry's keys in `keys`' order, those it leaves out (`paths`, `mode`) skipped. */
function ordered(
  entry: Classification,
  keys: readonly ClassificationKey[],
): Record<string, string | number | string[]> {
  const pairs: [string, string | number | string[]][] = []
  for (const key of keys) {
    const value = entry[key]
    if (value !== undefined) pairs.push([key, value])
  }
  return Object.fromEntries(pairs)
}

/** One entry as block YAML; lines after the first are indented to sit under the first key. */
function renderEntry(entry: Classification, keys: readonly ClassificationKey[], indent: string, eol: string): string {
  const doc = new Document(ordered(entry, keys), RULES_YAML_OPTIONS)
  // A value ending in a newline would print as a keep-chomped block (`|+`),
  // which swallows the blank lines the splice puts after the entry; quoted,
  // it reads back exactly whatever follows it.
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && node.value.endsWith('\n')) node.type = 'QUOTE_DOUBLE'
    },
  })
  const body = doc.toString({ lineWidth: 80 }).replace(/\n$/, '')
  return (
    body
      .split('\n')
      // Empty lines stay empty: inside a block scalar they are blank either way,
      // and indenting them would only add trailing spaces.
      .map((line, index) => (index === 0 || line === '' ? line : indent + line))
      .join(eol)
  )
}

function renderNewFile(entries: readonly Classification[]): string {
  const items = entries.map((entry) => `  - ${renderEntry(entry, CLASSIFICATION_KEYS, '    ', '\n')}\n`)
  return `${NEW_FILE_HEADER.join('\n')}\nclassifications:\n${items.join('')}`
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1
}

/** Where the line after the one holding `end` (an exclusive end offset) starts. */
function nextLineStart(text: string, end: number): number {
  if (end > 0 && text.charAt(end - 1) === '\n') return end
  const newline = text.indexOf('\n', end)
  return newline === -1 ? text.length : newline + 1
}

type Edit = { start: number; end: number; text: string }

/**
 * Splices the changed and new entries into the source text. The parsed
 * document only supplies where each entry starts and ends: re-printing it
 * would re-fold `>-` text and move comments, and the spec wants the entries
 * the merge leaves alone to keep their text.
 */
function mergeYamlText(
  text: string,
  replacements: ReadonlyMap<number, Classification>,
  appends: readonly Classification[],
): string {
  const doc = parseDocument(text, RULES_YAML_OPTIONS)
  const list = isMap(doc.contents) ? doc.contents.get('classifications', true) : undefined
  // The source passed parseRulesFile, so the list exists; a flow list
  // (`classifications: [...]`) has no lines to splice into, and is rare
  // enough to be printed again whole.
  if (!isSeq(list) || list.flow === true || list.range == null) {
    return mergeYamlDocument(doc, replacements, appends)
  }
  const eol = text.includes('\r\n') ? '\r\n' : '\n'
  const edits: Edit[] = []

  for (const [index, entry] of replacements) {
    const item: unknown = list.items[index]
    if (!isMap(item) || item.range == null) return mergeYamlDocument(doc, replacements, appends)
    const [start, end] = item.range
    const written = item.items.flatMap((pair) =>
      CLASSIFICATION_KEYS.filter((key) => isScalar(pair.key) && pair.key.value === key),
    )
    // The entry keeps its own order; a key it gains (`paths`, `mode`) goes after them.
    const keys = [...written, ...CLASSIFICATION_KEYS.filter((key) => !written.includes(key))]
    const indent = ' '.repeat(start - lineStart(text, start))
    const trailingSpace = /\s*$/.exec(text.slice(start, end))?.[0] ?? ''
    edits.push({ start, end, text: renderEntry(entry, keys, indent, eol) + trailingSpace })
  }

  if (appends.length > 0) {
    const first: unknown = list.items[0]
    const last: unknown = list.items.at(-1)
    if (!isMap(first) && !isScalar(first) && !isSeq(first)) return mergeYamlDocument(doc, replacements, appends)
    if (!isMap(last) && !isScalar(last) && !isSeq(last)) return mergeYamlDocument(doc, replacements, appends)
    if (first.range == null || last.range == null) return mergeYamlDocument(doc, replacements, appends)
    // New entries copy the first entry's `  - ` so the list stays uniform.
    const firstPrefix = text.slice(lineStart(text, first.range[0]), first.range[0])
    const dashColumn = list.range[0] - lineStart(text, list.range[0])
    const prefix = /^ *- +$/.test(firstPrefix) ? firstPrefix : `${' '.repeat(dashColumn)}- `
    const indent = ' '.repeat(prefix.length)
    const at = nextLineStart(text, last.range[1])
    const lead = at === text.length && !text.endsWith('\n') ? eol : ''
    const added = appends.map((entry) => `${prefix}${renderEntry(entry, CLASSIFICATION_KEYS, indent, eol)}${eol}`)
    edits.push({ start: at, end: at, text: lead + added.join('') })
  }

  return edits
    .sort((a, b) => b.start - a.start)
    .reduce((result, edit) => result.slice(0, edit.start) + edit.text + result.slice(edit.end), text)
}

/** The fallback: change the parsed document and print it again; comments survive, layout may not. */
function mergeYamlDocument(
  doc: ReturnType<typeof parseDocument>,
  replacements: ReadonlyMap<number, Classification>,
  appends: readonly Classification[],
): string {
  const list = isMap(doc.contents) ? doc.contents.get('classifications', true) : undefined
  if (!isSeq(list)) return doc.toString()
  for (const [index, entry] of replacements) list.items[index] = doc.createNode(ordered(entry, CLASSIFICATION_KEYS))
  for (const entry of appends) list.items.push(doc.createNode(ordered(entry, CLASSIFICATION_KEYS)))
  return doc.toString({ lineWidth: 80 })
}
