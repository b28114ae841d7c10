/**
 * `validate [PATH]`: checks the repo's rules file and, when there is one, its
 * examples file, and prints each as a table. With no PATH both are looked
 * for in the working directory and both are reported, each on its own, even
 * when the first has problems; a PATH is checked alone, as an examples file
 * when its name says so (`….examples.yml`, `.yaml`, `.json`) and as a rules
 * file otherwise.
 *
 * Problems go to stderr, a line each naming the file, the entry and what is
 * wrong, and make the exit code 1; labels naming a classification the rules
 * don't have are a warning on stdout (core's applyLabels leaves them out of
 * the score), not a failure.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { capText, oneLine, plural } from '../../core/base/text.ts'
import { applyLabels, describeUnknownLabel, EXAMPLES_FILE } from '../../core/repo-files/examples-file.ts'
import { RULES_FILE } from '../../core/repo-files/rules-file.ts'
import { type RepoSourceFile, selectSourceFile } from '../../core/repo-files/source-file.ts'
import { formatSourceProblem } from '../../core/repo-files/source-tree.ts'
import { displayWidth } from '../../core/review/check-report.ts'
import type { Classification, Example } from '../../core/wire/types.ts'
import { loadRules, loadSource } from './input-files.ts'
import { type CliIo, InputError, UsageError } from './io.ts'

/** A note is cut to this many characters in the table: the file holds the rest. */
const NOTE_SHOWN_CHARS = 60

/** A name ending so is an examples file; any other name is a rules file. */
const EXAMPLES_NAME = /\.examples\.(?:ya?ml|json)$/i

/** Which of a kind's two files the directory holds: the path, or null for neither; throws for both. */
function findInDirectory<T, Key extends string>(cwd: string, file: RepoSourceFile<T, Key>): string | null {
  const chosen = selectSourceFile(
    { yml: existsSync(join(cwd, file.paths.yml)), json: existsSync(join(cwd, file.paths.json)) },
    file.paths,
  )
  if (!chosen.ok) throw new InputError(formatSourceProblem(chosen.error))
  return chosen.value === null ? null : join(cwd, chosen.value)
}

function noRulesFile(cwd: string): string {
  return `no rules file: neither ${RULES_FILE.paths.yml} nor ${RULES_FILE.paths.json} exists in ${cwd}`
}

/** A plain-text table; the last column is not padded, so long text just runs on. */
function formatTable(header: readonly string[], rows: readonly string[][]): string {
  const last = header.length - 1
  const widths = header.map((h, i) => Math.max(displayWidth(h), ...rows.map((row) => displayWidth(row[i] ?? ''))))
  const format = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => (i < last ? cell + ' '.repeat((widths[i] ?? 0) - displayWidth(cell)) : cell))
      .join('  ')
      .trimEnd()
  const rule = header.map((h, i) => '-'.repeat(i < last ? (widths[i] ?? 0) : displayWidth(h)))
  return [format(header), format(rule), ...rows.map(format)].join('\n')
}

/** The rules as a table; `mode` and `paths` columns only when some rule has one of those keys. */
export function formatRulesTable(rules: readonly Classification[]): string {
  if (!rules.some((r) => r.mode !== undefined || r.paths !== undefined)) {
    return formatTable(
      ['name', 'polarity', 'threshold', 'description'],
      rules.map((r) => [r.name, r.polarity, String(r.threshold), oneLine(r.description)]),
    )
  }
  return formatTable(
    ['name', 'polarity', 'threshold', 'mode', 'paths', 'description'],
    rules.map((r) => [
      r.name,
      r.polarity,
      String(r.threshold),
      r.mode ?? 'blocking',
      r.paths === undefined ? 'every file' : capText(oneLine(r.paths.join(' ')), 60),
      oneLine(r.description),
    ]),
  )
}

export function formatExamplesTable(examples: readonly Example[]): string {
  return formatTable(
    ['pr', 'labels', 'note'],
    examples.map(({ pr, expect, note }) => [
      String(pr),
      Object.entries(expect)
        .map(([name, label]) => `${name}: ${label}`)
        .join(', '),
      note === undefined ? '' : capText(oneLine(note), NOTE_SHOWN_CHARS),
    ]),
  )
}

function rulesReport(path: string, rules: readonly Classification[]): string {
  return `${path}: ${plural(rules.length, 'classification')}\n\n${formatRulesTable(rules)}\n`
}

/**
 * What the examples' labels are checked against: the rules, or why there
 * are none to check them against (`invalid`: a rules file is there, but
 * doesn't load).
 */
type LabelRules = { path: string; rules: readonly Classification[] } | { missing: string; invalid: boolean }

/** The lines on the labels: all apply, or which don't (a warning), or why they weren't checked. */
function labelsReport(examples: readonly Example[], against: LabelRules): string {
  if ('missing' in against) return `labels not checked: ${against.missing}\n`
  const applied = applyLabels(examples, against.rules)
  const idle = examples.filter(({ pr }) => !applied.prs.includes(pr))
  if (applied.unknown.length === 0) return `every label names a classification of ${against.path}\n`
  const { unknown } = applied
  const lines = [
    `warning (not an error): ${plural(unknown.length, 'label')} ${unknown.length === 1 ? 'names' : 'name'} no classification of ${against.path}:`,
    ...unknown.map((label) => `  ${describeUnknownLabel(label)}`),
    ...idle.map(({ pr }) => `  pr ${pr}: no label of it is left, so the PR isn't run`),
  ]
  return `${lines.join('\n')}\n`
}

function examplesReport(path: string, examples: readonly Example[], against: LabelRules): string {
  const table = formatExamplesTable(examples)
  return `${path}: ${plural(examples.length, 'labelled PR')}\n\n${table}\n\n${labelsReport(examples, against)}`
}

/** The working directory's rules file checked: its report or its problems, and what labels are checked against. */
type DirectoryRules = { report: string; against: LabelRules } | { problems: string; against: LabelRules }

function checkDirectoryRules(cwd: string): DirectoryRules {
  let path: string | null = null
  try {
    path = findInDirectory(cwd, RULES_FILE)
    if (path === null)
      return { problems: noRulesFile(cwd), against: { missing: `no rules file in ${cwd}`, invalid: false } }
    const rules = loadRules(path)
    return { report: rulesReport(path, rules), against: { path, rules } }
  } catch (error) {
    if (!(error instanceof InputError)) throw error
    const missing = path === null ? "the rules don't load" : `${path} doesn't load`
    return { problems: error.message, against: { missing, invalid: true } }
  }
}

/** No PATH: the rules file, then the examples file when there is one, each reported whatever the other did. */
function validateDirectory(io: CliIo): number {
  const rules = checkDirectoryRules(io.cwd)
  let failed = 'problems' in rules
  // A blank line after either file's part, on the stream it went to, sets the examples file's part apart.
  if ('problems' in rules) io.err(`${rules.problems}\n\n`)
  else io.out(`${rules.report}\n`)
  try {
    const path = findInDirectory(io.cwd, EXAMPLES_FILE)
    if (path === null) {
      io.out(`no examples file (${EXAMPLES_FILE.paths.yml} or .json), which is fine: it is needed only to label PRs\n`)
    } else {
      io.out(examplesReport(path, loadSource(path, EXAMPLES_FILE), rules.against))
    }
  } catch (error) {
    if (!(error instanceof InputError)) throw error
    io.err(`${error.message}\n`)
    failed = true
  }
  return failed ? 1 : 0
}

export function validateCommand(args: string[], io: CliIo): number {
  if (args.length > 1) throw new UsageError('validate takes at most one PATH')
  const path = args[0]
  if (path === undefined) return validateDirectory(io)
  if (EXAMPLES_NAME.test(path)) {
    const examples = loadSource(path, EXAMPLES_FILE)
    const { against } = checkDirectoryRules(io.cwd)
    // Only the examples file is reported here: say where to see why the rules don't load.
    const shown =
      'missing' in against && against.invalid
        ? { ...against, missing: `${against.missing} (\`validate\` with no PATH lists its problems)` }
        : against
    io.out(examplesReport(path, examples, shown))
    return 0
  }
  io.out(rulesReport(path, loadRules(path)))
  return 0
}
