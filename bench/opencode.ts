/**
 * opencode process benchmark (docs/decisions.md, "opencode must be fenced in"):
 * one `opencode acp` process per classification (A: the runtime with each
 * classification made a run of its own) against one process per run with a
 * fresh ACP session per classification (B: the runtime as it is). Both run under the real
 * classifier service (warm first, MAX_SESSIONS 8) against the TLS fake
 * provider answering at once, for N = 1, 5 and 10 classifications of one
 * ~100 KB PR, and report wall time, the opencode processes' CPU and memory
 * (bench/support/process-meter.ts), and whether every provider request of
 * B held only its own question. Writes bench/results/opencode.md and
 * prints it.
 *
 *   npx bun run bench/opencode.ts                      # the full run (~4 min on 2 cores)
 *   npx bun run bench/opencode.ts --reps 1 --no-write  # a quick look
 *
 * Not a test: it runs on demand and asserts nothing but that runs answered.
 */

import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createRecordingLogger } from '../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../adapters/memory/metrics.ts'
import { createScriptedModelRuntime, failed } from '../adapters/memory/model-runtime.ts'
import { createMemorySecretStore } from '../adapters/memory/secret-store.ts'
import { createOpencodeRuntime } from '../adapters/opencode/runtime.ts'
import { createSystemClock } from '../adapters/system/clock.ts'
import { createWorkerRedactor } from '../adapters/worker/redactor.ts'
import { buildQuestion, buildSharedContext } from '../core/run/prompt.ts'
import { RUNTIME_KEY_SECRETS } from '../core/settings/service-account.ts'
import type { RunRequest } from '../core/wire/types.ts'
import { createClassifier } from '../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../entrypoints/classifier/session-limiter.ts'
import type { ModelRuntime } from '../ports/model-runtime.ts'
import { type FakeOpenAI, startFakeOpenAI } from '../test/support/fake-openai.ts'
import { API_KEY, clockTicks, loadText, machineLine, median, OPENCODE_BIN, publish } from './support/common.ts'
import {
  checkIndependence,
  type MeasuredOpencodeRun,
  MODE_LABEL,
  opencodeConclusion,
  type ProcessMode,
  renderOpencodeTable,
  summariseOpencode,
} from './support/opencode-report.ts'
import { startProcessMeter } from './support/process-meter.ts'
import { CLASSIFICATION_TIMEOUT_MS, CONTEXT_BUDGET_BYTES, DIFF_BYTES, MAX_SESSIONS, NS } from './support/run-shape.ts'
import { aSyntheticPr, someRules } from './support/synthetic-pr.ts'

/**
 * Side A from the runtime itself: each classification becomes a run of its
 * own, so it gets its own process, stopped as soon as it answers.
 */
function oneRunPerClassification(runtime: ModelRuntime): ModelRuntime {
  let sessions = 0
  return {
    open(spec) {
      sessions += 1
      const runId = `${spec.runId}/${sessions}`
      const session = runtime.open({ ...spec, runId })
      return {
        ask: (question, options) => session.ask(question, options),
        async close() {
          await session.close()
          await runtime.endRun(runId)
        },
      }
    },
    async endRun() {},
  }
}

/**
 * Times B's sessions that run on an already-started process: every
 * classification of a run but its first, which also waits for the start.
 * A session is timed from its ask (its `session/new` may have run ahead).
 */
function timingLaterSessions(runtime: ModelRuntime): ModelRuntime & { sessionMs(): number[] } {
  const sessions: number[] = []
  const seenRuns = new Set<string>()
  return {
    open(spec) {
      const later = seenRuns.has(spec.runId)
      seenRuns.add(spec.runId)
      const session = runtime.open(spec)
      return {
        async ask(question, options) {
          const started = performance.now()
          const result = await session.ask(question, options)
          if (later && result.ok) sessions.push(performance.now() - started)
          return result
        },
        close: () => session.close(),
      }
    },
    endRun: (runId) => runtime.endRun(runId),
    sessionMs: () => [...sessions],
  }
}

// ---- What is measured ------------------------------------------------------

const MODES: readonly ProcessMode[] = ['per-classification', 'per-run']
/** Runs per (mode, N); medians are reported. 5 keeps the whole run near 5 minutes on 2 cores. */
const DEFAULT_REPS = 5
/** How often the meter samples the processes' memory. */
const SAMPLE_MS = 100
/**
 * The concurrency probe: the fake holds each request until this many are
 * held or `PROBE_HOLD_MS` has passed. If opencode ran a process's sessions
 * one at a time, no more than one would ever be held.
 */
const PROBE_SESSIONS = 4
const PROBE_HOLD_MS = 3_000

// ---- The fake provider -----------------------------------------------------

/** A well-formed answer of the spec's shape. */
const ANSWER =
  '{"verdict":"no-match","certainty":88,"reason":"The diff stores timestamps in UTC and bounds every retry loop."}'
/** Fixed counts: the fake then does no per-request prefix matching, which would cost this process CPU beside opencode. */
const USAGE = { prompt: 26_000, completion: 30, cached: 25_600, reasoning: 0 }
const MODEL = 'Qwen/Qwen3-35B'

// ---- Wiring ----------------------------------------------------------------

const RESULTS_PATH = join(import.meta.dir, 'results/opencode.md')
/** A made-up key; the fake accepts any. */
const COMMAND = 'npx bun run bench/opencode.ts'

type Bench = {
  runOnce(mode: ProcessMode, n: number): Promise<MeasuredOpencodeRun>
  /** Most provider requests held at once by one process's sessions, of `PROBE_SESSIONS` started together. */
  probeConcurrency(): Promise<number>
  /** B's time per classification on an already-started process (every one of a run but its first), all runs. */
  sessionMs(): number[]
  proxied(): number
  contextBytes: number
  stop(): Promise<void>
}

async function startBench(ticks: number): Promise<Bench> {
  const fake: FakeOpenAI = await startFakeOpenAI({ mode: { kind: 'answer', text: ANSWER, usage: USAGE } })
  const workDir = await mkdtemp(join(tmpdir(), 'bench-opencode-'))
  const logger = createRecordingLogger()
  const runtimeConfig = (sub: string) => ({
    opencodeBin: OPENCODE_BIN,
    workDir: join(workDir, sub),
    // The fake's certificate, and its proxy catcher so any call off the machine is recorded, not made.
    passEnv: { NODE_EXTRA_CA_CERTS: fake.caFile, HTTPS_PROXY: fake.proxyUrl, NO_PROXY: '127.0.0.1' },
  })
  const perClassification = oneRunPerClassification(createOpencodeRuntime(runtimeConfig('a'), logger))
  const perRun = timingLaterSessions(createOpencodeRuntime(runtimeConfig('b'), logger))
  const pr = aSyntheticPr(DIFF_BYTES)
  const base: Omit<RunRequest, 'id' | 'classifications'> = {
    trigger: 'try-out',
    repo: 'acme/ledger',
    pr: 314,
    ...pr,
    runtime: 'acp',
    model: 'haiku',
    effort: null,
    acp: { base_url: fake.url, model: MODEL, prices: { input: 0.5, output: 2 } },
    max_output_tokens: 1024,
  }
  const context = buildSharedContext(base)
  let runs = 0

  function classifier(runtime: ModelRuntime) {
    return createClassifier({
      runtimes: {
        'api-key': createScriptedModelRuntime(() => failed('runtime', 'not benchmarked')),
        acp: runtime,
        subscription: createScriptedModelRuntime(() => failed('runtime', 'not benchmarked')),
      },
      secrets: createMemorySecretStore({ [RUNTIME_KEY_SECRETS.acp.path]: { api_key: API_KEY } }),
      metrics: createRecordingMetrics(),
      logger,
      clock: createSystemClock(),
      limiter: createSessionLimiter(MAX_SESSIONS),
      classificationTimeoutMs: CLASSIFICATION_TIMEOUT_MS,
      contextBudgetBytes: CONTEXT_BUDGET_BYTES,
      redactor: createWorkerRedactor(),
    })
  }

  async function runOnce(mode: ProcessMode, n: number): Promise<MeasuredOpencodeRun> {
    runs += 1
    const classifications = someRules(n)
    const request: RunRequest = { ...base, id: `bench-${runs}`, classifications }
    const seenBefore = fake.requests().length
    const meter = await startProcessMeter(ticks, SAMPLE_MS)
    const started = performance.now()
    const reply = await classifier(mode === 'per-run' ? perRun : perClassification).handle(JSON.stringify(request))
    const wallMs = performance.now() - started
    const reading = await meter.stop()
    const problems = checkIndependence(
      fake.requests().slice(seenBefore),
      context,
      classifications.map((classification) => buildQuestion(classification)),
    )
    for (const problem of problems) console.error(`  ${mode} N=${n}: ${problem}`)
    return {
      mode,
      n,
      ok: reply.ok && reply.rows.length === n && reply.rows.every((row) => row.error === null),
      independent: problems.length === 0,
      wallMs,
      ...reading,
    }
  }

  async function probeConcurrency(): Promise<number> {
    let held = 0
    let most = 0
    let released = false
    fake.onRequest(async () => {
      held += 1
      most = Math.max(most, held)
      if (held >= PROBE_SESSIONS) released = true
      const until = performance.now() + PROBE_HOLD_MS
      while (!released && performance.now() < until) await Bun.sleep(10)
      held -= 1
    })
    try {
      // Warm first: the first session alone (held for PROBE_HOLD_MS), then the rest together.
      await classifier(perRun).handle(
        JSON.stringify({ ...base, id: 'probe', classifications: someRules(PROBE_SESSIONS + 1) }),
      )
    } finally {
      fake.onRequest(null)
    }
    return Math.min(most, PROBE_SESSIONS)
  }

  return {
    runOnce,
    probeConcurrency,
    sessionMs: () => perRun.sessionMs(),
    proxied: () => fake.proxied().length,
    contextBytes: new TextEncoder().encode(context).length,
    async stop() {
      await fake.stop()
      await rm(workDir, { recursive: true, force: true })
    },
  }
}

async function opencodeVersion(): Promise<string> {
  // From the package, not `opencode --version`, which writes to $HOME.
  const text = await readFile(join(import.meta.dir, '../node_modules/opencode-ai/package.json'), 'utf8').catch(
    () => '{}',
  )
  const version: unknown = Reflect.get(JSON.parse(text), 'version')
  return typeof version === 'string' ? version : 'unknown'
}

async function main(): Promise<void> {
  const args = parseArgs({ options: { reps: { type: 'string' }, 'no-write': { type: 'boolean' } } }).values
  const reps = args.reps === undefined ? DEFAULT_REPS : Number(args.reps)
  if (!Number.isInteger(reps) || reps < 1)
    throw new RangeError(`--reps must be a whole number of at least 1, got ${args.reps}`)

  const loadBefore = loadText()
  const version = await opencodeVersion()
  const ticks = clockTicks()
  const bench = await startBench(ticks)
  const measured: MeasuredOpencodeRun[] = []
  const started = Date.now()
  let concurrent = 0
  let warmSessionMs: number[] = []
  try {
    // Untimed: pages the 185 MB binary in so the first timed run is not the odd one out.
    for (const mode of MODES) await bench.runOnce(mode, 1)
    concurrent = await bench.probeConcurrency()
    console.error(
      `probe: ${concurrent} of ${PROBE_SESSIONS} sessions on one process had a provider request open at once`,
    )
    const sessionsBefore = bench.sessionMs().length
    for (let rep = 0; rep < reps; rep += 1) {
      // Alternating the order keeps drift (load from elsewhere, a warming disk) from favouring one side.
      const order = rep % 2 === 0 ? MODES : [...MODES].reverse()
      for (const n of NS) {
        for (const mode of order) {
          const run = await bench.runOnce(mode, n)
          measured.push(run)
          console.error(
            `rep ${rep + 1}/${reps} ${mode} N=${n}: ${(run.wallMs / 1000).toFixed(2)} s, ${run.cpuS.toFixed(1)} CPU s ` +
              `(sampled ${run.sampledCpuS.toFixed(1)}), peak ${Math.round(run.peakRssSumMiB)} MiB, ${run.processes} processes` +
              `${run.ok ? '' : ' (NOT all answered)'}${run.independent ? '' : ' (NOT independent)'}`,
          )
        }
      }
    }
    warmSessionMs = bench.sessionMs().slice(sessionsBefore)
  } finally {
    await bench.stop()
  }
  const totalS = Math.round((Date.now() - started) / 1000)
  const rows = summariseOpencode(measured)
  const cpu = measured.reduce((sum, run) => sum + run.cpuS, 0)
  const sampled = measured.reduce((sum, run) => sum + run.sampledCpuS, 0)
  const report = [
    '# opencode: one process per classification against one process per run',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)} with \`${COMMAND}\` (${reps} run${reps === 1 ? '' : 's'} per row, ${totalS} s in all).`,
    '',
    machineLine(loadBefore, `; opencode-ai ${version}`),
    '',
    `Setup: the real classifier service (\`createClassifier\`, warm first, MAX_SESSIONS ${MAX_SESSIONS}) and the real \`opencode acp\` ` +
      `against the TLS fake provider (\`test/support/fake-openai.ts\`), which answers at once; one PR with a ${(DIFF_BYTES / 1000).toFixed(0)} KB diff ` +
      `(shared context ${(bench.contextBytes / 1000).toFixed(0)} KB). ${MODE_LABEL['per-classification']} is \`createOpencodeRuntime\` with every classification made a run of its own: ` +
      `a process, a session and one prompt per classification. ${MODE_LABEL['per-run']} is \`createOpencodeRuntime\` as it is: one process ` +
      `started at the run's first classification, a fresh \`session/new\` for each classification on it, stopped when the service ends the run; ` +
      'under warm first the first session runs alone and the rest run concurrently on the same process.',
    '',
    'Wall: from handing the run request to the service to its reply. opencode CPU: user + system seconds of every opencode process of the run, ' +
      `from the change in this process's \`cutime + cstime\` (/proc/self/stat), which the kernel fills in when it reaps a child; read after every process had exited ` +
      `(B's stop is counted, the bench process's own CPU — service and fake — is not). Sampling each process's own /proc/<pid>/stat every ${SAMPLE_MS} ms gave ` +
      `${sampled.toFixed(1)} s against ${cpu.toFixed(1)} s over all runs (it misses each process's last interval). Peak RSS sum: the largest sum of VmRSS ` +
      `over the opencode processes alive at one ${SAMPLE_MS} ms sample; Σ per-process peak: the sum of each process's VmHWM (the bound if all peaked at once). ` +
      'Sessions independent: every provider request of the run is the system message and one user message of [shared context, its own question], ' +
      'with no assistant turn and no other question of the run in it, one request per question, each with its own `x-session-id`. ' +
      'Every column is the median over the runs.',
    '',
    renderOpencodeTable(rows),
    '',
    `Concurrent sessions on one process: with the fake holding each request until ${PROBE_SESSIONS} were held (or ${PROBE_HOLD_MS / 1000} s), ` +
      `${concurrent} of ${PROBE_SESSIONS} sessions started together on one process had their provider request open at once` +
      `${concurrent >= PROBE_SESSIONS ? ': opencode runs the prompts of different sessions concurrently.' : ': opencode did not run them all at once.'} ` +
      `In B, a classification on the already-started process (every one of a run but its first, from its ask to its answer; its \`session/new\` ran ahead, as the session was opened) took ${(median(warmSessionMs) / 1000).toFixed(2)} s, median of ${warmSessionMs.length}.`,
    '',
    opencodeConclusion(rows),
    '',
    `Outbound attempts seen by the proxy catcher (HTTPS_PROXY): ${bench.proxied()}.`,
    '',
  ].join('\n')
  publish(RESULTS_PATH, report, args['no-write'] !== true)
  if (measured.some((run) => !run.ok)) process.exitCode = 1
}

await main()
