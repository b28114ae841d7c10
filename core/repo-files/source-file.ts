/**
 * Reading one of the repo's hand-written files (the rules file, the examples
 * file) from its text into the source tree its checks take: which format
 * its name says, the size cap, then the YAML or JSON reader; and the words
 * for one that doesn't load. Pure: the caller reads the file and passes its
 * text.
 */
import { err, ok, type Result } from '../base/result.ts'
import { readJsonSource } from './json-reader.ts'
import {
  type FileProblem,
  formatSourceProblem,
  type SourceKind,
  type SourceNode,
  type SourceProblem,
} from './source-tree.ts'
import { readYamlSource } from './yaml-reader.ts'

/** Larger files are refused before parsing: a real rules or examples file is a few KB. */
export const SOURCE_MAX_BYTES = 1024 * 1024

/**
 * One of the repo's two hand-written files as whoever reads it needs it
 * (the controller from the forge, the CLI from disk): its two names, how a
 * message names it, and how its text is read into values.
 */
export type RepoSourceFile<T, Key extends string> = {
  kind: SourceKind
  /** The file as a message names it, without an article: "rules file". */
  name: string
  /** What the file holds, as a message names it: "the rules don't load". */
  contents: string
  paths: { yml: string; json: string }
  /** The file's own checks of its source tree (rules-check.ts, examples-check.ts). */
  check(path: string, tree: SourceNode): Result<T, SourceProblem<Key>[]>
}

/** A repo file read at a commit; every kind names the branch and the commit it was read at. */
export type LoadedSource<T, Key extends string> =
  | { kind: 'loaded'; path: string; branch: string; commit: string; value: T; file: SourceFileRead }
  /** Neither of the two files. */
  | { kind: 'none'; branch: string; commit: string }
  /** Both files, so neither loads. */
  | { kind: 'both'; branch: string; commit: string }
  /** One file that doesn't parse, breaks a rule, or isn't a readable file (a directory, a symlink, too large). */
  | { kind: 'invalid'; path: string; branch: string; commit: string; problems: SourceProblem<Key>[] }

/** The file's text as read, with the blob sha an update of it must name. */
export type SourceFileRead = { path: string; text: string; sha: string }

export function formatOf(path: string): 'yaml' | 'json' | null {
  const lower = path.toLowerCase()
  if (lower.endsWith('.yml') || lower.endsWith('.yaml')) return 'yaml'
  if (lower.endsWith('.json')) return 'json'
  return null
}

/**
 * Which of a kind's two files to read, given which exist on the default
 * branch: the path, null for "the repo has none", or a problem when both exist.
 */
export function selectSourceFile(
  present: { yml: boolean; json: boolean },
  paths: { yml: string; json: string },
): Result<string | null, FileProblem> {
  if (present.yml && present.json) return err(bothFilesProblem(paths))
  if (present.yml) return ok(paths.yml)
  if (present.json) return ok(paths.json)
  return ok(null)
}

function bothFilesProblem(paths: { yml: string; json: string }): FileProblem {
  return {
    file: `${paths.yml} and ${paths.json}`,
    at: null,
    detail: 'both exist; a repo holds one of the two, so neither is loaded',
  }
}

/** Problems listed in a refusal's text; a person fixing the file runs `validate` for the rest. */
export const SOURCE_PROBLEMS_SHOWN = 10

/** The first {@link SOURCE_PROBLEMS_SHOWN} problems on one line, and how many more there are. */
export function listProblems(problems: readonly SourceProblem[]): string {
  const shown = problems.slice(0, SOURCE_PROBLEMS_SHOWN).map(formatSourceProblem)
  const more = problems.length - shown.length
  return `${shown.join('; ')}${more > 0 ? `; and ${more} more problems` : ''}`
}

/**
 * Why a file that is there doesn't load, in the same words for the rules and
 * the examples: both names present, or the one file and its first problems.
 */
export function describeSourceRefusal(
  file: Pick<RepoSourceFile<unknown, string>, 'name' | 'contents' | 'paths'>,
  loaded: { kind: 'both' } | { kind: 'invalid'; path: string; problems: readonly SourceProblem[] },
): string {
  if (loaded.kind === 'both') {
    return `the ${file.contents} don't load: ${formatSourceProblem(bothFilesProblem(file.paths))}`
  }
  return `the ${file.name} ${loaded.path} doesn't load: ${listProblems(loaded.problems)}`
}

/** The file's text as a source tree, or every problem that keeps it from being one. */
export function readSourceFile(path: string, text: string, kind: SourceKind): Result<SourceNode, FileProblem[]> {
  const format = formatOf(path)
  if (format === null) {
    return err([{ file: path, at: null, detail: `${kind.one} must end in .yml, .yaml or .json` }])
  }
  const oversize = sizeProblem(path, text)
  if (oversize !== null) return err([oversize])
  return format === 'yaml' ? readYamlSource(path, text, kind) : readJsonSource(path, text, kind)
}

/** A file's text read and checked: its values, or every problem, each naming the file. */
export function parseSourceFile<T, Key extends string>(
  file: RepoSourceFile<T, Key>,
  path: string,
  text: string,
): Result<T, SourceProblem<Key>[]> {
  const tree = readSourceFile(path, text, file.kind)
  if (!tree.ok) return tree
  return file.check(path, tree.value)
}

function sizeProblem(path: string, text: string): FileProblem | null {
  // UTF-8 takes at least one byte per UTF-16 unit, so a long string is over
  // the cap without encoding it.
  const bytes = text.length > SOURCE_MAX_BYTES ? null : new TextEncoder().encode(text).byteLength
  if (bytes !== null && bytes <= SOURCE_MAX_BYTES) return null
  const size = bytes === null ? `at least ${text.length} bytes` : `${bytes} bytes`
  return { file: path, at: null, detail: `the file is ${size}, over the ${SOURCE_MAX_BYTES}-byte (1 MiB) limit` }
}
