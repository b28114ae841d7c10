/**
 * One redaction by a given revision's core/redact.ts, in a process of its
 * own so bench/redact.ts can stop it: before issue 27 a single line could
 * hold the backtracking engine for minutes. Prints {"ms": …}.
 *
 *   bun bench/redact/before-child.ts <dir with core/redact.ts> <diff file>
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const [dir, file] = process.argv.slice(2)
if (dir === undefined || file === undefined) throw new Error('usage: before-child.ts <dir> <diff file>')
const { redactSharedContext } = await import(join(dir, 'core/redact.ts'))
const diff = readFileSync(file, 'utf8')
const started = performance.now()
redactSharedContext({ title: '', commits: [], diff })
console.log(JSON.stringify({ ms: performance.now() - started }))
