/**
 * The redactor on a Bun Worker: core/redaction/redact.ts runs on a thread of its own,
 * so however long a PR's redaction takes, the classifier's event loop goes on
 * (heartbeats, other runs, a shutdown). One worker, started here so the rules
 * compile before the first run needs them, serves the redactions one after
 * another. A redaction whose signal aborts is rejected at once and its worker
 * terminated (a thread cannot be interrupted otherwise); the redactions
 * waiting behind it go to a fresh worker. The worker does not keep the
 * process alive while it has nothing to do.
 */
import { appError } from '../../core/base/errors.ts'
import type { Redacted, RedactionInput } from '../../core/redaction/redact.ts'
import type { Redactor } from '../../ports/redactor.ts'
import { isRedactResponse, type RedactRequest } from './messages.ts'

export type WorkerRedactorConfig = {
  /** The worker's module: redact-worker.ts beside this file unless a test gives another. */
  workerUrl?: URL
}

type Pending = {
  request: RedactRequest
  resolve: (redacted: Redacted) => void
  reject: (error: Error) => void
}

const WORKER_URL = new URL('./redact-worker.ts', import.meta.url)

export function createWorkerRedactor(config: WorkerRedactorConfig = {}): Redactor {
  const pending = new Map<number, Pending>()
  let worker: Worker | null = null
  let nextId = 1

  function settle(id: number): Pending | undefined {
    const entry = pending.get(id)
    pending.delete(id)
    if (pending.size === 0) worker?.unref()
    return entry
  }

  function start(): Worker {
    const started = new Worker(config.workerUrl ?? WORKER_URL)
    started.onmessage = (event: MessageEvent<unknown>) => {
      const response = event.data
      if (!isRedactResponse(response)) return
      const entry = settle(response.id)
      if (entry === undefined) return
      if (response.ok) entry.resolve(response.redacted)
      else entry.reject(appError('internal', `the redaction failed: ${response.error}`))
    }
    started.addEventListener('error', (event) => {
      // The thread died: what it held fails, and the next redaction starts another.
      if (worker === started) worker = null
      started.terminate()
      for (const id of [...pending.keys()]) {
        settle(id)?.reject(appError('internal', `the redaction worker failed: ${event.message}`))
      }
    })
    started.unref()
    return started
  }

  function post(entry: Pending): void {
    worker ??= start()
    worker.ref()
    worker.postMessage(entry.request)
  }

  /** Ends the worker that holds a stopped redaction, and hands what waited behind it to a fresh one. */
  function restart(): void {
    worker?.terminate()
    worker = null
    for (const entry of pending.values()) post(entry)
  }

  worker = start()

  return {
    redact(input: RedactionInput, signal: AbortSignal): Promise<Redacted> {
      return new Promise<Redacted>((resolve, reject) => {
        const stopped = () => appError('timeout', 'the redaction was stopped before it finished', signal.reason)
        if (signal.aborted) return reject(stopped())
        const id = nextId++
        const entry: Pending = {
          request: { id, input },
          resolve: (redacted) => {
            signal.removeEventListener('abort', onAbort)
            resolve(redacted)
          },
          reject: (error) => {
            signal.removeEventListener('abort', onAbort)
            reject(error)
          },
        }
        function onAbort(): void {
          if (settle(id) === undefined) return
          reject(stopped())
          restart()
        }
        signal.addEventListener('abort', onAbort, { once: true })
        pending.set(id, entry)
        post(entry)
      })
    },
    close() {
      worker?.terminate()
      worker = null
      for (const id of [...pending.keys()]) settle(id)?.reject(appError('unavailable', 'the redactor was closed'))
    },
  } satisfies Redactor
}
