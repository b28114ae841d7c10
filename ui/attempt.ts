/**
 * An attempt: one try-out run from the page, as the page follows it, and
 * what changed since the attempt before it: the classifications edited, and
 * the verdicts that differ on the same PR and rule.
 */
import type { Classification, RecordedRow, TryOutView } from '../core/wire/types.ts'
import { verdictLabel } from './format.ts'
import type { RowNote } from './rows.ts'

export type AttemptMode = 'pull' | 'repeat' | 'replay' | 'examples'

export type Attempt = {
  number: number
  id: string
  mode: AttemptMode
  repo: string
  /** The PR, or null for a replay or the labelled PRs. */
  pr: number | null
  /** k for a repeat, N for a replay, answers per labelled PR for the examples, 1 otherwise. */
  count: number
  sent: Classification[]
  view: TryOutView | null
  /** Why the result can't be read any more (expired, or the controller restarted). */
  lost: string | null
  /** Why the last read failed, while the page keeps trying. */
  trouble: string | null
}

export type VerdictKey = string

export function keyOf(pr: number, name: string): VerdictKey {
  return `${pr}\u0000${name}`
}

/** Every row an attempt shows, by PR and classification; a repeat's are not compared (its first answer says little). */
export function rowsOf(attempt: Attempt): Map<VerdictKey, RecordedRow> {
  const rows = new Map<VerdictKey, RecordedRow>()
  const view = attempt.view
  if (view === null || attempt.mode === 'repeat' || attempt.mode === 'examples') return rows
  if (attempt.mode === 'replay') {
    for (const line of view.replay?.pulls ?? []) {
      for (const row of line.rows ?? []) rows.set(keyOf(line.pr, row.name), row)
    }
  } else if (view.pr !== null) {
    for (const row of view.rows ?? []) rows.set(keyOf(view.pr, row.name), row)
  }
  return rows
}

/** A row's counted outcome in words: what it does to the review. */
export function outcomeWords(row: Pick<RecordedRow, 'counted' | 'fails'>): string {
  return row.counted ? (row.fails ? 'fails' : 'passes') : 'uncounted'
}

/**
 * What changed in a row since the same PR and rule in the attempt before,
 * most telling first: its counted outcome (what the review does), a
 * certainty that crossed the threshold, and the raw verdict.
 */
export function changeNotes(was: RecordedRow | undefined, row: RecordedRow): RowNote[] {
  if (was === undefined) return []
  const notes: RowNote[] = []
  if (outcomeWords(was) !== outcomeWords(row)) {
    notes.push({ kind: 'outcome', text: `outcome changed: ${outcomeWords(was)} → ${outcomeWords(row)}` })
  }
  if (was.certainty !== null && row.certainty !== null) {
    const threshold = row.threshold
    if (was.certainty >= threshold !== row.certainty >= threshold) {
      notes.push({ kind: 'crossed', text: `certainty ${was.certainty} → ${row.certainty} against ${threshold}` })
    }
  }
  if (was.verdict !== row.verdict) notes.push({ kind: 'changed', text: `changed (was ${verdictLabel(was.verdict)})` })
  return notes
}

/** What changed in the classifications since the attempt before, by name. */
export function edits(current: Attempt, previous: Attempt | null): string[] {
  if (previous === null) return []
  const before = new Map(previous.sent.map((classification) => [classification.name, classification]))
  return current.sent.flatMap((classification) => {
    const old = before.get(classification.name)
    if (old === undefined) return [`${classification.name} (new)`]
    const changed = (['description', 'threshold', 'polarity'] as const).filter(
      (key) => old[key] !== classification[key],
    )
    return changed.length > 0 ? [`${classification.name} (${changed.join(', ')})`] : []
  })
}

/** The notes of an attempt's rows: what changed since the attempt before, on the same PR. */
export function notesFor(attempt: Attempt, previous: Attempt | null): Map<string, RowNote[]> {
  const notes = new Map<string, RowNote[]>()
  if (previous === null || attempt.view === null || attempt.mode === 'repeat' || attempt.view.pr === null) return notes
  const before = rowsOf(previous)
  for (const row of attempt.view.rows ?? []) {
    const found = changeNotes(before.get(keyOf(attempt.view.pr, row.name)), row)
    if (found.length > 0) notes.set(row.name, found)
  }
  return notes
}
