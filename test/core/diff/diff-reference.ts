/**
 * The diff preparation as it was before it was made fast (the functions of
 * core/diff/diff.ts, and of core/run/prompt.ts and core/run/budget.ts that prepare and
 * measure the diff, at commit 0d4ce10), kept verbatim as the oracle of
 * test/core/diff/diff-equivalence.test.ts and as the "before" side of
 * bench/diff.ts. Not used by the service. Do not edit: its only job is to
 * say what the output was, byte for byte.
 *
 * Only the preparation: what the prompt says around the prepared diff is
 * core/run/prompt.ts's alone (the test and the benchmark build the "before"
 * context with `buildSharedContextAround`), so its wording changes in one
 * place.
 */

import { FENCE_TAG } from '../../../core/run/prompt.ts'

// ---- core/diff/diff.ts ----------------------------------------------------------

/** Basenames that mark a file section as a lockfile. Matched exactly, case-sensitive. */
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
] as const

const lockfileNames: ReadonlySet<string> = new Set(LOCKFILE_NAMES)

/**
 * Removes each file's `index <hash>..<hash>[ <mode>]` header line.
 *
 * Only a line in a file header (after `diff --git`, before the first `---`,
 * `@@`, `Binary files` or `GIT binary patch`) is taken: hunk content always
 * starts with ' ', '+', '-' or '\', and text before the first `diff --git` is
 * not a header, so neither can lose a line that merely looks like one.
 */
export function stripObjectHashes(diff: string): string {
  let inHeader = false
  let out = ''
  for (const line of splitLines(diff)) {
    const text = lineText(line)
    if (isFileStart(text)) {
      inHeader = true
    } else if (inHeader && endsHeader(text)) {
      inHeader = false
    } else if (inHeader && INDEX_LINE.test(text)) {
      continue
    }
    out += line
  }
  return out
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
  let out = ''
  for (const section of splitSections(diff)) {
    out += collapseSection(section)
  }
  return out
}

// Combined hashes (`index a,b..c`) come from merge diffs; a PR diff has none,
// but dropping them too keeps the rule "no object hash" simple.
const INDEX_LINE = /^index [0-9a-fA-F]+(?:,[0-9a-fA-F]+)*\.\.[0-9a-fA-F]+(?: [0-7]+)?$/

function isFileStart(text: string): boolean {
  return text.startsWith('diff --git ') || text.startsWith('diff --cc ') || text.startsWith('diff --combined ')
}

function endsHeader(text: string): boolean {
  return (
    text.startsWith('--- ') || text.startsWith('@@') || text.startsWith('Binary files ') || text === 'GIT binary patch'
  )
}

/** Lines with their own terminators, so joining them gives the input back. */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? []
}

/** The line without `\n` or `\r\n`. */
function lineText(line: string): string {
  return line.replace(/\r?\n$/, '')
}

type Section = { lines: string[]; isFile: boolean }

function splitSections(diff: string): Section[] {
  const sections: Section[] = []
  let current: Section = { lines: [], isFile: false }
  for (const line of splitLines(diff)) {
    if (isFileStart(lineText(line))) {
      if (current.lines.length > 0) sections.push(current)
      current = { lines: [], isFile: true }
    }
    current.lines.push(line)
  }
  if (current.lines.length > 0) sections.push(current)
  return sections
}

type SectionFacts = {
  paths: string[]
  unreadable: boolean
  kind: 'changed' | 'new' | 'deleted'
  binary: boolean
  added: number
  removed: number
}

function collapseSection(section: Section): string {
  const [first, ...rest] = section.lines
  if (!section.isFile || first === undefined) return section.lines.join('')
  const facts = readSection(first, rest)
  const isLockfile =
    !facts.unreadable && facts.paths.length > 0 && facts.paths.every((path) => lockfileNames.has(basename(path)))
  if (!isLockfile) return section.lines.join('')
  // The header's own ending, unless the section closed the diff without one.
  const last = rest.at(-1) ?? first
  const ending = last.endsWith('\n') ? first.slice(lineText(first).length) : ''
  return `${lineText(first)} (${describe(facts)}, collapsed)${ending}`
}

function describe(facts: SectionFacts): string {
  const what = facts.kind === 'new' ? 'new lockfile' : facts.kind === 'deleted' ? 'deleted lockfile' : 'lockfile'
  return facts.binary ? `${what}, binary` : `${what}, +${facts.added} -${facts.removed} lines`
}

function readSection(first: string, rest: string[]): SectionFacts {
  const facts: SectionFacts = { paths: [], unreadable: false, kind: 'changed', binary: false, added: 0, removed: 0 }
  const fromHeaderLines: string[] = []
  let inHunks = false
  for (const line of rest) {
    const text = lineText(line)
    if (inHunks) {
      if (text.startsWith('+')) facts.added += 1
      else if (text.startsWith('-')) facts.removed += 1
      continue
    }
    if (text.startsWith('@@')) {
      inHunks = true
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
  const fromFirstLine = diffGitPaths(lineText(first))
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
function headerPath(text: string): string | undefined {
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
function diffGitPaths(text: string): string[] | undefined {
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

// ---- core/run/prompt.ts --------------------------------------------------------

// Matches what a model could read as a fence line: the marker words in any
// case, with any punctuation or spacing between them, and with or without
// filler words ("END OF THE PR DATA"). Not across lines: a marker is a line.
const SEP = '[^\\p{L}\\p{N}\\r\\n]{0,16}'
const FENCE_PHRASE = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:BEGIN|END|START|STOP)(?:${SEP}(?:OF|THE))*${SEP}(?:PR|PULL${SEP}REQUEST)${SEP}DATA(?![\\p{L}\\p{N}])`,
  'giu',
)
const FENCE_TAG_ANYWHERE = new RegExp(FENCE_TAG, 'gi')

/**
 * Makes text unable to open or close the fence: each fence-like phrase and
 * each occurrence of the tag is replaced by a visible placeholder. The
 * placeholders match neither pattern, so applying it twice changes nothing.
 */
export function neutraliseFence(text: string): string {
  return text.replace(FENCE_PHRASE, '[fence marker removed]').replace(FENCE_TAG_ANYWHERE, '[fence tag removed]')
}

/** The whole preparation, as the old `buildSharedContext` applied it to the diff. */
export function prepareDiff(diff: string): string {
  return neutraliseFence(collapseLockfiles(stripObjectHashes(diff)))
}

// ---- core/run/budget.ts --------------------------------------------------------

/** What `new TextEncoder().encode(text).length` gives, without building the bytes. */
export function utf8Length(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i)
    if (unit < 0x80) {
      bytes += 1
    } else if (unit < 0x800) {
      bytes += 2
    } else if (unit >= 0xd800 && unit < 0xdc00 && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4
      i += 1
    } else {
      // Other BMP characters, and lone surrogates (encoded as U+FFFD).
      bytes += 3
    }
  }
  return bytes
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit < 0xe000
}
