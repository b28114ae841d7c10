/**
 * Normalising a unified git diff before it goes into the shared prompt
 * context: object hashes out (so a rebase keeps the cached prefix, and no
 * hash is in it at all: a submodule's `Subproject commit <hash>` lines lose
 * theirs too), lockfiles down to one line each (so generated churn neither
 * eats the size budget nor the model's attention).
 *
 * Both functions work line by line on the text as the forge returns it and
 * keep every line they do not drop byte for byte, line endings included.
 */

import { type FileSection, lineEnd, lineText } from './diff-lines.ts'
import { hunkLines, isFlakeLockHunks, mayBeFlakeLock } from './lockfile-content.ts'
import { type LineEdit, submoduleHashEdits } from './submodule-hash.ts'

export type { FileSection } from './diff-lines.ts'

/**
 * Basenames that mark a file section as a lockfile. Matched exactly,
 * case-sensitive. A `*.lock` not listed is one when its content is
 * flake.lock's format (core/diff/lockfile-content.ts).
 */
export const LOCKFILE_NAMES = [
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lock',
  'bun.lockb',
  'Cargo.lock',
  'flake.lock',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'Gemfile.lock',
  'composer.lock',
  'go.sum',
  'mix.lock',
  'pubspec.lock',
  'Podfile.lock',
  'packages.lock.json',
  'gradle.lockfile',
  'deno.lock',
  'devenv.lock',
  'Gopkg.lock',
] as const

const lockfileNames: ReadonlySet<string> = new Set(LOCKFILE_NAMES)

/**
 * Removes each file's `index <hash>..<hash>[ <mode>]` header line, and the
 * hash of each `Subproject commit <hash>` line of a submodule's section
 * (its mode 160000), which keeps its marker and words (`+Subproject commit`).
 *
 * Only a line in a file header (after `diff --git`, before the first `---`,
 * `@@`, `Binary files` or `GIT binary patch`) is taken: hunk content always
 * starts with ' ', '+', '-' or '\', and text before the first `diff --git` is
 * not a header, so neither can lose a line that merely looks like one. A
 * `Subproject commit` line is changed only in a submodule's section, never
 * in a file that merely holds such a line.
 */
export function stripObjectHashes(diff: string): string {
  const pieces: string[] = []
  let kept = 0
  for (const section of fileSections(diff)) {
    kept = pushStripped(pieces, diff, kept, droppedIndexLines(diff, section), submoduleHashEdits(diff, section))
  }
  if (kept === 0) return diff
  pieces.push(diff.slice(kept))
  return pieces.join('')
}

/** Pushes the text from `kept` through the section's edits (dropped index lines, then hunk edits); returns the new `kept`. */
function pushStripped(
  pieces: string[],
  diff: string,
  kept: number,
  dropped: readonly number[],
  edits: readonly LineEdit[],
): number {
  let at = kept
  for (let i = 0; i < dropped.length; i += 2) {
    pieces.push(diff.slice(at, dropped[i]))
    at = dropped[i + 1] ?? at
  }
  for (const edit of edits) {
    pieces.push(diff.slice(at, edit.start), edit.text)
    at = edit.end
  }
  return at
}

/**
 * Replaces each lockfile's section with one line: its `diff --git` line plus
 * a note, with that line's ending (none when the section ended the diff
 * without one). The counts are the section's `+` and `-` hunk lines. The forms:
 *
 *     diff --git a/Cargo.lock b/Cargo.lock (lockfile, +12 -3 lines, collapsed)
 *     diff --git a/yarn.lock b/yarn.lock (new lockfile, +120 -0 lines, collapsed)
 *     diff --git a/go.sum b/go.sum (deleted lockfile, +0 -40 lines, collapsed)
 *     diff --git a/bun.lockb b/bun.lockb (lockfile, binary, collapsed)
 *
 * A section counts as a lockfile only when every path it names (old and new,
 * `/dev/null` aside) has a lockfile basename: a rename from `Cargo.lock` to
 * `src/main.rs` stays whole, so code cannot hide behind a lockfile's name.
 * A section whose paths cannot be read is kept whole for the same reason.
 */
export function collapseLockfiles(diff: string): string {
  const pieces = preparedPieces(diff, false)
  return pieces.length === 1 ? (pieces[0] ?? '') : pieces.join('')
}

/**
 * `collapseLockfiles(stripObjectHashes(diff))` as pieces that join to it,
 * without building the stripped diff in between. Every piece but the last
 * ends with a line's `\n`, so a change that works line by line can be made
 * piece by piece.
 */
export function prepareDiffPieces(diff: string): string[] {
  return preparedPieces(diff, true)
}

/*
 * How the text is read: a line runs from its first character to its `\n`
 * (included) or the end of the text, and is addressed by its start and end
 * indices, so nothing is split or copied until the output is joined. The
 * text of a line (what the rules above look at) is the line without its `\n`
 * or `\r\n`. A file section runs from a `diff --` line to the next one or
 * the end; text before the first is no section and is never changed.
 */

export function* fileSections(diff: string): Generator<FileSection> {
  let start = nextFileStart(diff, 0)
  while (start !== -1) {
    const firstEnd = lineEnd(diff, start)
    const next = nextFileStart(diff, firstEnd)
    yield { start, firstEnd, end: next === -1 ? diff.length : next }
    start = next
  }
}

/** The pieces of the diff with the lockfiles collapsed, and with the index lines dropped if `strip`. */
function preparedPieces(diff: string, strip: boolean): string[] {
  const pieces: string[] = []
  let kept = 0
  for (const section of fileSections(diff)) {
    const dropped = strip ? droppedIndexLines(diff, section) : NONE
    const collapsed = collapsedLine(diff, section, dropped.at(-1) === section.end)
    if (collapsed !== undefined) {
      pieces.push(diff.slice(kept, section.start), collapsed)
      kept = section.end
      continue
    }
    kept = pushStripped(pieces, diff, kept, dropped, strip ? submoduleHashEdits(diff, section) : NO_EDITS)
  }
  pieces.push(kept === 0 ? diff : diff.slice(kept))
  return pieces
}

const NO_EDITS: readonly LineEdit[] = []

const NONE: readonly number[] = []

// Combined hashes (`index a,b..c`) come from merge diffs; a PR diff has none,
// but dropping them too keeps the rule "no object hash" simple.
const INDEX_LINE = /^index [0-9a-fA-F]+(?:,[0-9a-fA-F]+)*\.\.[0-9a-fA-F]+(?: [0-7]+)?$/

const LF = 0x0a
const PLUS = 0x2b
const MINUS = 0x2d

/** Whether the line starting at `start` begins a file section (none of the prefixes holds a line ending). */
function isFileStart(text: string, start: number): boolean {
  return (
    text.startsWith('diff --git ', start) ||
    text.startsWith('diff --cc ', start) ||
    text.startsWith('diff --combined ', start)
  )
}

/** The start of the first file section's line at or after `from` (a line start), or -1. */
function nextFileStart(text: string, from: number): number {
  let start = from
  while (start < text.length) {
    if (isFileStart(text, start)) return start
    const found = text.indexOf('\ndiff --', start)
    if (found === -1) return -1
    start = found + 1
  }
  return -1
}

function endsHeader(text: string): boolean {
  return (
    text.startsWith('--- ') || text.startsWith('@@') || text.startsWith('Binary files ') || text === 'GIT binary patch'
  )
}

/**
 * The `index` lines of the section's header, as start and end pairs: the
 * header runs from the line after `diff --` to the first line that ends it.
 */
function droppedIndexLines(diff: string, section: FileSection): number[] {
  const dropped: number[] = []
  for (let start = section.firstEnd; start < section.end; ) {
    const end = lineEnd(diff, start)
    const text = lineText(diff, start, end)
    if (endsHeader(text)) break
    if (INDEX_LINE.test(text)) dropped.push(start, end)
    start = end
  }
  return dropped
}

type SectionFacts = {
  paths: string[]
  unreadable: boolean
  kind: 'changed' | 'new' | 'deleted'
  binary: boolean
  added: number
  removed: number
}

/**
 * The line that replaces the section if it is a lockfile's, else undefined.
 * `lastLineDropped`: the section's last line is an index line being dropped,
 * so the line before it, which has its `\n`, ends the section.
 */
function collapsedLine(diff: string, section: FileSection, lastLineDropped: boolean): string | undefined {
  const { start, firstEnd, end } = section
  const first = lineText(diff, start, firstEnd)
  const fromFirstLine = diffGitPaths(first)
  // Every path of the first line is among the section's paths, so one that
  // is not a lockfile's settles it without reading the rest.
  if (fromFirstLine?.some((path) => lockfileBy(path) === null) === true) return undefined
  const facts = readSection(diff, section, fromFirstLine)
  if (facts.unreadable || facts.paths.length === 0) return undefined
  const by = facts.paths.map(lockfileBy)
  if (by.includes(null)) return undefined
  // A `*.lock` not named above is a lockfile only if what it holds is flake.lock's format.
  if (by.includes('content') && (facts.binary || !isFlakeLockHunks(hunkLines(diff, section)))) return undefined
  // The header's own ending, unless the section closed the diff without one.
  const ending = diff.charCodeAt(end - 1) === LF || lastLineDropped ? diff.slice(start + first.length, firstEnd) : ''
  return `${first} (${describe(facts)}, collapsed)${ending}`
}

/** How a path can be a lockfile's: by its name, by its content (a `*.lock`), or not at all. */
function lockfileBy(path: string): 'name' | 'content' | null {
  const name = basename(path)
  if (lockfileNames.has(name)) return 'name'
  return mayBeFlakeLock(name) ? 'content' : null
}

function describe(facts: SectionFacts): string {
  const what = facts.kind === 'new' ? 'new lockfile' : facts.kind === 'deleted' ? 'deleted lockfile' : 'lockfile'
  return facts.binary ? `${what}, binary` : `${what}, +${facts.added} -${facts.removed} lines`
}

function readSection(diff: string, section: FileSection, fromFirstLine: string[] | undefined): SectionFacts {
  const facts: SectionFacts = { paths: [], unreadable: false, kind: 'changed', binary: false, added: 0, removed: 0 }
  const fromHeaderLines: string[] = []
  let start = section.firstEnd
  for (; start < section.end; ) {
    const end = lineEnd(diff, start)
    const text = lineText(diff, start, end)
    start = end
    if (text.startsWith('@@')) {
      break
    } else if (text.startsWith('new file mode ')) {
      facts.kind = 'new'
    } else if (text.startsWith('deleted file mode ')) {
      facts.kind = 'deleted'
    } else if (text.startsWith('Binary files ') || text === 'GIT binary patch') {
      facts.binary = true
    } else {
      const path = headerPath(text)
      if (path !== undefined) fromHeaderLines.push(path)
    }
  }
  // The hunks: only the first character of each line counts (a line's text
  // starts with it unless the text is empty, and then it is \n or \r).
  for (; start < section.end; start = lineEnd(diff, start)) {
    const first = diff.charCodeAt(start)
    if (first === PLUS) facts.added += 1
    else if (first === MINUS) facts.removed += 1
  }
  if (fromHeaderLines.length > 0) {
    facts.paths = fromHeaderLines.filter((path) => path !== '/dev/null')
    // The first line's paths count too: a section must not pass as a
    // lockfile because one of its header lines was missing.
    if (fromFirstLine !== undefined) facts.paths.push(...fromFirstLine)
  } else if (fromFirstLine !== undefined) {
    facts.paths = fromFirstLine
  } else {
    facts.unreadable = true
  }
  return facts
}

/** The path a `---`, `+++`, `rename from/to` or `copy from/to` line names, if it is one. */
export function headerPath(text: string): string | undefined {
  for (const prefix of ['--- ', '+++ ', 'rename from ', 'rename to ', 'copy from ', 'copy to ']) {
    if (text.startsWith(prefix)) {
      // git ends a `---`/`+++` path that holds a space with a tab, for patch(1).
      return unquote(text.slice(prefix.length).replace(/\t$/, ''))
    }
  }
  return undefined
}

/**
 * Both paths of a `diff --git` line, or undefined when they cannot be told
 * apart: unquoted paths with spaces are ambiguous unless both sides are the
 * same path, which is the case for every section but a rename or copy.
 */
export function diffGitPaths(text: string): string[] | undefined {
  const rest = text.replace(/^diff --(?:git|cc|combined) /, '')
  if (rest.startsWith('"')) {
    const quoted = rest.match(/^("(?:[^"\\]|\\.)*") (.+)$/)
    if (quoted?.[1] === undefined || quoted[2] === undefined) return undefined
    return [unquote(quoted[1]), unquote(quoted[2])]
  }
  const quotedRight = rest.match(/^(\S+) ("(?:[^"\\]|\\.)*")$/)
  if (quotedRight?.[1] !== undefined && quotedRight[2] !== undefined) {
    return [quotedRight[1], unquote(quotedRight[2])]
  }
  if (rest.length % 2 === 0) return undefined
  const half = (rest.length - 1) / 2
  const left = rest.slice(0, half)
  const right = rest.slice(half + 1)
  if (rest[half] !== ' ' || stripSidePrefix(left) !== stripSidePrefix(right)) return undefined
  return [left, right]
}

function stripSidePrefix(path: string): string {
  return path.replace(/^[a-z]\//, '')
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

const C_ESCAPES: Readonly<Record<string, number>> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 }

/** Undoes git's C-style quoting of a path (`"b/t\303\251st"`); other text comes back as is. */
function unquote(path: string): string {
  if (!(path.length >= 2 && path.startsWith('"') && path.endsWith('"'))) return path
  // Octal escapes are UTF-8 bytes, so the whole path is rebuilt as bytes.
  const bytes: number[] = []
  const encoder = new TextEncoder()
  for (const [, escaped, plain] of path.slice(1, -1).matchAll(/\\([0-7]{3}|.)|([^\\]+)/gsu)) {
    if (plain !== undefined) {
      bytes.push(...encoder.encode(plain))
    } else if (escaped !== undefined && /^[0-7]{3}$/.test(escaped)) {
      bytes.push(Number.parseInt(escaped, 8))
    } else if (escaped !== undefined) {
      const code = C_ESCAPES[escaped]
      bytes.push(...(code === undefined ? encoder.encode(escaped) : [code]))
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes))
}
