/**
 * Reading a PR's bytes as text, the one way every path does it: the
 * service reads the forge's diff with a streaming `TextDecoder`, `check`
 * reads git's output the same way, and `prompt` its --diff file, so the
 * three see the same characters and `prompt` shows what the service sends.
 * Invalid UTF-8 (a zlib object, an `.ai` file, a snapshot git took for
 * text) is not refused: each invalid sequence becomes U+FFFD, as the WHATWG
 * decoder replaces it, and the tools say so on stderr (issue 27).
 */

export type DecodedText = {
  text: string
  /** False when some bytes were not UTF-8 and were read as U+FFFD. */
  valid: boolean
}

export function decodeUtf8(bytes: Uint8Array): DecodedText {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), valid: true }
  } catch {
    return { text: new TextDecoder('utf-8').decode(bytes), valid: false }
  }
}

/** The one line `prompt` and `check` print on stderr for text that was not UTF-8; `what` names it. */
export function invalidUtf8Note(what: string): string {
  return `${what} is not valid UTF-8: each invalid byte sequence is read as U+FFFD (\u{fffd}), as the service reads a PR's diff`
}
