/**
 * A reason in the page, not only in a tooltip: a `details` a keyboard opens
 * (Enter or Space on its summary), the reason or the row's error as text.
 */
import type { RecordedRow } from '../core/wire/types.ts'
import { h } from './dom.ts'
import { rowErrorText } from './format.ts'

export function reasonDetails(row: RecordedRow, summary = 'reason'): HTMLElement | null {
  const text = row.error === null ? (row.reason ?? '') : rowErrorText(row)
  if (text === '') return null
  return h('details', { class: 'reason-details' }, h('summary', {}, summary), h('p', { class: 'reason' }, text))
}
