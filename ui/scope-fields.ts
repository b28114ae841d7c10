/**
 * The editor's fields for a rule's scope and mode (docs/behaviour.md,
 * "Scoping a rule to its files"): `paths` one pattern a line, `mode` a
 * choice. Checked as typed with the rules file's own checks (the patterns by
 * core/repo-files/path-glob.ts, bundled as it is), like the other fields.
 */
import { MODES } from '../core/wire/row-schemas.ts'
import type { Classification } from '../core/wire/types.ts'
import type { DraftEntry } from './bench-store.ts'
import { h } from './dom.ts'

export const SCOPE_HINTS = {
  paths:
    'Paths (optional): the files the rule is about, one glob a line, as in .gitignore (*.sql, db/migrations/**, !docs/**); empty: every file. A PR with no file in scope is not asked.',
  mode: 'Mode: blocking (a counted failure requests changes) or advisory (shown and listed, never blocks).',
} as const

/** The two controls of one entry, filled from a rule or a draft. */
export function scopeControls(value: Classification | DraftEntry): {
  paths: HTMLTextAreaElement
  mode: HTMLSelectElement
} {
  const paths = h('textarea', { rows: 2, spellcheck: 'false', autocomplete: 'off', placeholder: 'every file' })
  paths.value = typeof value.paths === 'string' ? value.paths : (value.paths ?? []).join('\n')
  const mode = h('select', {}, ...MODES.map((m) => h('option', { value: m }, m)))
  mode.value = value.mode === 'advisory' ? 'advisory' : 'blocking'
  return { paths, mode }
}

/**
 * The two keys as the checks take them: `paths` the non-blank lines, trimmed (none:
 * the key left out, every file), `mode` left out when blocking, as a file
 * written by hand would.
 */
export function scopeValues(inputs: { paths: HTMLTextAreaElement; mode: HTMLSelectElement }): Record<string, unknown> {
  // One pattern a line, its ends trimmed: a space typed at the end of a line is never meant.
  const lines = inputs.paths.value
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
  return {
    ...(lines.length === 0 ? {} : { paths: lines }),
    ...(inputs.mode.value === 'blocking' ? {} : { mode: inputs.mode.value }),
  }
}
