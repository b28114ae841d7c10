/**
 * A diff of an exact size made in pieces, so the fakes can serve one far
 * larger than a test would hold in memory: one new file whose lines are all
 * `+xxxx…`. The memory forge builds the text only when it is under the read
 * cap; the fake forge streams the pieces.
 */

const HEADER = 'diff --git a/huge.txt b/huge.txt\nnew file mode 100644\n--- /dev/null\n+++ b/huge.txt\n@@ -0,0 +1 @@\n'
const LINE = `+${'x'.repeat(78)}\n`
/** About 64 KiB of whole lines. */
const BODY_PIECE = new TextEncoder().encode(LINE.repeat(819))

/** Exactly `bytes` bytes of the diff, in pieces of at most ~64 KiB. */
export function* generatedDiffChunks(bytes: number): Generator<Uint8Array> {
  const header = new TextEncoder().encode(HEADER)
  let left = bytes
  if (left <= header.byteLength) {
    yield header.slice(0, left)
    return
  }
  yield header
  left -= header.byteLength
  while (left > 0) {
    const piece = left >= BODY_PIECE.byteLength ? BODY_PIECE : BODY_PIECE.slice(0, left)
    yield piece
    left -= piece.byteLength
  }
}

/** The same diff as one string; for sizes a test can hold. */
export function generatedDiffText(bytes: number): string {
  const decoder = new TextDecoder()
  let text = ''
  for (const piece of generatedDiffChunks(bytes)) text += decoder.decode(piece, { stream: true })
  return text + decoder.decode()
}
