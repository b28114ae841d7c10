/**
 * A lockfile known by what it holds rather than its name: a `*.lock` file
 * whose diff is flake.lock's format (Nix flakes, and tools that write the
 * same, such as devenv under other names). Its section collapses like a
 * named lockfile's only when every line of its hunks is a line that format
 * has, so a file named `notes.lock` holding prose or code stays whole.
 */
import { type FileSection, lineEnd, lineText } from './diff-lines.ts'

/**
 * One line of flake.lock's JSON as `nix` writes it: an opening brace or
 * bracket, a closing one, or a key with a scalar, an object or an array, or
 * an array item; strings with no space in them (names, hashes, URLs, refs).
 * Anchored at both ends, no nested repetition: linear on any line.
 */
const FLAKE_LOCK_LINE = /^[ \t]*(?:(?:"[\w.+-]+": )?(?:\{|\[|"[^"\\\s]*"|-?\d+|true|false|null)|[\]}]),?$/

/** What no flake.lock lacks in any hunk of it worth collapsing: a locked input's hash. */
const NAR_HASH = /^[ \t]*"narHash": "sha(?:256|512)-/

/**
 * Whether the hunk lines of `lines` (each a diff line's text, its `+`, `-`
 * or ` ` first) are all flake.lock lines, one of them a `narHash`. Lines
 * that are not hunk content (`@@`, `\ No newline at end of file`) are left
 * to the caller.
 */
export function isFlakeLockHunks(lines: Iterable<string>): boolean {
  let narHash = false
  let any = false
  for (const line of lines) {
    const marker = line[0]
    if (marker !== '+' && marker !== '-' && marker !== ' ') return false
    const content = line.slice(1)
    if (!FLAKE_LOCK_LINE.test(content)) return false
    any = true
    if (!narHash && NAR_HASH.test(content)) narHash = true
  }
  return any && narHash
}

/** A basename that is a lockfile's only if its content says so (core/diff/diff.ts collapses it then). */
export function mayBeFlakeLock(basename: string): boolean {
  return basename.endsWith('.lock') && basename.length > '.lock'.length
}

/** The section's hunk lines, `@@` lines and `\ No newline` notes aside. */
export function* hunkLines(diff: string, section: FileSection): Generator<string> {
  let inHunks = false
  for (let start = section.firstEnd; start < section.end; ) {
    const end = lineEnd(diff, start)
    const text = lineText(diff, start, end)
    start = end
    if (text.startsWith('@@')) inHunks = true
    else if (inHunks && !text.startsWith('\\')) yield text
  }
}
