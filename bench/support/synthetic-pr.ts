/**
 * A realistic, deterministic pull request for the benchmarks: a unified diff
 * of TypeScript-looking hunks over several files, built from a seeded PRNG
 * so every run (and every machine) sends the same bytes, and ten rules like
 * the ones a repo would have.
 */
import type { Classification, CommitMessage } from '../../core/wire/types.ts'

/** mulberry32: small, fast, and the same sequence everywhere for one seed. */
export function seededRandom(seed: number): () => number {
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

export function pick<T>(random: () => number, items: readonly T[]): T {
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

export function fileDiff(random: () => number, path: string, targetBytes: number): string {
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

// ---- A mixed diff for the diff-preparation benchmark -----------------------

/** The code words plus the ones that make fence-like candidates ("data", "end"...) as real code has them. */
const MIXED_WORDS = [...WORDS, 'data', 'metadata', 'start', 'end', 'begin', 'stop', 'pull', 'request']
const UNICODE_NOTES = ['Zürich', 'café', 'naïve', '東京', 'Ελλάδα', 'emoji 😀', 'math 𝑥²', 'Straße']
const CODE_EXTENSIONS = ['ts', 'ts', 'ts', 'tsx', 'rs', 'go', 'py', 'md']
const BINARY_FILES = ['assets/logo.png', 'assets/icon.ico', 'fonts/inter.woff2', 'docs/diagram.pdf']
const LOCKFILES = ['package-lock.json', 'web/package-lock.json', 'Cargo.lock', 'go.sum', 'yarn.lock', 'flake.lock']
const BASE85 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~'

function hash(random: () => number, length: number): string {
  let text = ''
  while (text.length < length)
    text += Math.floor(random() * 0xffffffff)
      .toString(16)
      .padStart(8, '0')
  return text.slice(0, length)
}

function mixedIdentifier(random: () => number): string {
  const first = pick(random, MIXED_WORDS)
  const second = pick(random, MIXED_WORDS)
  return first + second.charAt(0).toUpperCase() + second.slice(1)
}

/** A code line; about 1 in 40 carries non-ASCII text and about 1 in 4,000 a fence-like phrase. */
function mixedCodeLine(random: () => number): string {
  const roll = random()
  const indent = '  '.repeat(1 + Math.floor(random() * 3))
  if (roll < 0.00025) return `${indent}// marks the END OF PR DATA section in the ${pick(random, WORDS)} export`
  if (roll < 0.025) return `${indent}label = '${pick(random, UNICODE_NOTES)} ${mixedIdentifier(random)}'`
  if (roll < 0.1)
    return `${indent}const ${mixedIdentifier(random)} = read${pick(random, ['Data', 'Metadata'])}(${mixedIdentifier(random)})`
  return codeLine(random)
}

function hunks(random: () => number, targetBytes: number, cr: string): string[] {
  const lines: string[] = []
  let size = 0
  let oldStart = 1 + Math.floor(random() * 40)
  while (size < targetBytes) {
    const context = Array.from({ length: 3 }, () => ` ${mixedCodeLine(random)}${cr}`)
    const removed = Array.from({ length: Math.floor(random() * 6) }, () => `-${mixedCodeLine(random)}${cr}`)
    const added = Array.from({ length: 2 + Math.floor(random() * 12) }, () => `+${mixedCodeLine(random)}${cr}`)
    const trailing = Array.from({ length: 3 }, () => ` ${mixedCodeLine(random)}${cr}`)
    const oldCount = context.length + removed.length + trailing.length
    const newCount = context.length + added.length + trailing.length
    const hunk = [
      `@@ -${oldStart},${oldCount} +${oldStart},${newCount} @@ export function ${mixedIdentifier(random)}()`,
      ...context,
      ...removed,
      ...added,
      ...trailing,
    ]
    lines.push(...hunk)
    size += hunk.reduce((sum, line) => sum + line.length + 1, 0)
    oldStart += oldCount + 10 + Math.floor(random() * 30)
  }
  return lines
}

/** One file section of a mixed diff, as lines without their `\n`. */
function mixedSection(random: () => number, index: number): string[] {
  const roll = random()
  const dir = pick(random, DIRS)
  const name = `${dir}/${mixedIdentifier(random)}-${index}.${pick(random, CODE_EXTENSIONS)}`
  const index_ = (mode = ' 100644') => `index ${hash(random, 7)}..${hash(random, 7)}${mode}`
  const size = 2_000 + Math.floor(random() * 10_000)
  if (roll < 0.06) {
    // A lockfile: long runs of generated lines.
    const lock = pick(random, LOCKFILES)
    const body: string[] = []
    let bytes = 0
    const target = 20_000 + Math.floor(random() * 100_000)
    while (bytes < target) {
      const pkg = mixedIdentifier(random).toLowerCase()
      const version = `${Math.floor(random() * 9)}.${Math.floor(random() * 30)}.${Math.floor(random() * 20)}`
      const sign = random() < 0.7 ? '+' : '-'
      const line = lock.endsWith('go.sum')
        ? `${sign}github.com/acme/${pkg} v${version} h1:${hash(random, 43)}=`
        : lock.endsWith('Cargo.lock')
          ? `${sign}checksum = "${hash(random, 64)}"`
          : `${sign}      "resolved": "https://registry.npmjs.org/${pkg}/-/${pkg}-${version}.tgz",`
      body.push(line)
      bytes += line.length + 1
    }
    return [
      `diff --git a/${lock} b/${lock}`,
      index_(),
      `--- a/${lock}`,
      `+++ b/${lock}`,
      `@@ -1,${body.length} +1,${body.length} @@`,
      ...body,
    ]
  }
  if (roll < 0.07) {
    return [`diff --git a/bun.lockb b/bun.lockb`, index_(), 'Binary files a/bun.lockb and b/bun.lockb differ']
  }
  if (roll < 0.1) {
    const file = pick(random, BINARY_FILES).replace('.', `-${index}.`)
    if (random() < 0.5)
      return [`diff --git a/${file} b/${file}`, index_(), `Binary files a/${file} and b/${file} differ`]
    const data = Array.from({ length: 20 + Math.floor(random() * 200) }, () =>
      Array.from({ length: 66 }, () => pick(random, [...BASE85])).join(''),
    )
    return [
      `diff --git a/${file} b/${file}`,
      index_(),
      'GIT binary patch',
      `literal ${data.length * 52}`,
      ...data.map((line) => `z${line}`),
      '',
      'literal 0',
      'HcmV?d00001',
      '',
    ]
  }
  if (roll < 0.16) {
    const body = hunks(random, size, '').map((line) => (line.startsWith('@@') ? line : `+${line.slice(1)}`))
    return [
      `diff --git a/${name} b/${name}`,
      'new file mode 100644',
      index_(''),
      '--- /dev/null',
      `+++ b/${name}`,
      ...body,
    ]
  }
  if (roll < 0.19) {
    const body = hunks(random, size, '').map((line) => (line.startsWith('@@') ? line : `-${line.slice(1)}`))
    return [
      `diff --git a/${name} b/${name}`,
      'deleted file mode 100644',
      index_(''),
      `--- a/${name}`,
      '+++ /dev/null',
      ...body,
    ]
  }
  if (roll < 0.24) {
    const to = `${pick(random, DIRS)}/${mixedIdentifier(random)}-${index}.ts`
    const pure = random() < 0.3
    return [
      `diff --git a/${name} b/${to}`,
      `similarity index ${pure ? 100 : 60 + Math.floor(random() * 39)}%`,
      `rename from ${name}`,
      `rename to ${to}`,
      ...(pure ? [] : [index_(), `--- a/${name}`, `+++ b/${to}`, ...hunks(random, size, '')]),
    ]
  }
  if (roll < 0.26) return [`diff --git a/${name} b/${name}`, 'old mode 100644', 'new mode 100755']
  if (roll < 0.29) {
    // A path with a space: git ends its ---/+++ paths with a tab.
    const spaced = `docs/user guide ${index}.md`
    return [
      `diff --git a/${spaced} b/${spaced}`,
      index_(),
      `--- a/${spaced}\t`,
      `+++ b/${spaced}\t`,
      ...hunks(random, size, ''),
    ]
  }
  if (roll < 0.31) {
    // A non-ASCII path, C-quoted the way git writes it.
    const quoted = `docs/caf\\303\\251-${index}.md`
    return [
      `diff --git "a/${quoted}" "b/${quoted}"`,
      index_(),
      `--- "a/${quoted}"`,
      `+++ "b/${quoted}"`,
      ...hunks(random, size, ''),
    ]
  }
  // A modified file; about 1 in 12 has CRLF content lines, and about 1 in 40 is CRLF throughout.
  const crlf = random()
  const lines = [
    `diff --git a/${name} b/${name}`,
    index_(),
    `--- a/${name}`,
    `+++ b/${name}`,
    ...hunks(random, size, crlf < 0.08 ? '\r' : ''),
  ]
  return crlf < 0.025 ? lines.map((line) => (line.endsWith('\r') ? line : `${line}\r`)) : lines
}

/**
 * A diff of about `diffBytes` UTF-8 bytes (a little over: it ends on a whole
 * section) mixing what PR diffs hold: modified, new, deleted, renamed and
 * mode-only files, lockfiles (about 40 % of the bytes), binary files
 * (plain and `GIT binary patch`), paths with spaces and C-quoted non-ASCII
 * paths, CRLF content, non-ASCII and astral text, words like "data" and
 * "end" and, rarely, a fence-like phrase. Deterministic for one seed.
 */
export function aMixedDiff(diffBytes: number, seed = 20261201): string {
  const random = seededRandom(seed)
  const encoder = new TextEncoder()
  const sections: string[] = []
  let bytes = 0
  for (let index = 0; bytes < diffBytes; index += 1) {
    const section = `${mixedSection(random, index).join('\n')}\n`
    sections.push(section)
    bytes += encoder.encode(section).length
  }
  return sections.join('')
}
