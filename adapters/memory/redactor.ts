/**
 * The redactor on the caller's own thread: core/redaction/redact.ts called in place,
 * for the tests that need a redaction but not a worker, and a stand-in that
 * a test can hold: `createHeldRedactor` never finishes until told, so a run
 * past its redaction deadline is a test's choice, not a race with a timer.
 */
import { appError } from '../../core/base/errors.ts'
import { type Redacted, type RedactionInput, redactSharedContext } from '../../core/redaction/redact.ts'
import type { Redactor } from '../../ports/redactor.ts'

function aborted(signal: AbortSignal): Error {
  return appError('timeout', 'the redaction was stopped before it finished', signal.reason)
}

/** Redacts in place, synchronously (it holds the caller's event loop while it runs). */
export function createInlineRedactor(): Redactor {
  return {
    async redact(input, signal) {
      if (signal.aborted) throw aborted(signal)
      return redactSharedContext(input)
    },
    close() {},
  } satisfies Redactor
}

export type HeldRedactor = Redactor & {
  /** Every input given, in order. */
  readonly inputs: RedactionInput[]
  /** Resolves once a redaction has been asked for and is held. */
  asked(): Promise<void>
  /** Lets every held redaction finish, as core/redaction/redact.ts redacts. */
  release(): void
}

/** A redaction that does not finish until `release`, or until its signal aborts. */
export function createHeldRedactor(): HeldRedactor {
  const inputs: RedactionInput[] = []
  const held: (() => void)[] = []
  const waiting: (() => void)[] = []
  let released = false
  return {
    inputs,
    redact(input, signal) {
      inputs.push(input)
      for (const wake of waiting.splice(0)) wake()
      if (released) return Promise.resolve(redactSharedContext(input))
      return new Promise<Redacted>((resolve, reject) => {
        if (signal.aborted) return reject(aborted(signal))
        signal.addEventListener('abort', () => reject(aborted(signal)), { once: true })
        held.push(() => resolve(redactSharedContext(input)))
      })
    },
    asked() {
      return inputs.length > 0 ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve))
    },
    release() {
      released = true
      for (const finish of held.splice(0)) finish()
    },
    close() {},
  } satisfies HeldRedactor
}
