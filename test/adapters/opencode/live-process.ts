/**
 * Looks at a running `opencode acp` from the outside, through /proc and its
 * files, so the fence tests check what the real process got and did rather
 * than what we meant to give it.
 */
import { readdir, readFile, readlink } from 'node:fs/promises'
import { join } from 'node:path'

export type LiveSnapshot = {
  /** The config file as written on disk. */
  configText: string
  /** What is in the seeded plugin `node_modules` (empty unless an install ran). */
  pluginModules: string[]
  /** The process's environment as the kernel holds it. */
  environ: Map<string, string>
  /** Processes whose parent is opencode. */
  children: number[]
  /** TCP ports opencode listens on. */
  listenPorts: number[]
  /** Every file under the private directory, relative, with its text. */
  files: Array<{ path: string; text: string }>
}

export async function snapshot(pid: number, runDir: string): Promise<LiveSnapshot> {
  return {
    configText: await readFile(join(runDir, 'opencode.json'), 'utf8'),
    pluginModules: await readdir(join(runDir, 'config', 'opencode', 'node_modules')),
    environ: await environOf(pid),
    children: await childrenOf(pid),
    listenPorts: await listenPortsOf(pid),
    files: await filesUnder(runDir),
  }
}

async function environOf(pid: number): Promise<Map<string, string>> {
  const raw = await readFile(`/proc/${pid}/environ`, 'utf8')
  const entries = raw
    .split('\0')
    .filter((entry) => entry.includes('='))
    .map((entry): [string, string] => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)])
  return new Map(entries)
}

async function childrenOf(pid: number): Promise<number[]> {
  const found: number[] = []
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '')
    // The command name is in parentheses and may hold spaces: the parent pid is the second field after it.
    const ppid = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]
    if (ppid === String(pid)) found.push(Number(name))
  }
  return found
}

async function listenPortsOf(pid: number): Promise<number[]> {
  const inodes = new Set<string>()
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [])) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
    if (inode !== undefined) inodes.add(inode)
  }
  const ports: number[] = []
  for (const table of ['tcp', 'tcp6']) {
    const text = await readFile(`/proc/${pid}/net/${table}`, 'utf8').catch(() => '')
    for (const line of text.split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/)
      const local = columns[1]
      const state = columns[3]
      const inode = columns[9]
      // 0A is LISTEN.
      if (local === undefined || state !== '0A' || inode === undefined || !inodes.has(inode)) continue
      ports.push(Number.parseInt(local.split(':')[1] ?? '0', 16))
    }
  }
  return ports
}

async function filesUnder(dir: string, prefix = ''): Promise<Array<{ path: string; text: string }>> {
  const found: Array<{ path: string; text: string }> = []
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(prefix, entry.name)
    if (entry.isDirectory()) found.push(...(await filesUnder(join(dir, entry.name), path)))
    else if (entry.isFile()) found.push({ path, text: await readFile(join(dir, entry.name), 'latin1').catch(() => '') })
  }
  return found
}
