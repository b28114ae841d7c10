/**
 * A realistic, deterministic pull request for the benchmarks: a unified diff
 * of TypeScript-looking hunks over several files, built from a seeded PRNG
 * so every run (and every machine) sends the same bytes, and ten rules like
 * the ones a repo would have.
 */
import type { Classification, CommitMessage } from '../../core/types.ts'

/** mulberry32: small, fast, and the same sequence everywhere for one seed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = [
  'order',
  'invoice',
  'customer',
  'timestamp',
  'zone',
  'amount',
  'currency',
  'ledger',
  'entry',
  'account',
  'payload',
  'request',
  'response',
  'cursor',
  'page',
  'limit',
  'retry',
  'deadline',
  'session',
  'token',
  'schedule',
  'window',
  'bucket',
  'record',
  'status',
  'reason',
  'batch',
  'queue',
  'event',
  'handler',
]
const DIRS = ['src/billing', 'src/orders', 'src/api', 'src/time', 'src/storage', 'test/billing', 'test/orders']

function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)]
  if (item === undefined) throw new RangeError('pick from an empty list')
  return item
}

function identifier(random: () => number): string {
  const first = pick(random, WORDS)
  const second = pick(random, WORDS)
  return first + second.charAt(0).toUpperCase() + second.slice(1)
}

function codeLine(random: () => number): string {
  const indent = '  '.repeat(1 + Math.floor(random() * 3))
  const a = identifier(random)
  const b = identifier(random)
  switch (Math.floor(random() * 6)) {
    case 0:
      return `${indent}const ${a} = await ${b}(${identifier(random)}, { timeoutMs: ${Math.floor(random() * 9000) + 1000} })`
    case 1:
      return `${indent}if (${a} === undefined || ${a}.${pick(random, WORDS)} < ${Math.floor(random() * 100)}) return null`
    case 2:
      return `${indent}// ${pick(random, WORDS)} is kept in UTC so the ${pick(random, WORDS)} compares across zones`
    case 3:
      return `${indent}${a}.${pick(random, WORDS)} = new Date(${b}.${pick(random, WORDS)}).toISOString()`
    case 4:
      return `${indent}logger.info('${pick(random, WORDS)} ${pick(random, WORDS)} updated', { ${a}, ${b} })`
    default:
      return `${indent}return { ...${a}, ${pick(random, WORDS)}: ${b}.${pick(random, WORDS)} ?? ${Math.floor(random() * 50)} }`
  }
}

function fileDiff(random: () => number, path: string, targetBytes: number): string {
  const lines = [
    `diff --git a/${path} b/${path}`,
    `index ${Math.floor(random() * 0xfffffff).toString(16)}..${Math.floor(random() * 0xfffffff).toString(16)} 100644`,
    `--- a/${path}`,
    `+++ b/${path}`,
  ]
  let size = lines.join('\n').length
  let oldStart = 1 + Math.floor(random() * 40)
  while (size < targetBytes) {
    const context = Array.from({ length: 3 }, () => ` ${codeLine(random)}`)
    const removed = Array.from({ length: Math.floor(random() * 6) }, () => `-${codeLine(random)}`)
    const added = Array.from({ length: 2 + Math.floor(random() * 12) }, () => `+${codeLine(random)}`)
    const trailing = Array.from({ length: 3 }, () => ` ${codeLine(random)}`)
    const oldCount = context.length + removed.length + trailing.length
    const newCount = context.length + added.length + trailing.length
    const hunk = [
      `@@ -${oldStart},${oldCount} +${oldStart},${newCount} @@ export function ${identifier(random)}()`,
      ...context,
      ...removed,
      ...added,
      ...trailing,
    ]
    lines.push(...hunk)
    size += hunk.join('\n').length + 1
    oldStart += oldCount + 10 + Math.floor(random() * 30)
  }
  return `${lines.join('\n')}\n`
}

export type SyntheticPr = { title: string; commits: CommitMessage[]; diff: string }

/** A PR whose diff is about `diffBytes` long (a little over: files end on whole hunks). */
export function aSyntheticPr(diffBytes: number, seed = 20261130): SyntheticPr {
  const random = seededRandom(seed)
  const files = Math.max(1, Math.round(diffBytes / 7_000))
  const perFile = Math.ceil(diffBytes / files)
  const diff = Array.from({ length: files }, (_, index) =>
    fileDiff(random, `${pick(random, DIRS)}/${identifier(random)}-${index}.ts`, perFile),
  ).join('')
  return {
    title: 'Store every timestamp with its zone and retry failed ledger writes',
    commits: [
      {
        message:
          'Store timestamps with their zone\n\nEvery timestamp that reaches the ledger is converted to UTC first.',
      },
      { message: 'Retry failed ledger writes\n\nA write that times out is retried twice with a growing delay.' },
      { message: 'Cover the new paths with tests' },
    ],
    diff,
  }
}

const RULES: ReadonlyArray<[string, string]> = [
  ['utc-timestamps', 'Every timestamp that is stored or compared is in UTC or carries its zone.'],
  ['no-secrets', 'The change adds no credential, token, private key or password to the repository.'],
  ['tests-for-behaviour', 'A change of behaviour comes with a test that would fail without it.'],
  ['no-console-logging', 'The code logs through the logger, never through console.log.'],
  ['bounded-retries', 'Every retry loop has an upper bound on attempts or time.'],
  ['no-breaking-api', 'No exported function or HTTP route changes its signature or response shape.'],
  ['migrations-reversible', 'Every database migration in the change can be rolled back.'],
  ['money-as-integers', 'Amounts of money are handled as integer minor units, never floating point.'],
  ['errors-have-codes', 'Every new error that leaves a module carries a stable error code.'],
  ['no-new-dependencies', 'The change adds no new third-party dependency.'],
]

/** The first `count` of ten realistic rules (at most ten, the spec's limit per run). */
export function someRules(count: number): Classification[] {
  return RULES.slice(0, count).map(([name, description]) => ({
    name,
    description,
    threshold: 70,
    polarity: 'positive',
  }))
}
