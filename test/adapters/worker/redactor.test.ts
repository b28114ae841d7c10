import { afterEach, describe, expect, it } from 'bun:test'
import { createWorkerRedactor } from '../../../adapters/worker/redactor.ts'
import { isAppError } from '../../../core/base/errors.ts'
import { type RedactionInput, redactSharedContext } from '../../../core/redaction/redact.ts'
import type { Redactor } from '../../../ports/redactor.ts'
import { Random, SECRET_KINDS } from '../../core/redaction/redact-corpus.ts'

const STUCK_WORKER = new URL('../../support/stuck-redact-worker.ts', import.meta.url)

/** A PR with one secret of every corpus kind on added lines. */
function aSecretInput(title = 'Add the deploy settings'): RedactionInput {
  const random = new Random(271)
  const lines = SECRET_KINDS.flatMap((kind) => kind.make(random).text.split('\n')).map((line) => `+${line}\n`)
  const diff = `diff --git a/deploy.env b/deploy.env\n--- /dev/null\n+++ b/deploy.env\n@@ -0,0 +1,${lines.length} @@\n${lines.join('')}`
  return { title, commits: ['Deploy settings'], diff }
}

const never = () => new AbortController().signal

describe('createWorkerRedactor', () => {
  let redactor: Redactor | undefined
  afterEach(() => redactor?.close())

  it('redacts on its worker exactly as core/redaction/redact.ts does in place', async () => {
    redactor = createWorkerRedactor()
    const input = aSecretInput()
    const [a, b] = await Promise.all([redactor.redact(input, never()), redactor.redact(input, never())])
    expect(a).toEqual(redactSharedContext(input))
    expect(b).toEqual(a)
    expect(a.redacted).toBeGreaterThanOrEqual(SECRET_KINDS.length)
  })

  it('rejects a redaction whose signal aborts, as a timeout, and ends the worker that held it', async () => {
    redactor = createWorkerRedactor({ workerUrl: STUCK_WORKER })
    const stop = new AbortController()
    const stuck = redactor.redact(aSecretInput('stuck'), stop.signal)
    // Queued behind the stuck one on the same worker.
    const behind = redactor.redact(aSecretInput(), never())
    stop.abort(new Error('deadline'))
    const error: unknown = await stuck.then(
      () => null,
      (reason: unknown) => reason,
    )
    expect(isAppError(error, 'timeout')).toBe(true)
    // What waited behind it is answered by a fresh worker.
    expect(await behind).toEqual(redactSharedContext(aSecretInput()))
  })

  it('rejects at once when the signal has already aborted, and rejects what it holds when closed', async () => {
    redactor = createWorkerRedactor({ workerUrl: STUCK_WORKER })
    const stop = new AbortController()
    stop.abort(new Error('too late'))
    await expect(redactor.redact(aSecretInput(), stop.signal)).rejects.toMatchObject({ code: 'timeout' })
    const held = redactor.redact(aSecretInput('stuck'), never())
    redactor.close()
    await expect(held).rejects.toMatchObject({ code: 'unavailable' })
  })
})
