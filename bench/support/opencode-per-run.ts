/**
 * The other side of bench/opencode.ts: one `opencode acp` process for a
 * whole run, each classification a fresh ACP session on it. Built from the
 * runtime's own parts (`startOpencodeProcess`, `initializeAgent`,
 * `askOnce`), so the two sides differ only in how many processes carry the
 * sessions.
 *
 * The process starts with the first classification (its config holds the
 * system prompt, model and provider, the same for every classification of
 * a run) and lives until `close()`, which the benchmark calls once the run
 * has answered. A deadline cancels the session only; the process stays for
 * the others. Bench code: no abort signal, and a process that dies takes
 * every session still on it down with it.
 */
import { mkdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { err, ok, type Result } from '../../core/result.ts'
import type { Logger } from '../../ports/logger.ts'
import type { ClassifyInput, ClassifyResult, ModelFailure, ModelRuntime } from '../../ports/model-runtime.ts'
import { opencodeConfig, pickPassEnv } from '../../adapters/opencode/config.ts'
import { startOpencodeProcess, type OpencodeProcess } from '../../adapters/opencode/process.ts'
import { shortDetail, type OpencodeRuntimeConfig } from '../../adapters/opencode/runtime.ts'
import { askOnce, initializeAgent } from '../../adapters/opencode/session.ts'

export type PerRunOpencodeRuntime = ModelRuntime & {
  /** Stops the run's process, if one started; the next classification starts a new one. */
  close(): Promise<void>
  /** Milliseconds from `session/new` to the prompt's result, per answered classification, in the order they ended. */
  sessionMs(): number[]
}

export function createPerRunOpencodeRuntime(config: OpencodeRuntimeConfig, logger: Logger): PerRunOpencodeRuntime {
  const workDir = resolve(config.workDir)
  const cwd = join(workDir, 'empty')
  const runsDir = join(workDir, 'runs')
  const opencodeBin = resolve(config.opencodeBin)
  const passEnv = pickPassEnv(config.passEnv)
  let host: Promise<Result<OpencodeProcess, string>> | null = null
  const sessions: number[] = []

  function hostFor(input: ClassifyInput & { acp: NonNullable<ClassifyInput['acp']> }): Promise<Result<OpencodeProcess, string>> {
    host ??= (async (): Promise<Result<OpencodeProcess, string>> => {
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
      if (!launched.ok) return launched
      const init = await initializeAgent(launched.value.connection)
      if (!init.ok) {
        await launched.value.stop()
        return err(init.error)
      }
      return launched
    })()
    return host
  }

  async function classify(input: ClassifyInput): Promise<ClassifyResult> {
    const secrets = [input.apiKey]
    const fail = (kind: ModelFailure['kind'], detail: string): ClassifyResult => err({ kind, detail: shortDetail(detail, secrets) })
    const acp = input.acp
    if (acp === null) return fail('runtime', 'the ACP runtime needs a provider (acp) in the request')
    let timer: ReturnType<typeof setTimeout> | undefined
    const deadline = new Promise<'deadline'>((resolveDeadline) => {
      timer = setTimeout(() => resolveDeadline('deadline'), input.deadlineMs)
    })
    try {
      const launched = await Promise.race([hostFor({ ...input, acp }), deadline])
      if (launched === 'deadline') return fail('timeout', `no answer within ${input.deadlineMs} ms`)
      if (!launched.ok) return fail('runtime', launched.error)
      secrets.push(launched.value.serverPassword)
      const started = performance.now()
      let sessionId: string | null = null
      const answer = askOnce(launched.value, {
        cwd,
        model: input.model,
        effort: input.effort,
        context: input.context,
        question: input.question,
        onSession: (id) => {
          sessionId = id
        },
      })
      const outcome = await Promise.race([answer, deadline])
      if (outcome === 'deadline') {
        if (sessionId !== null) launched.value.connection.notify('session/cancel', { sessionId })
        return fail('timeout', `no answer within ${input.deadlineMs} ms`)
      }
      if (!outcome.ok) return fail('runtime', outcome.error)
      sessions.push(performance.now() - started)
      return ok(outcome.value)
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    classify,
    // The benchmark stops the process itself with `close()`, after the reply, so the stop is not in the wall time.
    async endRun() {},
    async close() {
      const current = host
      host = null
      if (current === null) return
      const launched = await current
      if (launched.ok) await launched.value.stop()
    },
    sessionMs: () => [...sessions],
  } satisfies PerRunOpencodeRuntime
}
