/**
 * Where the test suite's CPU goes: runs `bun test --timeout 60000
 * --parallel` (the README's test command without its install, lint and type
 * check) and samples /proc every 100 ms for every process below it, grouped
 * by the program it runs (`/proc/<pid>/exe`): the real `claude` and
 * `opencode` binaries, Chromium, Bun (the test workers and the controller
 * and classifier they start), nats-server, and the rest (git, setpriv, …).
 * Bun's own per-file durations (`--timings`) give the slowest files.
 * Writes bench/results/suite-cpu.md (or `--out`) and prints it.
 *
 *   npx bun run bench/suite-cpu.ts                        # the whole suite
 *   npx bun run bench/suite-cpu.ts --no-write test/ui     # some files, nothing written
 *   npx bun run bench/suite-cpu.ts --out bench/results/suite-cpu-before.md
 *   npx bun run bench/suite-cpu.ts --refresh-timings      # and write test/timings.json anew
 *
 * Two totals, each short of the truth in its own way: the kernel's (it adds
 * each reaped child's user and system time to its parent's, and so to ours
 * once the run has exited, but a process whose parent ended first is reaped
 * by init, and its time never reaches us), and the sum of the samples (which
 * misses each process's last interval, and processes shorter than one). The
 * point of the table is the floor it shows: what the real third-party
 * processes alone cost, against what two cores can give in a given time.
 */
import { mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises'
import { availableParallelism, tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { statFields } from '../adapters/process/proc.ts'
import { childCpuSeconds, clockTicks, fmt, loadText, machineLine, publish, ROOT } from './support/common.ts'

const GROUPS = ['claude', 'opencode', 'chromium', 'bun', 'nats-server', 'other'] as const
type Group = (typeof GROUPS)[number]

const GROUP_NOTE: Record<Group, string> = {
  claude: 'the real `claude` CLI, one process per question',
  opencode: 'the real `opencode acp`, one process per run',
  chromium: 'the browser of the page tests, all its processes',
  bun: 'the test run and its workers, and the controller, classifier and CLI they start',
  'nats-server': 'the NATS servers the tests start',
  other: 'git, setpriv, the shell, …',
}

function groupOf(exe: string): Group {
  const name = basename(exe)
  if (name.startsWith('claude')) return 'claude'
  if (name.startsWith('opencode')) return 'opencode'
  if (name.startsWith('chrom')) return 'chromium'
  if (name === 'bun' || name === 'bun.exe') return 'bun'
  if (name === 'nats-server') return 'nats-server'
  return 'other'
}

type Seen = { group: Group; ticks: number }

/** Samples the processes below `rootPid` until stopped; a process is known by its pid and start time. */
function startSampler(rootPid: number, intervalMs = 100) {
  const seen = new Map<string, Seen>()
  const below = new Set<number>([rootPid])
  let running = true

  async function sample(): Promise<void> {
    const rows: { pid: number; ppid: number; key: string; ticks: number }[] = []
    for (const name of await readdir('/proc')) {
      if (!/^\d+$/.test(name)) continue
      const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '')
      if (stat === '') continue
      const fields = statFields(stat)
      if (fields[0] === 'Z') continue
      // ppid is field 4 of stat(5), utime/stime 14/15, starttime 22: 1, 11, 12 and 19 after the name.
      rows.push({
        pid: Number(name),
        ppid: Number(fields[1]),
        key: `${name}:${fields[19]}`,
        ticks: Number(fields[11]) + Number(fields[12]),
      })
    }
    // Parents come before children in no guaranteed order: repeat until no new descendant is found.
    for (let grew = true; grew; ) {
      grew = false
      for (const row of rows) {
        if (!below.has(row.pid) && below.has(row.ppid)) {
          below.add(row.pid)
          grew = true
        }
      }
    }
    for (const row of rows) {
      if (!below.has(row.pid)) continue
      const exe = await readlink(`/proc/${row.pid}/exe`).catch(() => '')
      const before = seen.get(row.key)
      seen.set(row.key, {
        group: exe === '' ? (before?.group ?? 'other') : groupOf(exe),
        ticks: Math.max(before?.ticks ?? 0, row.ticks),
      })
    }
  }

  const loop = (async () => {
    while (running) {
      await sample()
      await Bun.sleep(intervalMs)
    }
  })()

  return {
    async stop(): Promise<Map<Group, { processes: number; ticks: number }>> {
      running = false
      await loop
      const totals = new Map<Group, { processes: number; ticks: number }>(
        GROUPS.map((group) => [group, { processes: 0, ticks: 0 }]),
      )
      for (const one of seen.values()) {
        const total = totals.get(one.group)
        if (total === undefined) continue
        total.processes += 1
        total.ticks += one.ticks
      }
      return totals
    },
  }
}

/** How many of the slowest files the report lists. */
const SLOWEST = 15

const parsed = parseArgs({
  options: { 'no-write': { type: 'boolean' }, out: { type: 'string' }, 'refresh-timings': { type: 'boolean' } },
  allowPositionals: true,
})
const files = parsed.positionals
const outPath = resolve(ROOT, parsed.values.out ?? 'bench/results/suite-cpu.md')
// The files start in the order of test/timings.json, slowest first, as the test command starts them.
// Bun writes each file's measured duration to the first --timings file (`--update-timings`): a
// temporary one, or with --refresh-timings test/timings.json itself, for the next runs' order.
const ORDER_FILE = join(ROOT, 'test/timings.json')
const timingsDir = await mkdtemp(join(tmpdir(), 'suite-cpu-'))
const refresh = parsed.values['refresh-timings'] === true
const timingsFile = refresh ? ORDER_FILE : join(timingsDir, 'timings.json')
// A run of some files only orders by nothing: bun would merge the order file's other files into what it writes.
const orderFiles = files.length === 0 && !refresh && (await Bun.file(ORDER_FILE).exists()) ? [ORDER_FILE] : []
if (!(await Bun.file(timingsFile).exists())) await writeFile(timingsFile, JSON.stringify({ version: 1, files: {} }))
const loadBefore = loadText()
const cpuBefore = childCpuSeconds()
const started = performance.now()
const timingArgs = [timingsFile, ...orderFiles].flatMap((file) => ['--timings', file])
const testArgs = ['test', '--timeout', '60000', '--parallel=4', ...timingArgs, '--update-timings', ...files]
const run = Bun.spawn([join(ROOT, 'node_modules/.bin/bun'), ...testArgs], {
  cwd: ROOT,
  stdout: 'pipe',
  stderr: 'pipe',
})
const sampler = startSampler(run.pid)
const [out, err] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()])
const code = await run.exited
const wallS = (performance.now() - started) / 1000
const groups = await sampler.stop()
const totalS = childCpuSeconds() - cpuBefore
const ticks = clockTicks()
const summary = `${out}\n${err}`
  .split('\n')
  .filter((line) => /^\s*\d+ (pass|fail)$|^Ran \d+ tests/.test(line))
  .map((line) => line.trim())
  .join(', ')

const failures = `${out}\n${err}`.split('\n').filter((line) => line.startsWith('(fail)'))
const timings = JSON.parse(await readFile(timingsFile, 'utf8').catch(() => '{}')) as { files?: Record<string, number> }
await rm(timingsDir, { recursive: true, force: true })
const slowest = Object.entries(timings.files ?? {})
  .sort(([, a], [, b]) => b - a)
  .slice(0, SLOWEST)
const cores = availableParallelism()
const rows = GROUPS.map((group) => {
  const one = groups.get(group) ?? { processes: 0, ticks: 0 }
  const cpuS = one.ticks / ticks
  return { group, processes: one.processes, cpuS }
})
const sampledS = rows.reduce((sum, row) => sum + row.cpuS, 0)
// The larger of the two totals: each is short of the truth (see the top of the file).
const cpuS = Math.max(sampledS, totalS)
const thirdParty = rows.filter((row) => ['claude', 'opencode', 'chromium'].includes(row.group))
const thirdPartyS = thirdParty.reduce((sum, row) => sum + row.cpuS, 0)

const report = [
  '# Where the test suite’s CPU goes',
  '',
  `\`npx bun run bench/suite-cpu.ts${files.length === 0 ? '' : ` ${files.join(' ')}`}\`: \`bun test --timeout 60000 --parallel=4\`, ` +
    `with every process below it sampled from /proc every 100 ms. ${machineLine(loadBefore)}`,
  '',
  `Result: exit ${code}${summary === '' ? '' : `; ${summary}`}. Wall time ${fmt(wallS)} s. CPU (user + system, ` +
    `every process): ${fmt(sampledS)} s summed from the samples, ${fmt(totalS)} s as the kernel counted the ` +
    `children it reaped for the run; so ${fmt(cpuS / wallS, 2)} of the ${cores} cores on average.`,
  ...(failures.length === 0 ? [] : ['', 'Failed:', '', ...failures.map((line) => `- ${line}`)]),
  '',
  '| processes of | count | CPU s (sampled) | share | what |',
  '| --- | ---: | ---: | ---: | --- |',
  ...rows.map(
    (row) =>
      `| ${row.group} | ${row.processes} | ${fmt(row.cpuS)} | ${fmt((100 * row.cpuS) / cpuS)} % | ${GROUP_NOTE[row.group]} |`,
  ),
  '',
  `The real \`claude\`, \`opencode\` and Chromium processes alone took ${fmt(thirdPartyS)} CPU seconds: ` +
    `${fmt(thirdPartyS / cores)} s of all ${cores} cores at full use, before any of the suite's own code. ` +
    `The whole run needs at least ${fmt(cpuS / cores)} s on ${cores} cores however it is scheduled.`,
  '',
  ...(slowest.length === 0
    ? []
    : [
        `The ${slowest.length} slowest files, as bun timed each (wall time in its worker, beside the other worker's file):`,
        '',
        '| file | s |',
        '| --- | ---: |',
        ...slowest.map(([file, ms]) => `| \`${file}\` | ${fmt(ms / 1000, 1)} |`),
        '',
      ]),
].join('\n')

publish(outPath, report, parsed.values['no-write'] !== true)
if (code !== 0) process.exit(code)
