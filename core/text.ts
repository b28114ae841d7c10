/**
 * Cutting and cleaning text from outside (a model's reason, a forge's error,
 * another process's detail) before it goes into a message, a table or a log:
 * one way to cut, one way to make it one line, one way to redact.
 */

export const ELLIPSIS = '…'
export const REDACTED = '[redacted]'

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

/** `text` with every non-empty secret replaced, the longest first so a secret holding another goes whole. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret !== '') out = out.replaceAll(secret, REDACTED)
  }
  return out
}
