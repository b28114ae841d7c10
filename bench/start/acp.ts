/**
 * The ACP part of bench/start.ts: runs of 1 and 5 rules on the real
 * `opencode acp` of each side against the TLS fake provider of the tests,
 * with the steps of the start from the runtime's debug log, and what is
 * left between the decoded request and the spawn (the key lookup).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createBaoSecretStore } from '../../adapters/bao/secret-store.ts'
import { fixedTokenSource } from '../../adapters/bao/token-source.ts'
import { createDirSecretStore } from '../../adapters/secrets-dir/secret-store.ts'
import { buildSharedContext } from '../../core/run/prompt.ts'
import { decodeRunRequest } from '../../core/run/wire-decode.ts'
import { RUNTIME_KEY_SECRETS } from '../../core/settings/service-account.ts'
import type { RunRequest } from '../../core/wire/types.ts'
import { createFakeBao } from '../../test/support/fake-bao.ts'
import { type FakeOpenAI, startFakeOpenAI } from '../../test/support/fake-openai.ts'
import { API_KEY, fmt, median, OPENCODE_BIN, s, spread } from '../support/common.ts'
import { CLASSIFICATION_TIMEOUT_MS, CONTEXT_BUDGET_BYTES, MAX_SESSIONS } from '../support/run-shape.ts'
import { someRules } from '../support/synthetic-pr.ts'
import {
  ANSWER,
  BASE,
  createTimedLogger,
  type Modules,
  nextRunNumber,
  type PartResult,
  SIDES,
  type Side,
} from './fixture.ts'

const ACP_MODEL = 'Qwen/Qwen3-35B'
/** Reads of the key per store, for the time left between the decoded request and the spawn. */
const KEY_READS = 200

const ACP_SHAPES = [
  { n: 1, answerMs: 0 },
  { n: 5, answerMs: 0 },
  { n: 1, answerMs: 2_000 },
  { n: 5, answerMs: 2_000 },
] as const

type AcpRun = {
  side: Side
  n: number
  answerMs: number
  ok: boolean
  wallMs: number
  /** From handing the request in to the spawn (after only), to `initialize` answered, to the first session made, to its answer. */
  steps: {
    spawn: number | null
    initialized: number | null
    made: number | null
    firstAnswer: number | null
  }
}

async function acpRun(
  side: Side,
  modules: Modules,
  fake: FakeOpenAI,
  workDir: string,
  n: number,
  answerMs: number,
): Promise<AcpRun> {
  fake.onRequest(answerMs > 0 ? () => Bun.sleep(answerMs) : null)
  const logger = createTimedLogger()
  const runtime = modules.createOpencodeRuntime(
    {
      opencodeBin: OPENCODE_BIN,
      workDir,
      passEnv: { NODE_EXTRA_CA_CERTS: fake.caFile, HTTPS_PROXY: fake.proxyUrl, NO_PROXY: '127.0.0.1' },
    },
    logger,
  )
  const classifier = modules.createClassifier({
    runtimes: {
      'api-key': modules.createScriptedModelRuntime(() => modules.failed('runtime', 'not benchmarked')),
      acp: runtime,
    },
    secrets: modules.createMemorySecretStore({ [RUNTIME_KEY_SECRETS.acp.path]: { api_key: API_KEY } }),
    metrics: modules.createRecordingMetrics(),
    logger,
    clock: modules.createSystemClock(),
    limiter: modules.createSessionLimiter(MAX_SESSIONS),
    classificationTimeoutMs: CLASSIFICATION_TIMEOUT_MS,
    contextBudgetBytes: CONTEXT_BUDGET_BYTES,
  })
  const request: RunRequest = {
    ...BASE,
    id: `bench-acp-${nextRunNumber()}`,
    runtime: 'acp',
    acp: { base_url: fake.url, model: ACP_MODEL, prices: { input: 0.5, output: 2 } },
    classifications: someRules(n),
  }
  const started = performance.now()
  const reply = await classifier.handle(JSON.stringify(request))
  const wallMs = performance.now() - started
  const first = (msg: string) => {
    const entry = logger.entries.find((e) => e.msg === msg)
    return entry === undefined ? null : entry.at - started
  }
  return {
    side,
    n,
    answerMs,
    ok: reply.ok && reply.rows.every((row) => row.error === null),
    wallMs,
    steps: {
      spawn: first('opencode process spawned'),
      initialized: first('opencode process started'),
      made: first('opencode session made'),
      firstAnswer: first('opencode session ended'),
    },
  }
}

/** What stands between the decoded request and the spawn: the key lookup, by store; and what now runs beside the start. */
async function keyLookups(): Promise<{ dirMs: number; baoMs: number; decodeMs: number; promptMs: number }> {
  const secretsDir = mkdtempSync(join(tmpdir(), 'bench-secrets-'))
  const { path, field } = RUNTIME_KEY_SECRETS['api-key']
  mkdirSync(join(secretsDir, path), { recursive: true, mode: 0o700 })
  writeFileSync(join(secretsDir, path, field), API_KEY, { mode: 0o600 })
  const bao = createFakeBao({ tokens: ['bench-token'] })
  bao.put(path, { [field]: API_KEY })
  const timeOf = async (read: () => Promise<unknown>) => {
    const ms: number[] = []
    for (let i = 0; i < KEY_READS; i += 1) {
      const t = performance.now()
      await read()
      ms.push(performance.now() - t)
    }
    return median(ms)
  }
  try {
    const dir = createDirSecretStore({ dir: secretsDir })
    const baoStore = createBaoSecretStore({ addr: bao.url, token: fixedTokenSource('bench-token') })
    const text = JSON.stringify({ ...BASE, id: 'x', classifications: someRules(10) })
    const decodeMs = await timeOf(async () => decodeRunRequest(text))
    const promptMs = await timeOf(async () => buildSharedContext(BASE))
    return {
      dirMs: await timeOf(() => dir.read(path, field)),
      baoMs: await timeOf(() => baoStore.read(path, field)),
      decodeMs,
      promptMs,
    }
  } finally {
    await bao.stop()
    rmSync(secretsDir, { recursive: true, force: true })
  }
}

/** The ACP part: one untimed run, then every shape `acpReps` times, sides alternating; then the key lookups. */
export async function measureAcp({
  modules,
  workDir,
  acpReps,
}: {
  modules: Record<Side, Modules>
  workDir: string
  acpReps: number
}): Promise<PartResult> {
  const sections: string[] = []
  const goals: string[] = []
  let failures = 0
  const fake = await startFakeOpenAI({
    mode: { kind: 'answer', text: ANSWER, usage: { prompt: 26_000, completion: 30, cached: 25_600, reasoning: 0 } },
  })
  const acpRuns: AcpRun[] = []
  try {
    await acpRun('after', modules.after, fake, join(workDir, 'acp-warm'), 1, 0) // untimed: pages the binary in
    for (let rep = 0; rep < acpReps; rep += 1) {
      const order = rep % 2 === 0 ? SIDES : [...SIDES].reverse()
      for (const shape of ACP_SHAPES) {
        for (const side of order) {
          const run = await acpRun(side, modules[side], fake, join(workDir, `acp-${side}`), shape.n, shape.answerMs)
          acpRuns.push(run)
          if (!run.ok) failures += 1
          console.error(
            `acp rep ${rep + 1}/${acpReps} ${side} N=${shape.n} answers ${shape.answerMs} ms: ${s(run.wallMs)} s${run.ok ? '' : ' (NOT all answered)'}`,
          )
        }
      }
    }
  } finally {
    await fake.stop()
  }
  const keys = await keyLookups()
  const ofAcp = (side: Side, n: number, answerMs: number) =>
    acpRuns.filter((r) => r.side === side && r.n === n && r.answerMs === answerMs)
  const step = (set: AcpRun[], key: keyof AcpRun['steps']) => {
    const values = set.map((r) => r.steps[key]).filter((v): v is number => v !== null)
    return values.length === 0 ? '–' : s(median(values))
  }
  const lines = [
    '| N | answers | side | wall s, median (min–max) | process spawned | `initialize` answered | first `session/new` answered | first answer | runs ok |',
    '|---:|---|---|---:|---:|---:|---:|---:|---:|',
  ]
  for (const shape of ACP_SHAPES) {
    for (const side of SIDES) {
      const set = ofAcp(side, shape.n, shape.answerMs)
      lines.push(
        `| ${shape.n} | ${shape.answerMs === 0 ? 'at once' : `after ${s(shape.answerMs, 0)} s`} | ${side} | ${spread(set.map((r) => r.wallMs))} | ${step(set, 'spawn')} | ${step(set, 'initialized')} | ${step(set, 'made')} | ${step(set, 'firstAnswer')} | ${set.filter((r) => r.ok).length}/${set.length} |`,
      )
    }
  }
  const wallAcp = (side: Side, n: number, answerMs = 0) => median(ofAcp(side, n, answerMs).map((r) => r.wallMs))
  sections.push(
    '## The ACP runtime: `opencode acp` started as the run is decoded',
    '',
    `The real classifier service and \`opencode acp\` against the TLS fake provider of the tests, which answers at once or holds every answer 2 s; ${acpReps} runs per row after one untimed. ` +
      "The step columns are seconds from handing the request in, medians, from the runtime's debug log; the before side logs neither the spawn nor `session/new` (it ran `session/new` and the prompt back to back when the question was asked, from the `initialize` answer on).",
    '',
    lines.join('\n'),
    '',
    `What is left between the decoded request and the spawn: the key lookup, ${fmt(keys.dirMs, 2)} ms from the secrets directory and ${fmt(keys.baoMs, 2)} ms from the fake OpenBao on loopback (medians of ${KEY_READS}); ` +
      `the request's decode (${fmt(keys.decodeMs, 2)} ms) comes before it, the shared context (${fmt(keys.promptMs, 2)} ms for this 96 KB PR) now runs while the process starts.`,
  )
  goals.push(
    `ACP, answers at once: a 1-rule run took ${s(wallAcp('after', 1))} s after against ${s(wallAcp('before', 1))} s before, a 5-rule run ${s(wallAcp('after', 5))} s against ${s(wallAcp('before', 5))} s; ` +
      `with 2 s answers ${s(wallAcp('after', 1, 2_000))} s against ${s(wallAcp('before', 1, 2_000))} s and ${s(wallAcp('after', 5, 2_000))} s against ${s(wallAcp('before', 5, 2_000))} s ` +
      `(5 rules: ${fmt(wallAcp('after', 5, 2_000) / wallAcp('after', 1, 2_000), 2)} × one classification after, ${fmt(wallAcp('before', 5, 2_000) / wallAcp('before', 1, 2_000), 2)} × before). ` +
      "What remains on the first question's path is opencode's own start (spawn to `initialize` answered) and the first `session/new`: the key lookup in front of them takes well under a millisecond, and nothing else of the run is left to overlap them with.",
  )
  return { sections, goals, failures }
}
