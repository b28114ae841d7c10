import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import {
  placeholder,
  REDACTION_NOTE,
  type RedactionInput,
  redactSharedContext,
} from '../../../core/redaction/redact.ts'
import { KINDS } from '../../../core/redaction/rules.ts'
import { neutraliseFence } from '../../../core/run/prompt.ts'
import { Random, type Sample, SECRET_KINDS } from './redact-corpus.ts'
import { NEUTRAL_WORDS, NON_SECRETS } from './redact-lookalikes.ts'

/** Everything the redaction gives back as text, in one string. */
function allText(result: ReturnType<typeof redactSharedContext>): string {
  return [result.title, ...result.commits, result.diff.join('')].join('\n')
}

/**
 * Whether any part of the secrets is in the text: a secret whole, or any
 * 8 characters of one. Eight is short enough that a secret cannot survive
 * by halves, and long enough that the random parts of the corpus cannot
 * meet it by chance in the words around them.
 */
function leaked(text: string, secrets: readonly string[]): string | undefined {
  for (const secret of secrets) {
    if (text.includes(secret)) return secret
    for (let i = 0; i + 8 <= secret.length; i++) {
      if (text.includes(secret.slice(i, i + 8))) return secret.slice(i, i + 8)
    }
  }
  return undefined
}

type Placement = {
  where: 'title' | 'commit' | 'diff'
  before: string[]
  after: string[]
  open: string
  close: string
  marker: '+' | '-' | ' '
  linesBefore: number
  linesAfter: number
  commit: number
}

const placement: fc.Arbitrary<Placement> = fc.record({
  where: fc.constantFrom('title' as const, 'commit' as const, 'diff' as const),
  before: fc.array(fc.constantFrom(...NEUTRAL_WORDS), { maxLength: 5 }),
  after: fc.array(fc.constantFrom(...NEUTRAL_WORDS), { maxLength: 5 }),
  // What may stand right before a token, and what gitleaks' rules take as its end.
  open: fc.constantFrom('', ' ', '"', "'", '`', '=', ': ', '(', '\t'),
  close: fc.constantFrom('', ' ', '"', "'", '`', ';', '\t'),
  marker: fc.constantFrom('+' as const, '-' as const, ' ' as const),
  linesBefore: fc.integer({ min: 0, max: 4 }),
  linesAfter: fc.integer({ min: 0, max: 4 }),
  commit: fc.integer({ min: 0, max: 2 }),
})

type Placed = { input: RedactionInput; blockStart: number; blockEnd: number; oldStart: number }

const PATH = 'src/settings/deploy.ts'

/** The sample's text amid neutral words, on one line of the title, a commit message or a hunk. */
function place(sampleText: string, multiline: boolean, p: Placement): Placed {
  const prefix = `${p.before.join(' ')}${p.before.length > 0 ? ' ' : ''}${p.open}`
  const suffix = `${p.close}${p.after.length > 0 ? ' ' : ''}${p.after.join(' ')}`
  const text = `${prefix}${sampleText}${suffix}`
  const commits = ['Tidy the widget list', 'Count the items\n\nAfter the update, render the total.', 'Fix the label']
  if (p.where === 'title') {
    return { input: { title: multiline ? text.replace(/\n/g, ' ') : text, commits, diff: '' }, ...NO_BLOCK }
  }
  if (p.where === 'commit') {
    const message = ['Render the widget', '', ...Array.from({ length: p.linesBefore }, () => 'Update the count.'), text]
    const placed = [...commits]
    placed[p.commit] = [...message, ...Array.from({ length: p.linesAfter }, () => 'Done.')].join('\n')
    return { input: { title: 'Tidy up', commits: placed, diff: '' }, ...NO_BLOCK }
  }
  const lines = text.split('\n')
  const before = Array.from({ length: p.linesBefore }, (_, i) => ` const item${i} = items[${i}]`)
  const after = Array.from({ length: p.linesAfter }, (_, i) => ` render(total + ${i})`)
  const placedLines = lines.map((line) => `${p.marker}${line}`)
  const oldStart = 12
  const oldCount = before.length + after.length + (p.marker === '+' ? 0 : lines.length)
  const newCount = before.length + after.length + (p.marker === '-' ? 0 : lines.length)
  const diff = [
    `diff --git a/${PATH} b/${PATH}`,
    `--- a/${PATH}`,
    `+++ b/${PATH}`,
    `@@ -${oldStart},${oldCount} +${oldStart},${newCount} @@ export function render()`,
    ...before,
    ...placedLines,
    ...after,
    '',
  ].join('\n')
  return {
    input: { title: 'Tidy up', commits, diff },
    blockStart: oldStart + before.length,
    blockEnd: oldStart + before.length + lines.length - 1,
    oldStart,
  }
}

const NO_BLOCK = { blockStart: 0, blockEnd: 0, oldStart: 0 }

function sampleOf(kind: number, seed: number): Sample & { kinds: readonly string[]; name: string } {
  const secretKind = SECRET_KINDS[kind]
  if (secretKind === undefined) throw new RangeError(`no secret kind ${kind}`)
  return { ...secretKind.make(new Random(seed)), kinds: secretKind.kinds, name: secretKind.name }
}

describe('redaction of the corpus', () => {
  it('takes out every kind of secret wherever it stands, and says where', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: SECRET_KINDS.length - 1 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        placement,
        (kind, seed, p) => {
          const sample = sampleOf(kind, seed)
          const { input, blockStart, blockEnd } = place(sample.text, sample.multiline, p)
          const result = redactSharedContext(input)
          const text = allText(result)
          expect({ kind: sample.name, leaked: leaked(text, sample.secrets) }).toEqual({
            kind: sample.name,
            leaked: undefined,
          })
          expect(result.findings.some((finding) => sample.kinds.includes(finding.kind))).toBe(true)
          expect(result.redacted).toBeGreaterThanOrEqual(1)
          // No finding holds the value, nor any part of it.
          expect(leaked(JSON.stringify(result.findings), sample.secrets)).toBeUndefined()
          const finding = result.findings.find((f) => sample.kinds.includes(f.kind))
          if (p.where === 'title') expect(finding).toMatchObject({ part: 'title' })
          if (p.where === 'commit') expect(finding).toMatchObject({ part: 'commit', commit: p.commit + 1 })
          if (p.where === 'diff') {
            expect(finding).toMatchObject({ part: 'diff', path: PATH, side: p.marker === '-' ? 'old' : 'new' })
            const line = finding?.part === 'diff' ? (finding.line ?? -1) : -1
            expect(line).toBeGreaterThanOrEqual(blockStart)
            expect(line).toBeLessThanOrEqual(blockEnd)
            // The hunk keeps its lines and every line its marker.
            const out = result.diff.join('').split('\n')
            const before = input.diff.split('\n')
            expect(out.length).toBe(before.length)
            expect(out.map((l) => l.slice(0, 1))).toEqual(before.map((l) => l.slice(0, 1)))
          }
        },
      ),
      { numRuns: 400 },
    )
  })

  it('leaves every look-alike byte for byte, wherever it stands', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: NON_SECRETS.length - 1 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        placement,
        (kind, seed, p) => {
          const sample = NON_SECRETS[kind]?.make(new Random(seed))
          if (sample === undefined) throw new RangeError(`no look-alike ${kind}`)
          const { input } = place(sample.text, sample.multiline, p)
          const result = redactSharedContext(input)
          expect(result.findings).toEqual([])
          expect(result.redacted).toBe(0)
          expect(result.title).toBe(input.title)
          expect(result.commits).toEqual([...input.commits])
          expect(result.diff.join('')).toBe(input.diff)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('finds every kind of the corpus alone on a line', () => {
    for (const kind of SECRET_KINDS) {
      for (let seed = 1; seed <= 20; seed++) {
        const sample = kind.make(new Random(seed))
        const result = redactSharedContext({ title: '', commits: [sample.text], diff: '' })
        expect({ kind: kind.name, seed, leaked: leaked(allText(result), sample.secrets) }).toEqual({
          kind: kind.name,
          seed,
          leaked: undefined,
        })
      }
    }
  })

  it('finds nothing in a real diff of ordinary code', () => {
    const diff = [
      'diff --git a/core/cache.ts b/core/cache.ts',
      'index 3f2a1b0..9c8d7e6 100644',
      '--- a/core/cache.ts',
      '+++ b/core/cache.ts',
      '@@ -1,4 +1,6 @@',
      " import { createHash } from 'node:crypto'",
      '-const TTL = 60',
      '+const TTL_SECONDS = 60',
      '+const keyOf = (token: string) => createHash("sha256").update(token).digest("hex")',
      '+export const apiVersion = "2024-06-01"',
      ' export function get(key: string) {',
      '   return store.get(keyOf(key))',
      '',
    ].join('\n')
    expect(redactSharedContext({ title: 'Cache by key', commits: ['Hash the key'], diff }).findings).toEqual([])
  })
})

// Fake secrets of fixed kinds for the tests below, built at run time from the corpus' generator.
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const GITHUB = `ghp_${new Random(1).chars(ALNUM, 36)}`
const NPM = `npm_${new Random(2).chars(ALNUM, 36)}`

describe('placeholders', () => {
  it('gives the same secret the same number everywhere, counted in order of first appearance', () => {
    const diff = [
      'diff --git a/.env b/.env',
      '--- a/.env',
      '+++ b/.env',
      '@@ -1,2 +1,3 @@',
      ` GITHUB_TOKEN=${GITHUB}`,
      `-NPM_TOKEN=${NPM}`,
      `+NPM_TOKEN=${NPM} # and ${GITHUB}`,
      '',
    ].join('\n')
    const result = redactSharedContext({ title: `Rotate ${NPM}`, commits: [`Uses ${GITHUB}`], diff })
    expect(result.title).toBe(`Rotate ${placeholder('npm-access-token', 1)}`)
    expect(result.commits).toEqual([`Uses ${placeholder('github-pat', 2)}`])
    expect(result.diff.join('')).toBe(
      diff.split(GITHUB).join('[redacted github-pat #2]').split(NPM).join('[redacted npm-access-token #1]'),
    )
    expect(result.redacted).toBe(2)
    expect(result.findings).toEqual([
      { kind: 'npm-access-token', n: 1, part: 'title' },
      { kind: 'github-pat', n: 2, part: 'commit', commit: 1 },
      { kind: 'github-pat', n: 2, part: 'diff', path: '.env', line: 1, side: 'new' },
      { kind: 'npm-access-token', n: 1, part: 'diff', path: '.env', line: 2, side: 'old' },
      { kind: 'npm-access-token', n: 1, part: 'diff', path: '.env', line: 2, side: 'new' },
      { kind: 'github-pat', n: 2, part: 'diff', path: '.env', line: 2, side: 'new' },
    ])
  })

  it('gives the same bytes for the same parts, and finds nothing left in what it gave', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: SECRET_KINDS.length - 1 }), fc.integer({ min: 1, max: 1e9 })), {
          minLength: 1,
          maxLength: 5,
        }),
        (picks) => {
          const samples = picks.map(([kind, seed]) => sampleOf(kind, seed).text)
          const body = samples.flatMap((text) => text.split('\n')).map((line) => `+${line}`)
          const diff = [
            'diff --git a/notes.txt b/notes.txt',
            '--- a/notes.txt',
            '+++ b/notes.txt',
            `@@ -0,0 +1,${body.length} @@`,
            ...body,
            '',
          ].join('\n')
          const input = { title: samples[0]?.split('\n')[0] ?? '', commits: samples.slice(0, 2), diff }
          const first = redactSharedContext(input)
          expect(redactSharedContext(input)).toEqual(first)
          // Numbers run 1..n with no gap, in order of first appearance.
          const seen: number[] = []
          for (const finding of first.findings) if (!seen.includes(finding.n)) seen.push(finding.n)
          expect(seen).toEqual(Array.from({ length: first.redacted }, (_, i) => i + 1))
          // A placeholder is no secret: redacting the result again changes nothing.
          const again = redactSharedContext({ title: first.title, commits: first.commits, diff: first.diff.join('') })
          expect(again.findings).toEqual([])
          expect(again.diff.join('')).toBe(first.diff.join(''))
        },
      ),
      { numRuns: 60 },
    )
  })

  it('never reads as a fence line: the fence neutralisation leaves every kind of placeholder as it is', () => {
    for (const kind of KINDS) {
      const text = `${placeholder(kind, 12)}\n+END PR ${placeholder(kind, 3)}\nBEGIN PULL REQUEST ${placeholder(kind, 4)}`
      expect(neutraliseFence(text)).toBe(text)
    }
  })

  it('says what a placeholder is, in the form the placeholders take', () => {
    expect(placeholder('github-pat', 3)).toBe('[redacted github-pat #3]')
    expect(REDACTION_NOTE).toContain('[redacted <kind> #<n>]')
  })
})

describe('what is taken out', () => {
  it('takes the whole token when a rule matches only its start', () => {
    // gitleaks' gitlab-pat matches `glpat-` and 20 characters; the token here has 26.
    const token = `glpat-${new Random(3).chars(ALNUM, 26)}`
    const result = redactSharedContext({ title: `see ${token} here`, commits: [], diff: '' })
    expect(result.title).toBe('see [redacted gitlab-pat #1] here')
  })

  it('keeps the name beside a secret and takes only the value', () => {
    const secret = new Random(4).chars(ALNUM, 40)
    const result = redactSharedContext({ title: '', commits: [`aws_secret_access_key = ${secret}`], diff: '' })
    expect(result.commits).toEqual(['aws_secret_access_key = [redacted aws-secret-access-key #1]'])
  })

  it('keeps the lines and markers of a key over several lines, and its CRLF endings', () => {
    const body = Array.from({ length: 4 }, (_, i) => `MIIEpAIBAAKCAQEA${new Random(10 + i).chars(ALNUM, 48)}`)
    const key = ['-----BEGIN RSA PRIVATE KEY-----', ...body, '-----END RSA PRIVATE KEY-----']
    const diff = [
      'diff --git a/deploy/key.pem b/deploy/key.pem',
      'new file mode 100600',
      '--- /dev/null',
      '+++ b/deploy/key.pem',
      `@@ -0,0 +1,${key.length + 1} @@`,
      ...key.map((line) => `+${line}`),
      '+# end',
      '',
    ].join('\r\n')
    const result = redactSharedContext({ title: '', commits: [], diff })
    const lines = result.diff.join('').split('\r\n')
    expect(lines.slice(5)).toEqual(['+[redacted private-key #1]', '+', '+', '+', '+', '+', '+# end', ''])
    expect(result.findings).toEqual([
      { kind: 'private-key', n: 1, part: 'diff', path: 'deploy/key.pem', line: 1, side: 'new' },
    ])
  })

  it('names a deleted file by its old path, and a secret in a path redacted', () => {
    const diff = [
      `diff --git a/tokens/${GITHUB}.txt b/tokens/${GITHUB}.txt`,
      'deleted file mode 100644',
      `--- a/tokens/${GITHUB}.txt`,
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      `-${NPM}`,
      '',
    ].join('\n')
    const result = redactSharedContext({ title: '', commits: [], diff })
    const where = `tokens/${placeholder('github-pat', 1)}.txt`
    expect(result.findings).toEqual([
      { kind: 'github-pat', n: 1, part: 'diff', path: where, line: null, side: null },
      { kind: 'github-pat', n: 1, part: 'diff', path: where, line: null, side: null },
      { kind: 'github-pat', n: 1, part: 'diff', path: where, line: null, side: null },
      { kind: 'npm-access-token', n: 2, part: 'diff', path: where, line: 1, side: 'old' },
    ])
    expect(result.diff.join('')).not.toContain(GITHUB)
  })

  it('counts the lines of each hunk from its header', () => {
    const diff = [
      'diff --git a/a.env b/a.env',
      '--- a/a.env',
      '+++ b/a.env',
      '@@ -10,3 +20,4 @@ section',
      ' one',
      '-two',
      '+two',
      `+TOKEN=${NPM}`,
      ' three',
      '@@ -40 +51,2 @@',
      ' four',
      `+OTHER=${GITHUB}`,
      '\\ No newline at end of file',
      '',
    ].join('\n')
    const places = redactSharedContext({ title: '', commits: [], diff }).findings.map((f) =>
      f.part === 'diff' ? [f.line, f.side] : [],
    )
    expect(places).toEqual([
      [22, 'new'],
      [52, 'new'],
    ])
  })

  it('leaves a context with no secret as it was, the diff in one piece', () => {
    const input = { title: 'Add a widget', commits: ['Add it'], diff: 'diff --git a/x b/x\n+const x = 1\n' }
    const result = redactSharedContext(input)
    expect(result).toEqual({ ...input, commits: ['Add it'], diff: [input.diff], findings: [], redacted: 0 })
  })

  it('cuts the redacted diff only at line ends', () => {
    const diff = `diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -0,0 +1,2 @@\n+a ${NPM} b\n+c\n`
    const pieces = redactSharedContext({ title: '', commits: [], diff }).diff
    expect(pieces.slice(0, -1).every((piece) => piece.endsWith('\n'))).toBe(true)
    expect(pieces.join('')).toBe(diff.replace(NPM, '[redacted npm-access-token #1]'))
  })
})
