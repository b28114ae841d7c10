/**
 * An attempt: one try-out run from the page, as the page follows it, and
 * what changed since the attempt before it: the classifications edited, and
 * the verdicts that differ on the same PR and rule.
 */
import type { Classification, TryOutView, Verdict } from '../core/types.ts'
import { verdictLabel } from './format.ts'
import type { RowNote } from './rows.ts'

export type AttemptMode = 'pull' | 'repeat' | 'replay'

export type Attempt = {
  number: number
  id: string
  mode: AttemptMode
  repo: string
  /** The PR, or null for a replay. */
  pr: number | null
  /** k for a repeat, N for a replay, 1 otherwise. */
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

/** Every verdict an attempt shows, by PR and classification; a repeat's are not compared (its first answer says little). */
export function verdictsOf(attempt: Attempt): Map<VerdictKey, Verdict | null> {
  const verdicts = new Map<VerdictKey, Verdict | null>()
  const view = attempt.view
  if (view === null || attempt.mode === 'repeat') return verdicts
  if (attempt.mode === 'replay') {
    for (const line of view.replay?.pulls ?? []) {
      for (const row of line.rows ?? []) verdicts.set(keyOf(line.pr, row.name), row.verdict)
    }
  } else if (view.pr !== null) {
    for (const row of view.rows ?? []) verdicts.set(keyOf(view.pr, row.name), row.verdict)
  }
  return verdicts
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

/** The notes of an attempt's rows: which verdicts changed since the attempt before, on the same PR. */
export function notesFor(attempt: Attempt, previous: Attempt | null): Map<string, RowNote> {
  const notes = new Map<string, RowNote>()
  if (previous === null || attempt.view === null || attempt.mode === 'repeat' || attempt.view.pr === null) return notes
  const before = verdictsOf(previous)
  for (const row of attempt.view.rows ?? []) {
    const key = keyOf(attempt.view.pr, row.name)
    if (!before.has(key)) continue
    const was = before.get(key) ?? null
    if (was !== row.verdict) notes.set(row.name, { kind: 'changed', text: `changed (was ${verdictLabel(was)})` })
  }
  return notes
}
