/** Reading a diff line by line, by index: a line runs to its `\n` (included) or the text's end. */

const LF = 0x0a
const CR = 0x0d

/** Index after the `\n` of the line starting at `start`, or the text's length. */
export function lineEnd(text: string, start: number): number {
  const newline = text.indexOf('\n', start)
  return newline === -1 ? text.length : newline + 1
}

/** The text of the line at [start, end): without its `\n` or `\r\n`. */
export function lineText(text: string, start: number, end: number): string {
  let stop = end
  if (stop > start && text.charCodeAt(stop - 1) === LF) {
    stop -= 1
    if (stop > start && text.charCodeAt(stop - 1) === CR) stop -= 1
  }
  return text.slice(start, stop)
}

/**
 * One file's part of a diff, by index: from its `diff --` line to the next
 * one or the text's end (diff.ts's `fileSections`).
 */
export type FileSection = {
  /** Index of the `diff --` line. */
  start: number
  /** Index after that line. */
  firstEnd: number
  /** Index of the next section's first line, or the text's length. */
  end: number
}
