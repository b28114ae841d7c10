import { err, ok, type Result } from '../base/result.ts'
import { capLine, capText } from '../base/text.ts'
import { ANSWER_REASON_MAX_CHARS } from '../wire/limits.ts'
import type { Answer, Verdict } from '../wire/types.ts'

/**
 * Parsing the model's answer. The spec (and docs/decisions.md, "prompt framing")
 * accepts only exactly the JSON object `{ verdict, certainty, reason }`;
 * anything else is "no answer", so a run with it never approves.
 *
 * Decisions where the spec is silent:
 * - JSON whitespace (space, tab, CR, LF) around the object is accepted: the
 *   CLI's result text may end with a newline, and it changes no meaning.
 *   Anything else around it (prose, a code fence, a BOM) is malformed.
 * - `certainty` is judged by its value, not its spelling: JSON has one number
 *   type, so `92`, `92.0` and `9.2e1` are the same answer. The value must be
 *   a whole number from 0 to 100; `-0` reads as 0.
 * - `reason` may be empty: the spec asks for the key, and an empty reason
 *   changes no verdict.
 * - Details name what is wrong and quote at most a short, flattened snippet,
 *   never the model's whole text.
 */

const ANSWER_KEYS = ['verdict', 'certainty', 'reason'] as const
const VERDICTS: readonly Verdict[] = ['match', 'no-match', 'not-applicable']
const SNIPPET_MAX_CHARS = 80

/** Reads one model answer; the error is a short one-line detail. */
export function parseAnswer(text: string): Result<Answer, string> {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return err(`not a JSON object: ${snippet(text)}`)
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return err(`not a JSON object: ${snippet(text)}`)
  }
  const record: Record<string, unknown> = { ...parsed }
  const keys = Object.keys(record)
  const unknownKeys = keys.filter((key) => !isAnswerKey(key))
  if (unknownKeys.length > 0) {
    return err(`unexpected key ${snippet(JSON.stringify(unknownKeys[0]))}`)
  }
  const missing = ANSWER_KEYS.filter((key) => !keys.includes(key))
  if (missing.length > 0) {
    return err(`missing key ${missing.map((key) => `"${key}"`).join(', ')}`)
  }
  // JSON.parse keeps the last of two equal keys without a word; an answer
  // that says two things is not the one object the spec asks for.
  if (countTopLevelMembers(text) !== ANSWER_KEYS.length) {
    return err('duplicate key')
  }

  const { verdict, certainty, reason } = record
  if (!isVerdict(verdict)) {
    return err(`unknown verdict ${snippet(JSON.stringify(verdict) ?? String(verdict))}`)
  }
  if (typeof certainty !== 'number' || !Number.isInteger(certainty) || certainty < 0 || certainty > 100) {
    return err(
      `certainty is not a whole number from 0 to 100: ${snippet(JSON.stringify(certainty) ?? String(certainty))}`,
    )
  }
  if (typeof reason !== 'string') {
    return err(`reason is not a string: ${snippet(JSON.stringify(reason) ?? String(reason))}`)
  }
  // `+ 0` turns -0 into 0, so `-0` never shows as a certainty.
  return ok({ verdict, certainty: certainty + 0, reason: capReason(reason) })
}

/** Caps a reason at 500 characters (spec: 499 and `…`); see {@link capText} for how it cuts. */
export function capReason(reason: string): string {
  return capText(reason, ANSWER_REASON_MAX_CHARS)
}

function isAnswerKey(key: string): key is (typeof ANSWER_KEYS)[number] {
  return ANSWER_KEYS.some((known) => known === key)
}

function isVerdict(value: unknown): value is Verdict {
  return VERDICTS.some((verdict) => verdict === value)
}

/**
 * Counts the members of the top-level object in text JSON.parse already
 * accepted, so only strings (with their escapes) and nesting need tracking.
 */
function countTopLevelMembers(text: string): number {
  let depth = 0
  let inString = false
  let commas = 0
  let empty = true
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]
    if (inString) {
      if (char === '\\') i += 1
      else if (char === '"') inString = false
      continue
    }
    if (char === '"') {
      inString = true
      if (depth === 1) empty = false
    } else if (char === '{' || char === '[') {
      depth += 1
    } else if (char === '}' || char === ']') {
      depth -= 1
    } else if (char === ',' && depth === 1) {
      commas += 1
    }
  }
  return empty ? 0 : commas + 1
}

/** A short, one-line quote of untrusted text for an error detail. */
function snippet(text: string): string {
  const flat = capLine(text, SNIPPET_MAX_CHARS)
  return flat === '' ? '(empty)' : flat
}
