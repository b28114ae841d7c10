/**
 * bench/opencode.ts's checks and report: whether each provider request held
 * only its own classification, and the results table and conclusion. Pure:
 * recorded requests and measured runs in, findings and markdown out.
 */
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { median } from './common.ts'

/** `per-classification`: the runtime today (A); `per-run`: one process, a session per classification (B). */
export type ProcessMode = 'per-classification' | 'per-run'

export type MeasuredOpencodeRun = {
  mode: ProcessMode
  n: number
  /** Every classification answered with a parsed answer. */
  ok: boolean
  /** Every provider request held only its own question (see `checkIndependence`). */
  independent: boolean
  wallMs: number
  cpuS: number
  sampledCpuS: number
  peakRssSumMiB: number
  hwmSumMiB: number
  processes: number
}

const Message = Type.Object({ role: Type.String(), content: Type.Unknown() })
const Body = Type.Object({ messages: Type.Array(Message) })
const TextPart = Type.Object({ type: Type.Literal('text'), text: Type.String() })

function textsOf(content: unknown): string[] | null {
  if (typeof content === 'string') return [content]
  if (!Array.isArray(content)) return null
  const texts: string[] = []
  for (const part of content) {
    if (!Value.Check(TextPart, part)) return null
    texts.push(part.text)
  }
  return texts
}

/**
 * A run's requests are independent when there is one per question, each
 * with a distinct `x-session-id`, and each is exactly the system message
 * and one user message of [shared context, its own question]: no earlier
 * question, no assistant turn, no other question anywhere in it.
 */
export function checkIndependence(
  requests: ReadonlyArray<{ headers: Record<string, string>; body: unknown }>,
  context: string,
  questions: readonly string[],
): string[] {
  const problems: string[] = []
  if (requests.length !== questions.length)
    problems.push(`${requests.length} requests for ${questions.length} questions`)
  const sessions = new Set(requests.map((request) => request.headers['x-session-id'] ?? ''))
  if (sessions.size !== requests.length || sessions.has(''))
    problems.push(`${sessions.size} distinct x-session-id for ${requests.length} requests`)
  const asked = new Map<string, number>()
  for (const [index, request] of requests.entries()) {
    if (!Value.Check(Body, request.body)) {
      problems.push(`request ${index}: no messages`)
      continue
    }
    const roles = request.body.messages.map((message) => message.role).join(',')
    if (roles !== 'system,user') problems.push(`request ${index}: messages ${roles}`)
    const user = textsOf(request.body.messages[1]?.content)
    const own = user?.[1]
    if (user === null || user.length !== 2 || user[0] !== context || own === undefined || !questions.includes(own)) {
      problems.push(`request ${index}: the user message is not [context, one of the run's questions]`)
      continue
    }
    asked.set(own, (asked.get(own) ?? 0) + 1)
    const everything = request.body.messages.flatMap((message) => textsOf(message.content) ?? []).join('\n')
    const others = questions.filter((question) => question !== own && everything.includes(question))
    if (others.length > 0) problems.push(`request ${index}: holds ${others.length} other question(s)`)
  }
  for (const question of questions) {
    if ((asked.get(question) ?? 0) !== 1) problems.push(`a question was asked ${asked.get(question) ?? 0} times`)
  }
  return problems
}

export type OpencodeRow = {
  mode: ProcessMode
  n: number
  runs: number
  okRuns: number
  independentRuns: number
  wallMs: number
  wallMinMs: number
  wallMaxMs: number
  cpuS: number
  peakRssSumMiB: number
  hwmSumMiB: number
  processes: number
}

export function summariseOpencode(runs: readonly MeasuredOpencodeRun[]): OpencodeRow[] {
  const keys = [...new Set(runs.map((run) => `${run.mode}|${run.n}`))]
  return keys
    .map((key) => {
      const group = runs.filter((run) => `${run.mode}|${run.n}` === key)
      const first = group[0]
      if (first === undefined) throw new RangeError('empty group')
      const walls = group.map((run) => run.wallMs)
      return {
        mode: first.mode,
        n: first.n,
        runs: group.length,
        okRuns: group.filter((run) => run.ok).length,
        independentRuns: group.filter((run) => run.independent).length,
        wallMs: median(walls),
        wallMinMs: Math.min(...walls),
        wallMaxMs: Math.max(...walls),
        cpuS: median(group.map((run) => run.cpuS)),
        peakRssSumMiB: median(group.map((run) => run.peakRssSumMiB)),
        hwmSumMiB: median(group.map((run) => run.hwmSumMiB)),
        processes: median(group.map((run) => run.processes)),
      }
    })
    .sort((a, b) => a.n - b.n || a.mode.localeCompare(b.mode))
}

export const MODE_LABEL: Record<ProcessMode, string> = {
  'per-classification': 'A: process per classification',
  'per-run': 'B: process per run',
}

const seconds = (ms: number) => (ms / 1000).toFixed(2)

export function renderOpencodeTable(rows: readonly OpencodeRow[]): string {
  const lines = [
    '| mode | N | wall s, median (min–max) | opencode CPU s | peak RSS sum MiB | Σ per-process peak MiB | processes | sessions independent | runs ok |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ]
  for (const row of rows) {
    lines.push(
      `| ${MODE_LABEL[row.mode]} | ${row.n} | ${seconds(row.wallMs)} (${seconds(row.wallMinMs)}–${seconds(row.wallMaxMs)}) | ` +
        `${row.cpuS.toFixed(1)} | ${Math.round(row.peakRssSumMiB)} | ${Math.round(row.hwmSumMiB)} | ${row.processes} | ` +
        `${row.independentRuns}/${row.runs} | ${row.okRuns}/${row.runs} |`,
    )
  }
  return lines.join('\n')
}

/**
 * Per N, B against A in numbers, and which one the rule in docs/decisions.md
 * picks. N = 1 is the same work on both sides (one process, one session),
 * so only the rows above it decide.
 */
export function opencodeConclusion(rows: readonly OpencodeRow[]): string {
  const find = (mode: ProcessMode, n: number) => rows.find((row) => row.mode === mode && row.n === n)
  const parts: string[] = []
  const winners = new Set<ProcessMode>()
  for (const n of [...new Set(rows.map((row) => row.n))]) {
    const a = find('per-classification', n)
    const b = find('per-run', n)
    if (a === undefined || b === undefined) continue
    parts.push(
      `at N = ${n}${n === 1 ? ' (the same work on both sides)' : ''}, B took ${seconds(b.wallMs)} s against ${seconds(a.wallMs)} s ` +
        `(${((b.wallMs / a.wallMs) * 100).toFixed(0)} %), ${b.cpuS.toFixed(1)} against ${a.cpuS.toFixed(1)} CPU s ` +
        `and a peak of ${Math.round(b.peakRssSumMiB)} against ${Math.round(a.peakRssSumMiB)} MiB`,
    )
    if (n === 1) continue
    const bIndependent = b.independentRuns === b.runs && b.okRuns === b.runs
    winners.add(b.wallMs < a.wallMs && bIndependent ? 'per-run' : 'per-classification')
  }
  const verdict =
    winners.size === 1 && winners.has('per-run')
      ? 'B, one process per run with a fresh session per classification, is the faster at every N above 1 and kept every session independent: by the rule in docs/decisions.md it wins.'
      : winners.size === 1
        ? 'A, one process per classification, is the faster, or the only one that kept sessions independent, at every N above 1: by the rule in docs/decisions.md it stays.'
        : 'Neither side wins at every N above 1; see the rows.'
  return `${parts.join('; ')}. ${verdict}`
}
