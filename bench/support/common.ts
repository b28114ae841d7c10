/**
 * What every benchmark shares: the binaries and the fake key, the machine
 * line and load averages of its results file, medians and percentiles,
 * number formatting, /proc's CPU and memory figures, writing the results
 * file, the code as it was at a revision (unpacked from git beside a link to
 * node_modules, so "before" runs in the same call as "after"), and the
 * floor every figure stands beside: a bare `claude --print` of the pinned
 * binary, with the adapter's own arguments, environment and stdin line,
 * against the same instant fake.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { claudeArgs, claudeEnv, claudeStdinLine, DEFAULT_MAX_RETRIES } from '../../adapters/claude/invocation.ts'
import { statFields } from '../../adapters/process/proc.ts'
import { SYSTEM_PROMPT } from '../../core/run/prompt.ts'

export const ROOT = join(import.meta.dir, '../..')
export const CLAUDE_BIN = join(ROOT, 'node_modules/.bin/claude')
export const OPENCODE_BIN = join(ROOT, 'node_modules/.bin/opencode')
/** The key every benchmark's runtime is handed: the fakes take any. */
export const API_KEY = 'sk-bench-not-a-real-key'

/** The tree before the start-up and leftover work of issue 12 items 1–2 and issue 11 item 6 (the tip of main it started from). */
export const BEFORE_REV = '2a32285e3c83c6caaeb3341484929af0e40c9a25'

export function loadText(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ')
}

export function machineLine(loadBefore: string, extra = ''): string {
  return (
    `Machine: ${availableParallelism()} CPUs (\`nproc\`), ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory; ` +
    `load average (1/5/15 min) ${loadBefore} before, ${loadText()} after; Bun ${Bun.version}${extra}.`
  )
}

export function claudeVersion(): string {
  try {
    return execFileSync(CLAUDE_BIN, ['--version'], { encoding: 'utf8', timeout: 30_000 }).trim()
  } catch {
    return 'claude: unknown version'
  }
}

export function median(values: readonly number[]): number {
  return percentile(values, 50)
}

/** The nearest-rank percentile (p in 0–100) of the values; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  if (p === 50 && sorted.length % 2 === 0) {
    const mid = sorted.length / 2
    return ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
  }
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length))
  return sorted[Math.min(sorted.length, rank) - 1] as number
}

/** `1,234.5` style, with the given decimals. */
export function fmt(value: number, decimals = 0): string {
  if (!Number.isFinite(value)) return '–'
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })
}

/** Seconds from milliseconds, `0.00`. */
export function s(ms: number, decimals = 2): string {
  return fmt(ms / 1000, decimals)
}

/** `median (min–max)` in seconds. */
export function spread(ms: readonly number[], decimals = 2): string {
  if (ms.length === 0) return '–'
  return `${s(median(ms), decimals)} (${s(Math.min(...ms), decimals)}–${s(Math.max(...ms), decimals)})`
}

/**
 * The project as of `rev` (the paths given), unpacked into a temporary
 * directory beside a link to this checkout's node_modules, so its modules
 * can be imported next to today's. Returns the directory and its removal.
 */
export function unpackRevision(rev: string, paths: readonly string[]): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `bench-${rev.slice(0, 7)}-`))
  const archive = execFileSync('git', ['-C', ROOT, 'archive', rev, ...paths], { maxBuffer: 256 * 2 ** 20 })
  execFileSync('tar', ['-x', '-C', dir], { input: archive })
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(dir, 'node_modules'))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Resolves a short revision to its full id, so results name exactly what they ran. */
export function fullRevision(rev: string): string {
  return execFileSync('git', ['-C', ROOT, 'rev-parse', rev], { encoding: 'utf8' }).trim()
}

/**
 * One bare `claude --print`: the adapter's arguments and environment (a
 * fresh HOME and TMPDIR, the base URL), the stdin line written at once and
 * closed, timed from the spawn to the exit. The floor of every figure: what
 * a classification cannot go under on this machine.
 */
export async function bareCliMs(baseUrl: string, context: string, question: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bare-'))
  const home = join(dir, 'home')
  const tmp = join(dir, 'tmp')
  const cwd = join(dir, 'cwd')
  for (const sub of [home, tmp, cwd]) mkdirSync(sub)
  try {
    const started = performance.now()
    const child = Bun.spawn([CLAUDE_BIN, ...claudeArgs({ system: SYSTEM_PROMPT, model: 'haiku', effort: null })], {
      cwd,
      env: claudeEnv({
        home,
        tmpDir: tmp,
        apiKey: API_KEY,
        passEnv: { ANTHROPIC_BASE_URL: baseUrl },
        labels: { repo: 'acme/ledger', pr: 314 },
        maxRetries: DEFAULT_MAX_RETRIES,
        maxOutputTokens: 1024,
      }),
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'ignore',
    })
    const out = new Response(child.stdout).text()
    child.stdin.write(claudeStdinLine(context, question))
    await child.stdin.end()
    const code = await child.exited
    const ms = performance.now() - started
    if (code !== 0 || !(await out).includes('"is_error":false'))
      throw new Error(`the bare claude run failed (exit ${code})`)
    return ms
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Memory of one process from /proc: resident, its anonymous part, and its proportional share (PSS, shared pages split). */
export function processMemoryMiB(pid: number): { rss: number; anon: number; pss: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
    const kib = (text: string, name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(text)?.[1] ?? 0)
    return {
      rss: kib(status, 'VmRSS') / 1024,
      anon: kib(status, 'RssAnon') / 1024,
      pss: kib(rollup, 'Pss') / 1024,
    }
  } catch {
    return null
  }
}

/**
 * CPU seconds (user + system) of this process's children that have exited
 * and been reaped: /proc/self/stat cutime + cstime, which the kernel adds a
 * child's times to when it is waited for. Read it around something, once
 * every process it started has exited.
 */
export function childCpuSeconds(): number {
  const fields = statFields(readFileSync('/proc/self/stat', 'utf8'))
  // cutime and cstime are fields 16 and 17 of stat(5): 13 and 14 after the name.
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS
}

/** Clock ticks per second, for the tick counts in /proc (100 on every common Linux). */
export function clockTicks(): number {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim())
    return Number.isFinite(ticks) && ticks > 0 ? ticks : 100
  } catch {
    return 100
  }
}

const CLOCK_TICKS = clockTicks()

/** Writes a results file and prints it, unless told not to write. */
export function publish(path: string, report: string, write: boolean): void {
  console.log(report)
  if (write) writeFileSync(path, report)
}
