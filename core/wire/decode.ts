/**
 * Reading JSON from another process against a schema of schemas.ts: check
 * it, say where it doesn't fit, and keep only the fields the schema names,
 * so what a newer build added never travels further than the decoder.
 */
import type { Static, TSchema } from '@sinclair/typebox'
import { Value, type ValueError } from '@sinclair/typebox/value'
import { err, ok, type Result } from '../base/result.ts'

/** Where a value first doesn't fit: the field as a dotted path (`''` for the whole value) and what was expected. */
export type SchemaMismatch = { field: string; message: string }

/** A union's own error names only the union; the branch that went deepest names the field that doesn't fit. */
function deepestPath(error: ValueError): string {
  let deepest = error.path
  for (const branch of error.errors) {
    for (const inner of branch) {
      const path = deepestPath(inner)
      if (path.split('/').length > deepest.split('/').length) deepest = path
    }
  }
  return deepest
}

/** The first mismatch, or null when the value fits. */
export function schemaMismatch(schema: TSchema, value: unknown): SchemaMismatch | null {
  const first = Value.Errors(schema, value).First()
  if (first === undefined) return null
  return {
    field: deepestPath(first).replace(/^\//, '').replaceAll('/', '.'),
    message: first.message.toLowerCase(),
  }
}

/** The mismatch as one line, `what: field: expected …`, with `whole` naming the value itself. */
export function describeMismatch(mismatch: SchemaMismatch, what: string, whole: string): string {
  return `${what}: ${mismatch.field === '' ? whole : mismatch.field}: ${mismatch.message}`
}

/**
 * Whether a value fits the schema, as a type guard, and nothing more: what
 * the pages check the controller's answers with. The page bundles only
 * TypeBox's check; {@link schemaMismatch}'s messages would add some 17 KB
 * for answers of the very controller that served the page.
 */
export function fitsSchema<S extends TSchema>(schema: S): (value: unknown) => value is Static<S> {
  return (value): value is Static<S> => Value.Check(schema, value)
}

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** JSON text as a value, or `<what> is not valid JSON`. */
export function parseJsonText(text: string, what: string): Result<unknown, string> {
  try {
    return ok(JSON.parse(text))
  } catch {
    return err(`${what} is not valid JSON`)
  }
}

/**
 * The value checked against the schema and copied with only the fields the
 * schema names; the error is {@link describeMismatch}'s line.
 */
export function decodeWith<S extends TSchema>(schema: S, value: unknown, what: string): Result<Static<S>, string> {
  if (!Value.Check(schema, value)) {
    const mismatch = schemaMismatch(schema, value) ?? { field: '', message: "doesn't fit" }
    return err(describeMismatch(mismatch, what, 'the document'))
  }
  return ok(keepKnownFields(schema, value))
}

/** A copy of a value that fits the schema, with only the fields the schema names. */
export function keepKnownFields<S extends TSchema>(schema: S, value: Static<S>): Static<S> {
  // Clean only removes properties the schema doesn't name, so the copy still fits it.
  return Value.Clean(schema, structuredClone(value)) as Static<S>
}
