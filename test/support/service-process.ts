/**
 * A service as a real process (`bun run entrypoints/<name>.ts`), for
 * end-to-end tests: started with a given environment, ready once it logs
 * that it listens, its JSON log lines kept for assertions.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import type { Subprocess } from 'bun'
import { dieWithParent } from './cleanup.ts'

export type ServiceProcess = {
  readonly lines: string[]
  /** Resolves with the first log line containing `text`; rejects after `timeoutMs` (default a minute: a start on a loaded machine). */
  waitForLine(text: string, timeoutMs?: number): Promise<string>
  kill(signal: 'SIGTERM' | 'SIGKILL' | 'SIGINT'): void
  exited: Promise<number>
}

/** A private secrets directory holding the given `path → field → value` files, mode 600. */
export function makeSecretsDir(secrets: Record<string, Record<string, string>>): string {
  const dir = mkdtempSync(join(tmpdir(), 'rc-secrets-'))
  for (const [path, fields] of Object.entries(secrets)) {
    for (const [field, value] of Object.entries(fields)) {
      const file = join(dir, path, field)
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
      writeFileSync(file, value, { mode: 0o600 })
      chmodSync(file, 0o600)
    }
  }
  return dir
}

/** A `cleanUp` step that stops the process with SIGTERM and waits for it to exit; none for one never started. */
export function stopStep(proc: ServiceProcess | undefined): (() => Promise<void>) | null {
  if (proc === undefined) return null
  return async () => {
    proc.kill('SIGTERM')
    await proc.exited
  }
}

export function startClassifierProcess(env: Record<string, string>): ServiceProcess {
  return startServiceProcess('classifier', env)
}

/** The services' own entry points, and the classifier on the scripted model (scripted-classifier.ts). */
const ENTRY_POINTS = {
  classifier: '../../entrypoints/classifier.ts',
  controller: '../../entrypoints/controller.ts',
  'scripted-classifier': './scripted-classifier.ts',
} as const

export function startServiceProcess(name: keyof typeof ENTRY_POINTS, env: Record<string, string>): ServiceProcess {
  const workDir = mkdtempSync(join(tmpdir(), 'rc-work-'))
  const entrypoint = resolve(import.meta.dir, ENTRY_POINTS[name])
  const proc: Subprocess<'ignore', 'pipe', 'pipe'> = Bun.spawn(dieWithParent([process.execPath, 'run', entrypoint]), {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', WORK_DIR: workDir, ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const lines: string[] = []
  const waiters: Array<() => void> = []
  async function pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder()
    let buffered = ''
    for await (const chunk of stream) {
      buffered += decoder.decode(chunk, { stream: true })
      let newline = buffered.indexOf('\n')
      while (newline !== -1) {
        lines.push(buffered.slice(0, newline))
        buffered = buffered.slice(newline + 1)
        newline = buffered.indexOf('\n')
      }
      for (const wake of waiters.splice(0)) wake()
    }
    if (buffered !== '') lines.push(buffered)
    for (const wake of waiters.splice(0)) wake()
  }
  void pump(proc.stdout)
  void pump(proc.stderr)
  const exited = proc.exited.then((code) => {
    rmSync(workDir, { recursive: true, force: true })
    for (const wake of waiters.splice(0)) wake()
    return code
  })
  let done = false
  void exited.then(() => (done = true))

  return {
    lines,
    async waitForLine(text, timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs
      for (;;) {
        const found = lines.find((line) => line.includes(text))
        if (found !== undefined) return found
        if (done) throw new Error(`${name} exited before logging "${text}":\n${lines.join('\n')}`)
        const left = until - Date.now()
        if (left <= 0) throw new Error(`no "${text}" within ${timeoutMs} ms:\n${lines.join('\n')}`)
        await new Promise<void>((wake) => {
          waiters.push(wake)
          setTimeout(wake, Math.min(left, 200))
        })
      }
    },
    kill(signal) {
      proc.kill(signal)
    },
    exited,
  }
}
