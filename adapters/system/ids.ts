/** Ids from the platform's cryptographic random source. */
import type { Ids } from '../../ports/ids.ts'

export function createRandomIds(): Ids {
  return {
    // A v4 UUID carries 122 random bits: a try-out's id is in its result URL, so it must not be guessable.
    runId() {
      return crypto.randomUUID()
    },
    hex8() {
      return toHex(crypto.getRandomValues(new Uint8Array(4)))
    },
  } satisfies Ids
}

function toHex(bytes: Uint8Array): string {
  let text = ''
  for (const byte of bytes) text += byte.toString(16).padStart(2, '0')
  return text
}
