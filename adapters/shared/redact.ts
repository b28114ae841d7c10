/**
 * Keeping key material out of anything that leaves an adapter: error
 * details, log fields, failure lines. Each adapter knows which secrets it
 * holds (an API key, a token, a server password) and passes them in.
 */
export const REDACTED = '[redacted]'

/** `text` with every non-empty secret replaced, the longest first so a secret holding another goes whole. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret !== '') out = out.replaceAll(secret, REDACTED)
  }
  return out
}

/** Whitespace runs folded to one space, and at most `maxChars` characters with `…` when cut. Redact first, so a cut can't leave half a secret behind. */
export function oneLineDetail(text: string, maxChars: number): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length <= maxChars ? line : `${line.slice(0, maxChars - 1)}…`
}
