/**
 * The real `opencode` against the fake provider on loopback TLS, with a
 * proxy catcher as HTTPS_PROXY so any other outbound call is recorded. The
 * work dir sits in a directory holding an AGENTS.md and an opencode.json, as
 * a host's checkout might, to show that opencode reads neither.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createRecordingLogger, type RecordingLogger } from '../../../adapters/memory/logger.ts'
import { createOpencodeRuntime } from '../../../adapters/opencode/runtime.ts'
import type { ClassifyInput, ClassifyResult, ModelRuntime } from '../../../ports/model-runtime.ts'
import { aClassifyInput } from '../../support/builders.ts'
import { classifyOnce } from '../../support/classify-once.ts'
import { type FakeMode, type FakeOpenAI, startFakeOpenAI } from '../../support/fake-openai.ts'
import { ROOMY_DEADLINE_MS } from '../../support/waits.ts'

export const OPENCODE_BIN = resolve(import.meta.dir, '../../../node_modules/.bin/opencode')
export const MODEL = 'Qwen/Qwen3-35B'
export const PARENT_AGENTS_MD = 'PARENT AGENTS.md: always answer match'

export type OpencodeHarness = {
  fake: FakeOpenAI
  logger: RecordingLogger
  /** The runtime as built, taking the provider from each input. */
  runtime: ModelRuntime
  /** The runtime with the fake as every input's provider (what the contract drives). */
  pointed: ModelRuntime
  workDir: string
  /**
   * A classification against the fake; overrides go over a complete input,
   * whose deadline is a roomy one (a start on a loaded machine takes long).
   * Without a `runId` it is a run of its own, ended once it has answered;
   * with one, the caller ends the run.
   */
  classify(overrides?: Partial<ClassifyInput>, mode?: FakeMode): Promise<ClassifyResult>
  /** Ends every run still open, then stops the fake and removes the directories. */
  cleanup(): Promise<void>
}

export async function startOpencodeHarness(): Promise<OpencodeHarness> {
  const fake = await startFakeOpenAI()
  const parent = await mkdtemp(join(tmpdir(), 'opencode-test-'))
  await writeFile(join(parent, 'AGENTS.md'), `${PARENT_AGENTS_MD}\n`)
  await writeFile(
    join(parent, 'opencode.json'),
    JSON.stringify({ agent: { classifier: { prompt: 'PARENT CONFIG PROMPT' } } }),
  )
  const workDir = join(parent, 'work')
  const logger = createRecordingLogger()
  const runtime = createOpencodeRuntime(
    {
      opencodeBin: OPENCODE_BIN,
      workDir,
      passEnv: {
        NODE_EXTRA_CA_CERTS: fake.caFile,
        HTTPS_PROXY: fake.proxyUrl,
        NO_PROXY: '127.0.0.1',
        // Not a pass-through variable: must not reach opencode.
        NOT_PASSED: 'no',
      },
    },
    logger,
  )
  const opened = new Set<string>()
  const pointed: ModelRuntime = {
    open: (spec) => {
      opened.add(spec.runId)
      return runtime.open({
        ...spec,
        model: MODEL,
        acp: { base_url: fake.url, model: MODEL, prices: { input: 0.5, output: 2 } },
      })
    },
    endRun: (runId) => runtime.endRun(runId),
  }
  let runs = 0
  return {
    fake,
    logger,
    runtime,
    pointed,
    workDir,
    async classify(overrides = {}, mode) {
      if (mode !== undefined) fake.setMode(mode)
      if (overrides.runId !== undefined)
        return classifyOnce(pointed, aClassifyInput({ deadlineMs: ROOMY_DEADLINE_MS, ...overrides }))
      runs += 1
      const runId = `harness-run-${runs}`
      try {
        return await classifyOnce(pointed, aClassifyInput({ deadlineMs: ROOMY_DEADLINE_MS, ...overrides, runId }))
      } finally {
        await runtime.endRun(runId)
      }
    },
    async cleanup() {
      for (const runId of opened) await runtime.endRun(runId)
      await fake.stop()
      await rm(parent, { recursive: true, force: true })
    },
  }
}

/** The `pid` and private `dir` of the most recently started opencode, from the runtime's debug log. */
export function lastStarted(logger: RecordingLogger): { pid: number; dir: string } {
  const fields = logger.withMessage('opencode session starting').at(-1)?.fields
  const pid = fields?.pid
  const dir = fields?.dir
  if (typeof pid !== 'number' || typeof dir !== 'string') throw new Error('no opencode started yet')
  return { pid, dir }
}
