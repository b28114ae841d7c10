/**
 * Measures the child processes of this process (the `opencode acp`
 * processes a run starts) from /proc, for bench/opencode.ts:
 *
 * - CPU: the change in this process's `cutime + cstime` (/proc/self/stat),
 *   which the kernel adds a child's whole user and system time to when the
 *   child is reaped. Exact to the clock tick and blind to nothing, but only
 *   for children that have exited and been waited for: read it after every
 *   process of the run has stopped.
 * - Memory: every `intervalMs`, the children found by their parent pid in
 *   /proc/<pid>/stat, and their VmRSS and VmHWM from /proc/<pid>/status.
 *   The peak of the summed VmRSS is what the machine had to hold at once;
 *   the sum of each process's VmHWM is the upper bound that assumes every
 *   process peaks at the same moment.
 * - A cross-check of the CPU: the last `utime + stime` each child showed in
 *   its /proc/<pid>/stat while sampled. It misses the last interval of each
 *   process, so it is a little lower.
 */
import { readdir, readFile } from 'node:fs/promises'
import { statFields } from '../../adapters/process/proc.ts'

export type MeterReading = {
  /** From this process's cutime + cstime: every reaped child's CPU, user and system. */
  cpuS: number
  /** The same from sampling each child's own counters (a lower bound). */
  sampledCpuS: number
  /** The largest summed VmRSS of the children alive at one sample. */
  peakRssSumMiB: number
  /** The sum over the children of the largest VmHWM each showed. */
  hwmSumMiB: number
  /** Children seen while sampling. */
  processes: number
}

export type ProcessMeter = {
  /** Stops sampling and reads the CPU; call it once every child of the run has exited. */
  stop(): Promise<MeterReading>
}

type Seen = { hwmKiB: number; cpuTicks: number }

async function ownChildTicks(): Promise<number> {
  const fields = statFields(await readFile('/proc/self/stat', 'utf8'))
  // cutime and cstime are fields 16 and 17 of stat(5): 14 and 15 after the name.
  return Number(fields[13]) + Number(fields[14])
}

export async function startProcessMeter(ticksPerSecond: number, intervalMs = 100): Promise<ProcessMeter> {
  const startTicks = await ownChildTicks()
  const self = String(process.pid)
  const seen = new Map<number, Seen>()
  let peakRssSumKiB = 0
  let running = true

  async function sample(): Promise<void> {
    let rssSumKiB = 0
    for (const name of await readdir('/proc')) {
      if (!/^\d+$/.test(name)) continue
      const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '')
      const fields = statFields(stat)
      if (fields[1] !== self || fields[0] === 'Z') continue
      const status = await readFile(`/proc/${name}/status`, 'utf8').catch(() => '')
      const rss = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0)
      const hwm = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0)
      // utime and stime are fields 14 and 15 of stat(5): 11 and 12 after the name.
      const cpuTicks = Number(fields[11]) + Number(fields[12])
      const pid = Number(name)
      const before = seen.get(pid)
      seen.set(pid, { hwmKiB: Math.max(before?.hwmKiB ?? 0, hwm), cpuTicks: Math.max(before?.cpuTicks ?? 0, cpuTicks) })
      rssSumKiB += rss
    }
    peakRssSumKiB = Math.max(peakRssSumKiB, rssSumKiB)
  }

  // One sample at a time: a slow scan delays the next rather than piling up.
  const loop = (async () => {
    while (running) {
      await sample()
      await Bun.sleep(intervalMs)
    }
  })()

  return {
    async stop() {
      running = false
      await loop
      const values = [...seen.values()]
      return {
        cpuS: ((await ownChildTicks()) - startTicks) / ticksPerSecond,
        sampledCpuS: values.reduce((sum, one) => sum + one.cpuTicks, 0) / ticksPerSecond,
        peakRssSumMiB: peakRssSumKiB / 1024,
        hwmSumMiB: values.reduce((sum, one) => sum + one.hwmKiB, 0) / 1024,
        processes: seen.size,
      }
    },
  }
}
