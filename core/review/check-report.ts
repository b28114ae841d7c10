/**
 * What the local `check` command prints: the review's table for a terminal
 * (aligned plain text, no markdown escapes), the overall line, its progress
 * lines, and the `--json` document. Pure: the command writes the text.
 */

import { redactionHeadline, redactionPlaceLines } from '../redaction/redaction-report.ts'
import { ERROR_KIND_LABEL } from '../run/aggregate.ts'
import type { Overall, RedactionSummary, Row } from '../wire/types.ts'
import { flattenCellText, REVIEW_TABLE_HEADER, reviewRowCells, VERDICT_LABEL } from './review-body.ts'

const OVERALL_TEXT = {
  approve: 'Overall: approve.',
  'request-changes': 'Overall: request changes.',
  'no-verdict': 'Overall: no verdict.',
} as const satisfies Record<Overall, string>

/** Columns whose cells are numbers, right-aligned. */
const NUMERIC_COLUMNS: ReadonlySet<string> = new Set(['certainty', 'threshold'])
const COLUMN_GAP = '  '

/**
 * Columns a character takes in a terminal: none for combining marks,
 * joiners and variation selectors, two for emoji shown as emoji and for East
 * Asian wide and fullwidth characters, one for the rest. An approximation of
 * wcwidth, enough to keep the table's columns straight.
 */
function charWidth(char: string): number {
  if (/^(?:\p{Mn}|\p{Me}|[\u200B-\u200D]|[\uFE00-\uFE0F])$/u.test(char)) return 0
  if (/^\p{Emoji_Presentation}$/u.test(char)) return 2
  const code = char.codePointAt(0) ?? 0
  const wide =
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x20000 && code <= 0x3fffd)
  return wide ? 2 : 1
}

/** The terminal columns `text` (one line, no control characters) takes. */
export function displayWidth(text: string): number {
  let width = 0
  for (const char of text) width += charWidth(char)
  return width
}

function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)))
}

function padStart(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - displayWidth(text))) + text
}

/** Cuts `text` to at most `width` columns, with `…` when cut. */
export function truncateToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text
  let out = ''
  let used = 0
  for (const char of text) {
    const w = charWidth(char)
    if (used + w > width - 1) break
    out += char
    used += w
  }
  return `${out}…`
}

/**
 * Breaks one line of text into lines of at most `width` columns at spaces;
 * a word longer than the width is cut where it has to be.
 */
export function wrapToWidth(text: string, width: number): string[] {
  if (width < 1 || displayWidth(text) <= width) return [text]
  const lines: string[] = []
  let line = ''
  let used = 0
  const push = (): void => {
    lines.push(line)
    line = ''
    used = 0
  }
  for (const word of text.split(' ')) {
    const w = displayWidth(word)
    if (used > 0 && used + 1 + w <= width) {
      line += ` ${word}`
      used += 1 + w
      continue
    }
    if (used > 0) push()
    if (w <= width) {
      line = word
      used = w
      continue
    }
    for (const char of word) {
      const cw = charWidth(char)
      if (used + cw > width) push()
      line += char
      used += cw
    }
  }
  if (used > 0 || lines.length === 0) push()
  return lines
}

export type TerminalLayout = {
  /** The terminal's columns; null for no limit (a pipe or a log: one line per row). */
  width: number | null
}

/**
 * Narrower than this beside the other columns and each reason goes on lines
 * of its own under its row instead, indented and wrapped to the full width.
 */
const MIN_REASON_WIDTH = 30
const STACKED_INDENT = '    '

/**
 * The review's table as aligned plain text: the same columns and cells as
 * the posted review (`reviewRowCells`), each flattened to one line. With a
 * width, the reason (the last column) wraps under its own column; when the
 * other columns leave it too little room, it goes under its row instead.
 */
export function renderTerminalTable(rows: readonly Row[], layout: TerminalLayout): string {
  const header = [...REVIEW_TABLE_HEADER]
  const body = rows.map((row) => reviewRowCells(row).map(flattenCellText))
  const fixedCount = header.length - 1
  const widths = header.map((title, i) => Math.max(displayWidth(title), ...body.map((c) => displayWidth(c[i] ?? ''))))
  const fixed = (cells: readonly string[]): string =>
    cells
      .slice(0, fixedCount)
      .map((cell, i) => (NUMERIC_COLUMNS.has(header[i] ?? '') ? padStart : padEnd)(cell, widths[i] ?? 0))
      .join(COLUMN_GAP)
  const reasonStart = widths.slice(0, fixedCount).reduce((sum, w) => sum + w + COLUMN_GAP.length, 0)
  const rule = widths.map((w) => '-'.repeat(w))
  const width = layout.width
  if (width !== null && width - reasonStart < MIN_REASON_WIDTH) {
    const under = (text: string): string[] =>
      wrapToWidth(text, Math.max(MIN_REASON_WIDTH, width - STACKED_INDENT.length)).map(
        (line) => `${STACKED_INDENT}${line}`,
      )
    return [
      fixed(header),
      ...under(header[fixedCount] ?? ''),
      fixed(rule),
      ...body.flatMap((cells) => [fixed(cells).trimEnd(), ...under(cells[fixedCount] ?? '')]),
    ].join('\n')
  }
  const reasonWidth = width === null ? null : width - reasonStart
  const line = (cells: readonly string[]): string[] => {
    const reason = cells[fixedCount] ?? ''
    const [first = '', ...rest] = reasonWidth === null ? [reason] : wrapToWidth(reason, reasonWidth)
    const indent = ' '.repeat(reasonStart)
    return [`${fixed(cells)}${COLUMN_GAP}${first}`.trimEnd(), ...rest.map((text) => `${indent}${text}`)]
  }
  // The reason's rule as wide as its heading: the reasons' lengths vary too much to underline.
  rule[fixedCount] = '-'.repeat(displayWidth(header[fixedCount] ?? ''))
  return [...line(header), ...line(rule), ...body.flatMap(line)].join('\n')
}

export type CheckOutcome = {
  rows: readonly Row[]
  overall: Overall
  /** Why there is no verdict; null for approve and request changes. */
  reason: string | null
  /** What the run's redaction took out; null or absent when the classifier didn't say. */
  redaction?: RedactionSummary | null
}

/**
 * The whole report: the table when there are rows, what was redacted, then
 * for no verdict the reason, and last the overall verdict on its own line.
 * Ends with a newline.
 */
export function renderCheckReport(outcome: CheckOutcome, layout: TerminalLayout): string {
  const parts: string[] = []
  if (outcome.rows.length > 0) parts.push(renderTerminalTable(outcome.rows, layout), '')
  const redaction = outcome.redaction ?? null
  const headline = redaction === null ? null : redactionHeadline(redaction)
  if (redaction !== null && headline !== null) {
    const wrap = (text: string) => (layout.width === null ? [text] : wrapToWidth(text, layout.width))
    parts.push(...wrap(`Secrets redacted: ${flattenCellText(headline)}`))
    for (const place of redactionPlaceLines(redaction)) parts.push(...wrap(`- ${flattenCellText(place)}`))
    parts.push('')
  }
  if (outcome.reason !== null) {
    const reason = `No verdict: ${flattenCellText(outcome.reason)}`
    parts.push(...(layout.width === null ? [reason] : wrapToWidth(reason, layout.width)))
  }
  parts.push(OVERALL_TEXT[outcome.overall])
  return `${parts.join('\n')}\n`
}

/** A row as `--json` prints it: every field of the review's row, no token counts. */
export type CheckJsonRow = Omit<Row, 'usage'>

export function checkJsonRow(row: Row): CheckJsonRow {
  const { usage: _usage, ...rest } = row
  return rest
}

/** A rule's name or a detail, safe for one terminal line and capped so a progress line stays short. */
export function plainLabel(text: string, maxColumns = 60): string {
  return truncateToWidth(flattenCellText(text), maxColumns)
}

/** The line a finished question prints while the run goes on. */
export function rowProgressLine(row: Row, done: number, total: number): string {
  const name = JSON.stringify(plainLabel(row.name))
  const counts = `${done} of ${total} done`
  if (row.error !== null || row.verdict === null) {
    return `no answer for ${name} (${counts}): ${ERROR_KIND_LABEL[row.error?.kind ?? 'runtime']}`
  }
  return `answered ${name} (${counts}): ${VERDICT_LABEL[row.verdict]}, certainty ${row.certainty ?? '—'}`
}

/**
 * The line a question's start prints. The first of a run asks alone (the
 * service's warm-first order), so the rest read its context from the cache.
 */
export function questionProgressLine(name: string, started: number, total: number): string {
  const label = JSON.stringify(plainLabel(name))
  const warm = started === 1 && total > 1 ? '; the others wait for it, then read its context from the cache' : ''
  return `asking ${label} (${started} of ${total}${warm})`
}
