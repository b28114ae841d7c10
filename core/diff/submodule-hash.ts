/**
 * A submodule's `Subproject commit <hash>` lines without their object hash
 * (issue 27): docs/behaviour.md promises no object hash in the shared
 * context, and these were the last. Only in a section whose header gives
 * the gitlink mode 160000, so a file that merely holds such a line keeps it.
 */
import { type FileSection, lineEnd, lineText } from './diff-lines.ts'

/** The edit of one line: text[start, end) becomes `text`. */
export type LineEdit = { start: number; end: number; text: string }

/** A `Subproject commit` line with its object hash (SHA-1, or SHA-256 in a repo that uses it). */
const SUBPROJECT_LINE = /^([-+ ])Subproject commit [0-9a-f]{40}(?:[0-9a-f]{24})?$/
/** A header line that gives the section a gitlink's mode: the section is a submodule's. */
const GITLINK_MODE =
  /^(?:index [0-9a-fA-F,]+\.\.[0-9a-fA-F]+ 160000|(?:new|deleted) file mode 160000|(?:old|new) mode 160000)$/

/** For a submodule's section, its `Subproject commit <hash>` lines without the hash, their endings kept. */
export function submoduleHashEdits(diff: string, section: FileSection): LineEdit[] {
  let start = section.firstEnd
  let gitlink = false
  for (; start < section.end; ) {
    const end = lineEnd(diff, start)
    const text = lineText(diff, start, end)
    if (text.startsWith('@@')) break
    if (GITLINK_MODE.test(text)) gitlink = true
    start = end
  }
  if (!gitlink) return []
  const edits: LineEdit[] = []
  for (; start < section.end; ) {
    const end = lineEnd(diff, start)
    const text = lineText(diff, start, end)
    const m = SUBPROJECT_LINE.exec(text)
    if (m !== null) edits.push({ start, end, text: `${m[1]}Subproject commit${diff.slice(start + text.length, end)}` })
    start = end
  }
  return edits
}
