/**
 * Scoping benchmark (issue 31): how many model calls a rule's `paths` save
 * on a replay of realistic PRs, and that the shared prefix's cache share
 * holds when only some rules are asked.
 *
 * (A) Calls saved: a replay of PRs over the areas of a service repo
 * (bench/support/scoped-replay.ts), each run through the real classifier
 * service (`createClassifier`) on the in-memory model runtime, once with the
 * ten rules of `someRules` unscoped and once with the same rules scoped as a
 * team would scope them. Counted: the model sessions the service opened
 * (each is one model process and one call), and the PRs that needed none.
 *
 * (B) Cache share: the real `claude` runtime against the caching fake
 * provider of cache.ts, on cache.ts's 96 KB PR, warm first, cold cache per
 * run: the ten rules unscoped against the ten scoped (two of them out of the
 * PR's scope, the eight others naming their files in the question). The
 * PR-prefix read share is the share of the shared block's tokens read from
 * the cache over all the run's calls.
 *
 *   npx bun run bench/scope.ts                        # the full run (~1 min on 2 cores)
 *   npx bun run bench/scope.ts --reps 1 --no-write    # a quick look
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createClaudeRuntime } from '../adapters/claude/runtime.ts'
import { createRecordingLogger } from '../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../adapters/memory/metrics.ts'
import { answered, createScriptedModelRuntime, failed } from '../adapters/memory/model-runtime.ts'
import { createInlineRedactor } from '../adapters/memory/redactor.ts'
import { createMemorySecretStore } from '../adapters/memory/secret-store.ts'
import { createSystemClock } from '../adapters/system/clock.ts'
import { changedFiles } from '../core/run/scope.ts'
import { RUNTIME_KEY_SECRETS } from '../core/settings/service-account.ts'
import type { Classification, RunRequest } from '../core/wire/types.ts'
import { createClassifier } from '../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../entrypoints/classifier/session-limiter.ts'
import type { ModelRuntime } from '../ports/model-runtime.ts'
import { startCachingFakeAnthropic } from './support/caching-fake-anthropic.ts'
import { API_KEY, CLAUDE_BIN, claudeVersion, fmt, loadText, machineLine, median, publish } from './support/common.ts'
import { CLASSIFICATION_TIMEOUT_MS, CONTEXT_BUDGET_BYTES, DIFF_BYTES, MAX_SESSIONS } from './support/run-shape.ts'
import { aScopedReplay, someScopedRules } from './support/scoped-replay.ts'
import { aSyntheticPr, type SyntheticPr, someRules } from './support/synthetic-pr.ts'

const RESULTS_PATH = join(import.meta.dir, 'results/scope.md')
const COMMAND = 'npx bun run bench/scope.ts'
const REPLAY_PRS = 200
const DEFAULT_REPS = 3
const ANSWER = '{"verdict":"match","certainty":88,"reason":"It holds."}'

function classifierOn(runtime: ModelRuntime) {
  const unused = createScriptedModelRuntime(() => failed('runtime', 'not benchmarked'))
  return createClassifier({
    runtimes: { 'api-key': runtime, acp: unused, subscription: unused },
    secrets: createMemorySecretStore({ [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: API_KEY } }),
    metrics: createRecordingMetrics(),
    logger: createRecordingLogger(),
    clock: createSystemClock(),
    limiter: createSessionLimiter(MAX_SESSIONS),
    classificationTimeoutMs: CLASSIFICATION_TIMEOUT_MS,
    contextBudgetBytes: CONTEXT_BUDGET_BYTES,
    redactor: createInlineRedactor(),
  })
}

function requestFor(id: string, pr: SyntheticPr, classifications: Classification[]): RunRequest {
  return {
    id,
    trigger: 'try-out',
    repo: 'acme/ledger',
    pr: 314,
    ...pr,
    classifications,
    runtime: 'api-key',
    model: 'haiku',
    effort: null,
    max_output_tokens: 1024,
    acp: null,
  }
}

type ReplayResult = { sessions: number; noCall: number; perRule: Map<string, number>; approved: number }

/** (A): every PR of the replay through the service; the sessions it opened, and the PRs that needed none. */
async function replay(prs: readonly SyntheticPr[], rules: Classification[]): Promise<ReplayResult> {
  const runtime = createScriptedModelRuntime(() => answered(ANSWER))
  const classifier = classifierOn(runtime)
  const perRule = new Map<string, number>()
  let noCall = 0
  let approved = 0
  for (const [index, pr] of prs.entries()) {
    const before = runtime.opens.length
    const reply = await classifier.handle(JSON.stringify(requestFor(`replay-${index}`, pr, rules)))
    if (!reply.ok) throw new Error(`replay PR ${index + 1} failed: ${reply.error}`)
    if (reply.overall === 'approve') approved += 1
    if (runtime.opens.length === before) noCall += 1
    for (const row of reply.rows) {
      if (row.in_scope !== false) perRule.set(row.name, (perRule.get(row.name) ?? 0) + 1)
    }
  }
  return { sessions: runtime.opens.length, noCall, perRule, approved }
}

type CacheRun = { calls: number; sharedTokens: number; sharedRead: number; wallMs: number }

/** (B): one run on the real `claude` against the caching fake, cold cache. */
async function cacheRuns(reps: number): Promise<{ unscoped: CacheRun[]; scoped: CacheRun[]; pr: SyntheticPr }> {
  const fake = startCachingFakeAnthropic({
    text: ANSWER,
    latency: { baseMs: 300, uncachedMsPer1kTokens: 40, cachedMsPer1kTokens: 4, outputMsPerToken: 10 },
    commit: 'response-end',
    minCacheableTokens: 4_096,
  })
  const workDir = await mkdtemp(join(tmpdir(), 'bench-scope-'))
  const claude = createClaudeRuntime(
    { claudeBin: CLAUDE_BIN, workDir, passEnv: { ANTHROPIC_BASE_URL: fake.url } },
    createRecordingLogger(),
  )
  const classifier = classifierOn(claude)
  const pr = aSyntheticPr(DIFF_BYTES)
  let runs = 0
  const once = async (rules: Classification[]): Promise<CacheRun> => {
    fake.reset()
    runs += 1
    const started = performance.now()
    const reply = await classifier.handle(JSON.stringify(requestFor(`cache-${runs}`, pr, rules)))
    const wallMs = performance.now() - started
    if (!reply.ok || reply.rows.some((row) => row.error !== null))
      throw new Error(`cache run ${runs} had no clean answer`)
    const calls = fake.calls()
    return {
      calls: calls.length,
      sharedTokens: calls.reduce((sum, call) => sum + call.sharedTokens, 0),
      sharedRead: calls.reduce((sum, call) => sum + call.sharedRead, 0),
      wallMs,
    }
  }
  const unscoped: CacheRun[] = []
  const scoped: CacheRun[] = []
  try {
    await once(someRules(1)) // untimed: pages the binary in
    for (let rep = 0; rep < reps; rep += 1) {
      const order = rep % 2 === 0 ? ['unscoped', 'scoped'] : ['scoped', 'unscoped']
      for (const side of order) {
        const run = await once(side === 'scoped' ? someScopedRules(10) : someRules(10))
        ;(side === 'scoped' ? scoped : unscoped).push(run)
        console.error(`rep ${rep + 1}/${reps} ${side}: ${run.calls} calls, ${(run.wallMs / 1000).toFixed(2)} s`)
      }
    }
  } finally {
    await fake.stop()
    await rm(workDir, { recursive: true, force: true })
  }
  return { unscoped, scoped, pr }
}

function share(run: CacheRun): number {
  return run.sharedTokens === 0 ? 0 : run.sharedRead / run.sharedTokens
}

function pct(value: number, decimals = 1): string {
  return `${fmt(value * 100, decimals)} %`
}

async function main(): Promise<void> {
  const args = parseArgs({ options: { reps: { type: 'string' }, 'no-write': { type: 'boolean' } } }).values
  const reps = args.reps === undefined ? DEFAULT_REPS : Number(args.reps)
  if (!Number.isInteger(reps) || reps < 1)
    throw new RangeError(`--reps must be a whole number of at least 1, got ${args.reps}`)
  const loadBefore = loadText()
  const started = Date.now()

  const prs = aScopedReplay(REPLAY_PRS)
  const files = prs.map((pr) => changedFiles(pr.diff).length)
  const unscopedReplay = await replay(prs, someRules(10))
  const scopedReplay = await replay(prs, someScopedRules(10))
  const everyReplay = await replay(prs, someScopedRules(10, true))
  const saved = unscopedReplay.sessions - scopedReplay.sessions
  const savedEvery = unscopedReplay.sessions - everyReplay.sessions
  const ruleLines = someScopedRules(10).map(
    (rule) =>
      `| ${rule.name} | ${rule.paths === undefined ? 'every file' : rule.paths.map((p) => `\`${p}\``).join(' ')} | ${scopedReplay.perRule.get(rule.name) ?? 0} of ${REPLAY_PRS} |`,
  )

  const cache = await cacheRuns(reps)
  const totalS = Math.round((Date.now() - started) / 1000)
  const cacheLine = (label: string, runs: CacheRun[]) =>
    `| ${label} | ${median(runs.map((run) => run.calls))} | ${pct(median(runs.map(share)))} | ${fmt(median(runs.map((run) => run.wallMs)) / 1000, 2)} s |`
  const inScope = cache.scoped[0]?.calls ?? 0

  const report = [
    '# Scoping: model calls saved, and the cache share',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)} with \`${COMMAND}\` (${reps} runs per side in (B), ${totalS} s in all).`,
    '',
    machineLine(loadBefore, `; ${claudeVersion()}`),
    '',
    '## (A) Calls saved on a replay',
    '',
    `A replay of ${REPLAY_PRS} PRs (bench/support/scoped-replay.ts: a seeded stream over the areas of a service repo, code, tests, docs, migrations, dependencies and CI, ` +
      `each PR in one or two areas, ${Math.min(...files)} to ${Math.max(...files)} files, median ${median(files)}) through the real classifier service on the in-memory model runtime, ` +
      'with the ten rules of `someRules` unscoped and then scoped as below. A call is a model session the service opened (one model process, one question).',
    '',
    '| rules | model calls | calls per PR | PRs with no call at all | approved |',
    '| --- | ---: | ---: | ---: | ---: |',
    `| unscoped | ${unscopedReplay.sessions} | ${fmt(unscopedReplay.sessions / REPLAY_PRS, 2)} | ${unscopedReplay.noCall} | ${unscopedReplay.approved} |`,
    `| scoped | ${scopedReplay.sessions} | ${fmt(scopedReplay.sessions / REPLAY_PRS, 2)} | ${scopedReplay.noCall} | ${scopedReplay.approved} |`,
    `| scoped, \`no-secrets\` too (\`!docs/**\`, \`!*.md\`) | ${everyReplay.sessions} | ${fmt(everyReplay.sessions / REPLAY_PRS, 2)} | ${everyReplay.noCall} | ${everyReplay.approved} |`,
    '',
    `Scoping saved **${saved} of ${unscopedReplay.sessions} calls (${pct(saved / unscopedReplay.sessions)})**; ` +
      `every PR still had \`no-secrets\` (no paths) in scope, so each got at least one call. With \`no-secrets\` scoped to everything but the docs, ` +
      `${savedEvery} calls (${pct(savedEvery / unscopedReplay.sessions)}) were saved and ${everyReplay.noCall} docs-only PRs were approved with no model call at all. ` +
      'The model answered `match` to everything, so every PR approved.',
    '',
    'The scoped rules (the second row):',
    '',
    '| rule | paths | asked on |',
    '| --- | --- | ---: |',
    ...ruleLines,
    '',
    '## (B) The shared prefix stays cached',
    '',
    `The real classifier service and \`claude\` runtime against the caching fake of cache.ts, warm first, a cold cache per run, on cache.ts's ${(DIFF_BYTES / 1000).toFixed(0)} KB PR ` +
      `(its files all under src/ and test/, all .ts). Scoped, ${inScope} of the ten rules are in scope and asked, each naming its files; the two others are not asked. ` +
      'The PR-prefix read share is, over all the run’s calls, the share of the shared block’s tokens (system and PR) read from the cache: with n calls and the first writing, at most (n − 1) / n. Medians.',
    '',
    '| rules | calls | PR-prefix read share | wall |',
    '| --- | ---: | ---: | ---: |',
    cacheLine('unscoped (10 asked)', cache.unscoped),
    cacheLine(`scoped (${inScope} asked)`, cache.scoped),
    '',
    'The question naming the files sits after the cache breakpoint, so the shared block is byte for byte the same whatever the scope: ' +
      'the read share follows (n − 1) / n for the calls that are made, and the calls not made cost nothing.',
    '',
  ].join('\n')
  publish(RESULTS_PATH, report, args['no-write'] !== true)
}

await main()
