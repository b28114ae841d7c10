/**
 * Cutting and cleaning text from outside (a model's reason, a forge's error,
 * another process's detail) before it goes into a message, a table or a log:
 * one way to cut, one way to make it one line, one way to redact.
 */

export const ELLIPSIS = '…'
export const REDACTED = '[redacted]'

/**
 * The most characters of a detail that quotes input (a rules file's problem,
 * a settings field's, a refusal's reason): a few sentences. A bad value of
 * any size then makes a detail of this size in a response, a review, a run
 * record and the run store.
 */
export const DETAIL_MAX_CHARS = 300
/** The most characters of one outside value quoted inside a detail, so the detail's own words survive its cap. */
export const QUOTED_MAX_CHARS = 100

/**
 * What a reader can't see, or what moves the text around it: controls, format
 * characters (zero-width, bidi), lone surrogates, line and paragraph separators.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu

/**
 * At most `max` characters: a longer text becomes its first `max - 1` and
 * `…`. Characters are Unicode code points, so the bound holds whatever the
 * text is (a grapheme count would let one letter with thousands of combining
 * marks through), and a surrogate pair is never split. The cut backs off to
 * the last grapheme-cluster boundary so that an emoji ZWJ sequence, a flag or
 * a letter with its accents isn't split; only a single cluster longer than
 * the whole budget is cut inside.
 */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text // UTF-16 units never undercount code points
  const budget = max - 1
  let total = 0
  for (const _ of text) {
    total += 1
    if (total > max) break
  }
  if (total <= max) return text

  let kept = ''
  let keptCount = 0
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })
  for (const { segment } of segmenter.segment(text)) {
    const size = [...segment].length
    if (keptCount + size > budget) break
    kept += segment
    keptCount += size
  }
  if (keptCount === 0) kept = [...text].slice(0, budget).join('')
  return `${kept}${ELLIPSIS}`
}

/** Every run of whitespace (line breaks and tabs included) as one space, the ends trimmed. */
export function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim()
}

/** {@link oneLine}, then {@link capText}: a short one-line detail. Redact first, so a cut can't leave half a secret behind. */
export function capLine(text: string, max: number): string {
  return capText(oneLine(text), max)
}

/** A detail that may quote input, cut to {@link DETAIL_MAX_CHARS}. */
export function capDetail(text: string): string {
  return capText(text, DETAIL_MAX_CHARS)
}

/** A code point as Unicode writes it: `U+200B`, `U+1F600`. */
export function codePointName(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`
}

/** `\u200b` for each UTF-16 unit of `char`. */
function unicodeEscape(char: string): string {
  return Array.from({ length: char.length }, (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).join(
    '',
  )
}

/**
 * An outside value quoted in a message: a JSON string of at most
 * {@link QUOTED_MAX_CHARS} characters between its quotes, cut with `…`, and
 * every invisible character escaped as `\uXXXX` so the message shows what
 * is there (JSON.stringify escapes only the C0 controls, and a bidi override
 * would reorder the message around it). A cut never splits an escape.
 */
export function quoteInput(text: string): string {
  const inner = JSON.stringify(capText(text, QUOTED_MAX_CHARS)).slice(1, -1).replace(INVISIBLE, unicodeEscape)
  // An escape is its characters; anything else one character per code point, as capText counts.
  const pieces = [...inner.matchAll(/\\u[0-9a-f]{4}|\\.|[^\\]/gu)].map(([piece]) => piece)
  const size = (piece: string): number => (piece.startsWith('\\') ? piece.length : 1)
  if (pieces.reduce((total, piece) => total + size(piece), 0) <= QUOTED_MAX_CHARS) return `"${inner}"`
  let kept = ''
  let used = 0
  for (const piece of pieces) {
    if (used + size(piece) > QUOTED_MAX_CHARS - 1) break
    kept += piece
    used += size(piece)
  }
  return `"${kept}${ELLIPSIS}"`
}

/** `text` with every non-empty secret replaced, the longest first so a secret holding another goes whole. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret !== '') out = out.replaceAll(secret, REDACTED)
  }
  return out
}

/** `1 rule`, `2 rules`: a count and its noun, `many` for any count but one (`false passes`). */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`
}
