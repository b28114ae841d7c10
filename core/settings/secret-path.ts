/**
 * The one rule for secret paths and field names, shared by the OpenBao store
 * and the secrets directory so a path that works in one works in the other
 * (an operator moving from one machine to bao keeps every path).
 *
 * A path is `/`-separated segments; a field is one segment. The directory
 * store turns them into file names and bao into URL segments, so `..`, `.`
 * and empty segments (which also rule out absolute paths and `a//b`) would
 * let a caller step outside the store or name a different secret than it
 * meant. Control characters never belong in a name and could break a log line.
 */
import { appError } from '../base/errors.ts'

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/

function segmentProblem(segment: string): string | null {
  if (segment === '') return 'has an empty segment'
  if (segment === '.' || segment === '..') return `has a "${segment}" segment`
  if (CONTROL_CHARACTER.test(segment)) return 'has a control character'
  return null
}

/**
 * The segments of a `/`-separated name (`label` says what it is in the
 * message, e.g. "secret path"), or `invalid` naming what is wrong.
 */
export function nameSegments(name: string, label: string): string[] {
  const segments = name.split('/')
  for (const segment of segments) {
    const problem = segmentProblem(segment)
    if (problem !== null) throw appError('invalid', `${label} ${quoteName(name)} ${problem}`)
  }
  return segments
}

/** The secret path's segments, after checking the path and the field; `invalid` otherwise. */
export function secretPathSegments(path: string, field: string): string[] {
  const segments = nameSegments(path, 'secret path')
  const fieldProblem = field.includes('/') ? 'has a "/"' : segmentProblem(field)
  if (fieldProblem !== null) throw appError('invalid', `secret field ${quoteName(field)} ${fieldProblem}`)
  return segments
}

function quoteName(name: string): string {
  return CONTROL_CHARACTER.test(name) ? '(name with a control character)' : JSON.stringify(name)
}
