/**
 * Which changed files each rule is about (docs/behaviour.md, "Scoping a rule
 * to its files"). A rule with `paths` is asked only when some changed file is
 * in its scope; a rule without is about every file. Each file is matched by
 * its path and, when it was renamed or deleted, by its old path too, so a
 * rule about `db/migrations/**` is asked about a migration moved out of it.
 *
 * The patterns are checked and translated in core/repo-files/path-glob.ts and
 * matched here by re2js, in time linear in the path, whatever the pattern.
 */

import { RE2JS } from 're2js'
import { diffGitPaths, fileSections, headerPath } from '../diff/diff.ts'
import { translatePathPattern } from '../repo-files/path-glob.ts'
import type { Classification } from '../wire/types.ts'

/** One file a diff changes: its path after the change, and its path before when that differs (renamed, deleted). */
export type ChangedFile = { path: string; oldPath: string | null }

/**
 * A rule's scope on one diff: whether any changed file is in it, and which
 * (their paths after the change); `files` is null for a rule with no `paths`.
 */
export type RuleScope = { inScope: boolean; files: string[] | null }

/** A rule with no `paths`: about every file, and its question names none. */
const UNSCOPED: RuleScope = { inScope: true, files: null }

/** The reason an out-of-scope row gives. */
export const OUT_OF_SCOPE_REASON = 'No changed file matches its paths.'

/** A file's side prefix of a `diff --git`, `---` or `+++` line: `a/`, `b/` (or another letter with `--src-prefix`). */
function withoutSide(path: string): string {
  return path.replace(/^[a-z]\//, '')
}

/**
 * The files a unified diff changes, in the diff's order. The paths come from
 * the `---`/`+++` and `rename from`/`rename to` lines, or from the
 * `diff --git` line when a section has none of them (a mode change, a binary
 * file without a `---` line). A section whose paths can't be read adds none.
 */
export function changedFiles(diff: string): ChangedFile[] {
  const files: ChangedFile[] = []
  for (const section of fileSections(diff)) {
    let before: string | null = null
    let after: string | null = null
    // Only the header lines, up to the first hunk: a file's hunks can be megabytes.
    for (const line of headerLines(diff, section.firstEnd, section.end)) {
      const path = headerPath(line)
      if (path === undefined || path === '/dev/null') continue
      if (line.startsWith('--- ')) before = withoutSide(path)
      else if (line.startsWith('+++ ')) after = withoutSide(path)
      else if (line.startsWith('rename from ') || line.startsWith('copy from ')) before = path
      else if (line.startsWith('rename to ') || line.startsWith('copy to ')) after = path
    }
    if (before === null && after === null) {
      const first = diff.slice(section.start, section.firstEnd).replace(/\r?\n$/, '')
      const both = diffGitPaths(first)
      if (both === undefined) continue
      before = withoutSide(both[0] ?? '')
      after = withoutSide(both[1] ?? '')
    }
    const path = after ?? before
    if (path === null || path === '') continue
    files.push({ path, oldPath: before !== null && before !== path ? before : null })
  }
  return files
}

/** The lines of a section from `start` up to its first hunk (`@@`), without their line ends. */
function* headerLines(diff: string, start: number, end: number): Generator<string> {
  let at = start
  while (at < end) {
    const newline = diff.indexOf('\n', at)
    const next = newline === -1 || newline >= end ? end : newline + 1
    const line = diff.slice(at, next).replace(/\r?\n$/, '')
    if (line.startsWith('@@')) return
    yield line
    at = next
  }
}

/** A compiled `paths` list: whether a path is in its scope. */
export type PathsMatcher = (path: string) => boolean

/**
 * Compiles a `paths` list. The patterns were checked when the rules were read
 * (rules-check.ts); one that no longer translates throws, a bug, not input.
 * In scope: some pattern without `!` matches and no `!` pattern does; a list
 * of `!` patterns alone puts every other file in scope.
 */
export function compilePaths(patterns: readonly string[]): PathsMatcher {
  const include: RE2JS[] = []
  const exclude: RE2JS[] = []
  for (const pattern of patterns) {
    const translated = translatePathPattern(pattern)
    if (!translated.ok) throw new Error(`paths pattern ${JSON.stringify(pattern)} ${translated.error}`)
    ;(translated.value.exclude ? exclude : include).push(RE2JS.compile(translated.value.source))
  }
  return (path) =>
    (include.length === 0 || include.some((re) => re.testExact(path))) && !exclude.some((re) => re.testExact(path))
}

/** A rule's scope among the changed files: every file when it has no `paths`. */
export function ruleScope(classification: Pick<Classification, 'paths'>, files: readonly ChangedFile[]): RuleScope {
  if (classification.paths === undefined) return UNSCOPED
  const matches = compilePaths(classification.paths)
  const inScope = files
    .filter((file) => matches(file.path) || (file.oldPath !== null && matches(file.oldPath)))
    .map((file) => file.path)
  return { inScope: inScope.length > 0, files: inScope }
}

/** Every classification's scope on a diff, by name. */
export function runScopes(
  classifications: readonly Pick<Classification, 'name' | 'paths'>[],
  diff: string,
): Map<string, RuleScope> {
  const scoped = classifications.some((classification) => classification.paths !== undefined)
  const files = scoped ? changedFiles(diff) : []
  return new Map(
    classifications.map((classification) => [
      classification.name,
      classification.paths === undefined ? UNSCOPED : ruleScope(classification, files),
    ]),
  )
}

/**
 * The names of the classifications no changed file of `diff` is in scope of:
 * those a run doesn't ask. Each rule stops at its first file in scope, since
 * only whether there is one counts here.
 */
export function outOfScopeNames(
  classifications: readonly Pick<Classification, 'name' | 'paths'>[],
  diff: string,
): Set<string> {
  const names = new Set<string>()
  const scoped = classifications.filter((classification) => classification.paths !== undefined)
  if (scoped.length === 0) return names
  const files = changedFiles(diff)
  for (const { name, paths } of scoped) {
    const matches = compilePaths(paths ?? [])
    const some = files.some((file) => matches(file.path) || (file.oldPath !== null && matches(file.oldPath)))
    if (!some) names.add(name)
  }
  return names
}
