/**
 * The ACP runtime: each classification is one prompt on a new session of
 * its own `opencode acp` process, in a private directory removed after it.
 *
 * One process per classification, not one per run: it keeps sessions fully
 * independent (no shared database, log or state), a stuck or looping session
 * costs only itself, and the kill at the deadline takes nothing else down.
 * It costs ~2.8 s and ~600 MiB a classification; the benchmark weighs that
 * against one process per run. `process.ts` already routes several sessions
 * on one process, so that switch touches this file only.
 */
import { mkdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { err, ok } from '../../core/result.ts'
import type { Logger } from '../../ports/logger.ts'
import type { ClassifyInput, ClassifyResult, ModelFailure, ModelRuntime } from '../../ports/model-runtime.ts'
import { opencodeConfig, pickPassEnv, type PassEnv } from './config.ts'
import { startOpencodeProcess } from './process.ts'
import { askOnce, initializeAgent } from './session.ts'
import { oneLineDetail, redactSecrets } from '../shared/redact.ts'

export type OpencodeRuntimeConfig = {
  /** The `opencode` binary (`OPENCODE_BIN`). */
  opencodeBin: string
  /** `WORK_DIR`: holds the shared empty working directory and the per-classification directories. */
  workDir: string
  /** The classifier's environment; only the proxy and CA variables are taken from it. */
  passEnv: Record<string, string | undefined>
}

/** Longest failure detail; enough for the status and the gist of the message. */
export const DETAIL_MAX_CHARS = 300

type Stop = { kind: 'deadline' } | { kind: 'aborted' }

export function createOpencodeRuntime(config: OpencodeRuntimeConfig, logger: Logger): ModelRuntime {
  const workDir = resolve(config.workDir)
  // One path for every classification: it is in the system message, so the cached prefix holds.
  const cwd = join(workDir, 'empty')
  const runsDir = join(workDir, 'runs')
  const opencodeBin = resolve(config.opencodeBin)
  const passEnv: PassEnv = pickPassEnv(config.passEnv)

  async function classify(input: ClassifyInput): Promise<ClassifyResult> {
    const secrets = [input.apiKey]
    const fail = (kind: ModelFailure['kind'], detail: string): ClassifyResult => err({ kind, detail: shortDetail(detail, secrets) })
    if (input.acp === null) return fail('runtime', 'the ACP runtime needs a provider (acp) in the request')
    // ACP reads a prompt starting with "/" as a slash command and asks no model.
    if (input.context.startsWith('/')) return fail('runtime', 'the shared context starts with "/", which opencode reads as a command')

    const started = performance.now()
    const stops: Array<() => void> = []
    const stopped = new Promise<Stop>((resolveStop) => {
      const timer = setTimeout(() => resolveStop({ kind: 'deadline' }), input.deadlineMs)
      stops.push(() => clearTimeout(timer))
      const signal = input.signal
      if (signal === undefined) return
      const onAbort = () => resolveStop({ kind: 'aborted' })
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      stops.push(() => signal.removeEventListener('abort', onAbort))
    })

    try {
      await mkdir(cwd, { recursive: true })
      const launched = await startOpencodeProcess(
        {
          opencodeBin,
          cwd,
          runsDir,
          passEnv,
          config: opencodeConfig({ baseUrl: input.acp.base_url, model: input.model, system: input.system, effort: input.effort }),
          apiKey: input.apiKey,
        },
        logger,
      )
      if (!launched.ok) return fail('runtime', launched.error)
      const proc = launched.value
      secrets.push(proc.serverPassword)
      logger.debug('opencode session starting', { pid: proc.pid, dir: proc.dirs.root, repo: input.labels.repo, pr: input.labels.pr })

      let sessionId: string | null = null
      const answer = (async () => {
        const init = await initializeAgent(proc.connection)
        if (!init.ok) return init
        return askOnce(proc, {
          cwd,
          model: input.model,
          effort: input.effort,
          context: input.context,
          question: input.question,
          onSession: (id) => {
            sessionId = id
          },
        })
      })()
      const outcome = await Promise.race([answer, stopped])
      if ('kind' in outcome && sessionId !== null) proc.connection.notify('session/cancel', { sessionId })
      const peakRssMiB = await proc.peakRssMiB()
      await proc.stop()
      logger.debug('opencode session ended', {
        pid: proc.pid,
        wall_ms: Math.round(performance.now() - started),
        peak_rss_mib: peakRssMiB,
        outcome: 'kind' in outcome ? outcome.kind : outcome.ok ? 'answered' : 'failed',
      })
      if ('kind' in outcome) {
        return outcome.kind === 'deadline'
          ? fail('timeout', `no answer within ${input.deadlineMs} ms`)
          : fail('runtime', 'cancelled: the classifier is shutting down')
      }
      return outcome.ok ? ok(outcome.value) : fail('runtime', outcome.error)
    } catch (error) {
      return fail('runtime', `opencode runtime failed: ${error instanceof Error ? error.message : String(error)}`)
    } finally {
      for (const stop of stops) stop()
    }
  }

  return { classify } satisfies ModelRuntime
}

/** One line, capped, with every secret replaced, whatever opencode echoed back. */
export function shortDetail(text: string, secrets: readonly string[]): string {
  return oneLineDetail(redactSecrets(text, secrets), DETAIL_MAX_CHARS)
}
