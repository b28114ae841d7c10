/**
 * `bun run bench`: every benchmark of issue 12 and issue 19's, one after another, each
 * writing its results to bench/results/<name>.md and printing its tables.
 * One at a time on purpose: they measure the machine, and two at once would
 * measure each other.
 *
 *   bun run bench                          # all of them, as each runs by default (~25 min on 2 cores)
 *   bun run bench -- --only start,burst    # some of them
 *   bun run bench -- --quick               # a smoke run: few repetitions, nothing written
 *
 * Exits non-zero when a benchmark did (a run that did not answer, a bound broken, a run lost).
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'

type Bench = { name: string; what: string; quick: string[] }

const BENCHES: readonly Bench[] = [
  {
    name: 'start',
    what: '1–2: start-up off the critical path, the pool question, the ACP runtime',
    quick: ['--reps', '1'],
  },
  { name: 'overhead', what: '3: own overhead over 200 reviews of 10 classifications', quick: ['--reviews', '10'] },
  { name: 'burst', what: '4: a burst of 1,000 signed deliveries', quick: [] },
  { name: 'diff', what: '5: diff preparation at 1, 10 and 50 MB', quick: ['--reps', '2', '--busy', '0'] },
  { name: 'run-store', what: '6: run store appends with 1, 3 and 8 writers', quick: ['--rounds', '1'] },
  { name: 'opencode', what: '7: the opencode process models', quick: ['--reps', '1'] },
  { name: 'redact', what: 'issues 19 and 27: redaction of 600 KB contexts and hostile lines', quick: ['--reps', '3'] },
  { name: 'kv-open-race', what: 'two processes opening a new KV bucket at once', quick: ['--rounds', '10'] },
]

const args = parseArgs({
  options: { only: { type: 'string' }, quick: { type: 'boolean' }, 'no-write': { type: 'boolean' } },
}).values
const only = args.only?.split(',').map((name) => name.trim())
const unknown = only?.filter((name) => !BENCHES.some((bench) => bench.name === name)) ?? []
if (unknown.length > 0) throw new RangeError(`--only: no benchmark named ${unknown.join(', ')}`)

let failed = 0
for (const bench of BENCHES.filter((b) => only === undefined || only.includes(b.name))) {
  const extra = [
    ...(args.quick === true ? [...bench.quick, '--no-write'] : []),
    ...(args['no-write'] === true && args.quick !== true ? ['--no-write'] : []),
  ]
  console.error(`\n== bench/${bench.name}.ts (${bench.what}) ${extra.join(' ')}`)
  const started = performance.now()
  const child = Bun.spawn([process.execPath, 'run', join(import.meta.dir, `${bench.name}.ts`), ...extra], {
    stdin: 'ignore',
    stdout: 'inherit',
    stderr: 'inherit',
  })
  const code = await child.exited
  console.error(`== bench/${bench.name}.ts: exit ${code} after ${Math.round((performance.now() - started) / 1000)} s`)
  if (code !== 0) failed += 1
}
if (failed > 0) process.exitCode = 1
