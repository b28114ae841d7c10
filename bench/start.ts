/**
 * Start-up benchmark (issue 12, items 1–2 and benchmarks 1–2): the run's
 * process start-up moved off the critical path, measured against the code
 * as it was (BEFORE_REV, unpacked from git and run in the same call), each
 * figure beside its floor measured in the same run: a bare `claude --print`
 * of the pinned binary against the same instant fake.
 *
 * - (1) a 1-rule run against an instant model, against the bare CLI;
 * - (2) warm first with 5 and 10 rules and 2 s answers, against one
 *   classification (a 1-rule run with the same 2 s answer), all-parallel
 *   beside it, with the PR-prefix cache reads and the cost;
 * - the pool question: a process spawned ahead and left waiting, asked,
 *   against a cold one, and what a waiting process holds in memory;
 * - the ACP runtime: runs of 1 and 5 rules on the real `opencode acp`,
 *   before and after, with the steps of the start (key lookup, spawn,
 *   `initialize`, `session/new`, the prompt) and what is left between the
 *   decoded request and the spawn.
 *
 * Writes bench/results/start.md and prints it.
 *
 *   npx bun run bench/start.ts                      # the full run (~5 min on 2 cores)
 *   npx bun run bench/start.ts --reps 2 --no-write  # a quick look
 *   npx bun run bench/start.ts --only claude        # or acp, or pool
 *
 * Not a test: it asserts nothing but that runs answered.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { measureAcp } from './start/acp.ts'
import { measureClaude } from './start/claude.ts'
import {
  ANSWER,
  CONTEXT,
  INSTANT,
  MIN_CACHEABLE_TOKENS,
  type Modules,
  modulesAt,
  type PartResult,
  QUESTION,
  type Side,
  TWO_SECONDS,
} from './start/fixture.ts'
import { measurePool } from './start/pool.ts'
import { startCachingFakeAnthropic } from './support/caching-fake-anthropic.ts'
import {
  BEFORE_REV,
  bareCliMs,
  claudeVersion,
  fmt,
  loadText,
  machineLine,
  publish,
  unpackRevision,
} from './support/common.ts'
import { DIFF_BYTES, MAX_SESSIONS } from './support/run-shape.ts'

/** Runs per row; medians are reported. */
const DEFAULT_REPS = 5
/** Runs per ACP row: each starts opencode (~2.6 s, ~3.4 CPU s). */
const DEFAULT_ACP_REPS = 4
const RESULTS_PATH = join(import.meta.dir, 'results/start.md')
const COMMAND = 'npx bun run bench/start.ts'

async function main(): Promise<void> {
  const args = parseArgs({
    options: {
      reps: { type: 'string' },
      'acp-reps': { type: 'string' },
      only: { type: 'string' },
      shapes: { type: 'string' },
      'no-write': { type: 'boolean' },
    },
  }).values
  const reps = args.reps === undefined ? DEFAULT_REPS : Number(args.reps)
  const acpReps = args['acp-reps'] === undefined ? Math.min(reps, DEFAULT_ACP_REPS) : Number(args['acp-reps'])
  if (!Number.isInteger(reps) || reps < 1)
    throw new RangeError(`--reps must be a whole number of at least 1, got ${args.reps}`)
  const only = args.only
  if (only !== undefined && !['claude', 'acp', 'pool'].includes(only))
    throw new RangeError(`--only takes claude, acp or pool, got ${only}`)
  const part = (name: string) => only === undefined || only === name
  const shapeFilter = args.shapes

  const loadBefore = loadText()
  const startedAt = Date.now()
  const before = unpackRevision(BEFORE_REV, ['core', 'ports', 'adapters', 'entrypoints'])
  const modules: Record<Side, Modules> = {
    before: await modulesAt(before.dir),
    after: await modulesAt(join(import.meta.dir, '..')),
  }
  const instant = startCachingFakeAnthropic({
    text: ANSWER,
    latency: INSTANT,
    commit: 'response-end',
    minCacheableTokens: MIN_CACHEABLE_TOKENS,
  })
  const twoSeconds = startCachingFakeAnthropic({
    text: ANSWER,
    latency: TWO_SECONDS,
    commit: 'response-end',
    minCacheableTokens: MIN_CACHEABLE_TOKENS,
  })
  const workDir = mkdtempSync(join(tmpdir(), 'bench-start-'))
  const version = claudeVersion()
  const sections: string[] = []
  const goals: string[] = []
  const floorMs: number[] = []
  let failures = 0
  const add = (result: PartResult) => {
    sections.push(...result.sections)
    goals.push(...result.goals)
    failures += result.failures
  }
  try {
    // Untimed: pages the 400 MB binary in.
    await bareCliMs(instant.url, CONTEXT, QUESTION)

    if (part('claude')) {
      add(await measureClaude({ modules, instant, twoSeconds, workDir, reps, shapeFilter, floorMs }))
    }
    if (part('pool')) add(await measurePool({ modules: modules.after, instant, workDir, reps, floorMs }))
    if (part('acp')) add(await measureAcp({ modules, workDir, acpReps }))
  } finally {
    await instant.stop()
    await twoSeconds.stop()
    before.remove()
    rmSync(workDir, { recursive: true, force: true })
  }
  const totalS = Math.round((Date.now() - startedAt) / 1000)
  const report = [
    '# Start-up off the critical path',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)} with \`${COMMAND}${only === undefined ? '' : ` --only ${only}`}\` (${reps} runs per claude row, ${acpReps} per ACP row, ${totalS} s in all).`,
    '',
    machineLine(loadBefore, `; ${version}`),
    '',
    `Setup: the real classifier service (\`createClassifier\`), session limiter and \`claude\` runtime of each side, MAX_SESSIONS ${MAX_SESSIONS}; one PR with a ${fmt(DIFF_BYTES / 1000)} KB diff (shared context ${fmt(CONTEXT.length / 1000)} KB), a cold cache at the start of every run. ` +
      `**Before** is the code as of ${BEFORE_REV.slice(0, 7)} (unpacked from git, run in the same call): each classification spawned its process when its turn came. **After** is the tree as it is: the first session is opened as the run is read, the others are spawned once the first question is under way and get their stdin line when its answer is in. ` +
      'Fake provider: bench/support/caching-fake-anthropic.ts (cache entries readable once the response that wrote them has ended), instant or answering every request after 2 s; prices as bench/cache.ts (Haiku 4.5 list). Sides alternate in order from one repetition to the next.',
    '',
    ...sections,
    '',
    '## Goals',
    '',
    ...goals.map((goal) => `- ${goal}`),
    '',
  ].join('\n')
  publish(RESULTS_PATH, report, args['no-write'] !== true)
  if (failures > 0) process.exitCode = 1
}

await main()
