/**
 * The rows of a run as the review table lays them out: classification,
 * polarity, verdict, certainty, threshold, counted, and the reason or the
 * row's error. Every cell is text. On a narrow window each row stacks, its
 * cells labelled by their column (CSS reads the `data-label`).
 */
import type { Classification, RecordedRow } from '../core/wire/types.ts'
import { type Child, h } from './dom.ts'
import { countedLabel, rowErrorText, verdictLabel } from './format.ts'

export const ROW_COLUMNS = [
  'Classification',
  'Polarity',
  'Verdict',
  'Certainty',
  'Threshold',
  'Counted',
  'Reason',
] as const

/** A mark on a row: `outcome` and `crossed` change what the review does, `changed` only the raw verdict. */
export type RowNote = { text: string; kind: 'outcome' | 'crossed' | 'changed' | 'info' }

export type RowsTableOptions = {
  caption: string
  /** Four columns, for a narrower place: polarity and threshold under the name, counted under the verdict. */
  compact?: boolean
  /** Classifications still running show as pending lines, in the order sent. */
  pending?: readonly Classification[]
  /** A note under a row's verdict (e.g. that it changed since the previous attempt), by classification name. */
  notes?: ReadonlyMap<string, readonly RowNote[]>
}

export function noteMark(note: RowNote): HTMLElement {
  return h('span', { class: `note note--${note.kind}` }, note.text)
}

export function verdictBadge(row: Pick<RecordedRow, 'verdict' | 'counted' | 'fails'>): HTMLElement {
  const tone = row.verdict === null ? 'none' : row.counted ? (row.fails ? 'fails' : 'passes') : 'uncounted'
  return h('span', { class: `verdict verdict--${tone}` }, verdictLabel(row.verdict))
}

function cell(label: string, ...children: Child[]): HTMLTableCellElement {
  return h('td', { 'data-label': label }, ...children)
}

const COMPACT_COLUMNS = ['Classification', 'Verdict', 'Certainty', 'Reason'] as const

function compactLine(row: RecordedRow, notes: readonly RowNote[] = []): HTMLTableRowElement {
  const reason = row.error === null ? (row.reason ?? '') : rowErrorText(row)
  return h(
    'tr',
    { class: row.error === null ? undefined : 'row--error' },
    h(
      'th',
      { scope: 'row', 'data-label': 'Classification' },
      row.name,
      h(
        'span',
        { class: 'rule-terms' },
        `${row.polarity}, threshold ${row.threshold}${row.mode === 'advisory' ? ', advisory' : ''}`,
      ),
    ),
    cell(
      'Verdict',
      verdictBadge(row),
      h('span', { class: 'rule-terms' }, 'counted: ', countedCell(row)),
      ...notes.map(noteMark),
    ),
    cell('Certainty', row.certainty === null ? '—' : String(row.certainty)),
    h('td', { 'data-label': 'Reason', class: 'reason' }, reason),
  )
}

function compactPending(classification: Classification): HTMLTableRowElement {
  return h(
    'tr',
    { class: 'row--pending' },
    h(
      'th',
      { scope: 'row', 'data-label': 'Classification' },
      classification.name,
      h('span', { class: 'rule-terms' }, `${classification.polarity}, threshold ${classification.threshold}`),
    ),
    cell('Verdict', h('span', { class: 'verdict verdict--pending' }, 'running…')),
    cell('Certainty', '—'),
    h('td', { 'data-label': 'Reason', class: 'reason' }, 'Waiting for the classifier.'),
  )
}

export function rowLine(row: RecordedRow, notes: readonly RowNote[] = []): HTMLTableRowElement {
  const reason = row.error === null ? (row.reason ?? '') : rowErrorText(row)
  return h(
    'tr',
    { class: row.error === null ? undefined : 'row--error' },
    h('th', { scope: 'row', 'data-label': 'Classification' }, row.name),
    cell('Polarity', row.mode === 'advisory' ? `${row.polarity}, advisory` : row.polarity),
    cell('Verdict', verdictBadge(row), ...notes.map(noteMark)),
    cell('Certainty', row.certainty === null ? '—' : String(row.certainty)),
    cell('Threshold', String(row.threshold)),
    cell('Counted', countedCell(row)),
    h('td', { 'data-label': 'Reason', class: 'reason' }, reason),
  )
}

function countedCell(row: RecordedRow): HTMLElement {
  const label = countedLabel(row)
  if (!row.counted) return h('span', { class: 'counted counted--no' }, label)
  const tone = row.fails ? (row.blocks === false ? 'advisory' : 'fails') : 'passes'
  return h('span', { class: `counted counted--${tone}` }, label)
}

function pendingLine(classification: Classification): HTMLTableRowElement {
  return h(
    'tr',
    { class: 'row--pending' },
    h('th', { scope: 'row', 'data-label': 'Classification' }, classification.name),
    cell('Polarity', classification.polarity),
    cell('Verdict', h('span', { class: 'verdict verdict--pending' }, 'running…')),
    cell('Certainty', '—'),
    cell('Threshold', String(classification.threshold)),
    cell('Counted', '—'),
    h('td', { 'data-label': 'Reason', class: 'reason' }, 'Waiting for the classifier.'),
  )
}

export function rowsTable(rows: readonly RecordedRow[], options: RowsTableOptions): HTMLTableElement {
  const finished = new Set(rows.map((row) => row.name))
  const pending = (options.pending ?? []).filter((classification) => !finished.has(classification.name))
  const compact = options.compact === true
  const columns: readonly string[] = compact ? COMPACT_COLUMNS : ROW_COLUMNS
  return h(
    'table',
    { class: compact ? 'rows rows--compact' : 'rows' },
    h('caption', { class: 'visually-hidden' }, options.caption),
    h('thead', {}, h('tr', {}, ...columns.map((column) => h('th', { scope: 'col' }, column)))),
    h(
      'tbody',
      {},
      ...rows.map((row) => (compact ? compactLine : rowLine)(row, options.notes?.get(row.name))),
      ...pending.map((classification) => (compact ? compactPending : pendingLine)(classification)),
    ),
  )
}
