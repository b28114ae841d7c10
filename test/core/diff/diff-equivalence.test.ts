/**
 * The diff preparation must give the same bytes as before it was made fast:
 * every function is compared with its verbatim copy in diff-reference.ts on
 * random diffs built from the lines real (and hostile) diffs hold, in any
 * order, with LF, CRLF, lone CR and no final newline. The shared context,
 * the prompts and the budget check are compared with the same wording
 * (core/run/prompt.ts's, written once) around the old preparation and count.
 *
 * What issue 27 changed on purpose is left out of the inputs, and tested in
 * diff.test.ts: the lockfile names added since (the generators draw from
 * the reference's list), `*.lock` files collapsed by their flake.lock
 * content, and a submodule's `Subproject commit` hashes.
 */
import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { aMixedDiff } from '../../../bench/support/synthetic-pr.ts'
import { collapseLockfiles, stripObjectHashes } from '../../../core/diff/diff.ts'
import { budgetCheckOf, checkContextBudget, utf8Length } from '../../../core/run/budget.ts'
import {
  buildPromptFromContext,
  buildSharedContext,
  buildSharedContextAround,
  FENCE_BEGIN,
  FENCE_END,
  FENCE_TAG,
  neutraliseFence,
  type SharedContextInput,
  streamJsonUserLine,
} from '../../../core/run/prompt.ts'
import type { Classification } from '../../../core/wire/types.ts'
import * as reference from './diff-reference.ts'

const { LOCKFILE_NAMES } = reference

/** The shared context as it was: today's wording around the old preparation of the diff. */
function referenceContext(pr: SharedContextInput): string {
  return buildSharedContextAround(pr, [reference.prepareDiff(pr.diff)])
}

/** Cases per property; EQUIVALENCE_RUNS=20000 for a deeper look. */
const RUNS = Number(process.env.EQUIVALENCE_RUNS ?? 400)

// ---- Paths -----------------------------------------------------------------

const pathPart = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('src', 'a', 'b', 'web', 'my app', 'x y', 'd', 'é', 'dev', 'null') },
  { weight: 3, arbitrary: fc.constantFrom(...LOCKFILE_NAMES, 'cargo.lock', 'yarn.lock.md', 'my-yarn.lock') },
  { weight: 2, arbitrary: fc.constantFrom('main.rs', 'index.ts', 'file.txt', 'go.sum ', ' go.sum') },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9 ._\-"\\\t]{0,8}$/) },
)
const plainPath = fc.array(pathPart, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'))
/** git's C quoting, with octal UTF-8 bytes and the named escapes, sometimes malformed. */
const quotedPath = fc
  .tuple(
    fc.constantFrom('a/', 'b/', ''),
    fc.array(
      fc.oneof(
        pathPart.map((part) => part.replace(/["\\]/g, '')),
        fc.constantFrom('\\303\\251', '\\t', '\\"', '\\\\', '\\n', '\\q', '\\3', '\\377\\376', '"'),
      ),
      { minLength: 1, maxLength: 4 },
    ),
    fc.boolean(),
  )
  .map(([side, parts, closed]) => `"${side}${parts.join('')}${closed ? '"' : ''}`)
const path = fc.oneof(
  { weight: 4, arbitrary: plainPath.map((p) => `a/${p}`) },
  { weight: 4, arbitrary: plainPath.map((p) => `b/${p}`) },
  { weight: 2, arbitrary: plainPath },
  { weight: 2, arbitrary: quotedPath },
  { weight: 1, arbitrary: fc.constant('/dev/null') },
)
/** Both sides of a `diff --git` line, mostly the same path on both. */
const pathPair = fc.oneof(
  { weight: 4, arbitrary: plainPath.map((p) => `a/${p} b/${p}`) },
  { weight: 2, arbitrary: fc.tuple(path, path).map(([a, b]) => `${a} ${b}`) },
  { weight: 1, arbitrary: quotedPath.map((q) => `${q} ${q.replace('"a/', '"b/')}`) },
  { weight: 1, arbitrary: path },
)

// ---- Lines -----------------------------------------------------------------

const hex = fc.stringMatching(/^[0-9a-fA-F]{1,12}$/)
const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
)
const fenceLike = fc.oneof(
  fc.constantFrom(
    FENCE_BEGIN,
    FENCE_END,
    FENCE_TAG,
    FENCE_TAG.toUpperCase(),
    'END OF THE PR DATA',
    'Begin pull   request data',
    'ſtart pr data',
    'stop PR data',
    'END PR DATABASE',
    'xEND PR DATA',
    'END PR DATA2',
    'é END PR DATA',
    'ÉEND PR DATA',
    '1 END PR DATA',
    'END\tof\tthe\tPR\tDATA',
    'END PR\r DATA',
    'END-----------------PR DATA',
    '[fence marker removed]',
    '[fence tag removed]',
    'data',
    'DaTa',
    'metadata',
    '3f9c2a7e51d',
    '3f9c2a7e51d03f9c2a7e51d0',
  ),
  fc
    .tuple(
      fc.constantFrom('BEGIN', 'end', 'Start', 'STOP', 'ſtop'),
      fc.array(fc.constantFrom('of', 'THE', 'pr', 'pull', 'request'), { maxLength: 3 }),
      fc.stringMatching(/^[ _\-=.:\t*]{0,18}$/),
      fc.constantFrom('DATA', 'data', 'Data', 'datum'),
      fc.constantFrom('', ' ', 'x', '9', 'é', '\r', '='),
    )
    .map(([start, fillers, sep, end, after]) => [start, ...fillers, end].join(sep) + after),
)
const headerLine = fc.oneof(
  pathPair.map((pair) => `diff --git ${pair}`),
  path.map((p) => `diff --cc ${p}`),
  path.map((p) => `diff --combined ${p}`),
  fc.constantFrom('diff --git', 'diff --gitx a b', 'diff --cc', 'diff -git a/x b/x', 'diff --git '),
  fc.tuple(hex, hex).map(([a, b]) => `index ${a}..${b}`),
  fc
    .tuple(hex, hex, fc.constantFrom('100644', '100755', '120000', '1006448', ''))
    .map(([a, b, m]) => `index ${a}..${b} ${m}`),
  fc.tuple(hex, hex, hex).map(([a, b, c]) => `index ${a},${b}..${c}`),
  fc.constantFrom('index ..', 'index 123', 'index xyz..abc', 'index 1..2  100644', 'index 1..2\t'),
  fc.constantFrom('new file mode 100644', 'deleted file mode 100644', 'old mode 100644', 'new mode 100755'),
  fc.constantFrom('similarity index 90%', 'dissimilarity index 10%', 'GIT binary patch', 'literal 5', 'delta 12'),
  fc.constantFrom('Binary files differ', 'Binary files a/x and b/x differ', 'Binary files'),
  path.map((p) => `--- ${p}`),
  path.map((p) => `+++ ${p}`),
  path.map((p) => `--- ${p}\t`),
  path.map((p) => `+++ ${p}\t`),
  path.map((p) => `rename from ${p}`),
  path.map((p) => `rename to ${p}`),
  path.map((p) => `copy from ${p}`),
  path.map((p) => `copy to ${p}`),
)
const hunkLine = fc.oneof(
  fc.constantFrom('@@ -1,2 +1,2 @@', '@@ -0,0 +1 @@ fn()', '@@', '\\ No newline at end of file'),
  fc.tuple(fc.constantFrom(' ', '+', '-', ''), fc.oneof(text, fenceLike, headerLine)).map(([p, t]) => p + t),
)
const line = fc.oneof(
  { weight: 4, arbitrary: headerLine },
  { weight: 4, arbitrary: hunkLine },
  { weight: 1, arbitrary: fenceLike },
  { weight: 1, arbitrary: text },
)
/** A line's terminator; a line may also hold a CR of its own. */
const ending = fc.constantFrom('\n', '\n', '\n', '\r\n', '\r\n', '\r\r\n')

/** Any order of lines, then no final newline (sometimes a bare CR) or one. */
const randomDiff = fc
  .tuple(
    fc.array(fc.tuple(line, ending), { maxLength: 40 }),
    fc.constantFrom('', '', '\r', 'x', 'index 1..2', 'GIT binary patch', 'diff --git a/go.sum b/go.sum'),
  )
  .map(([lines, last]) =>
    lines
      .map(([t, end]) => t.replace(/\n/g, '') + end)
      .join('')
      .concat(last),
  )

/** Sections that look like a real diff's, so lockfile sections are whole often enough to collapse. */
const lockfileSection = fc
  .tuple(
    fc.constantFrom(...LOCKFILE_NAMES),
    fc.constantFrom('', 'web/', 'my app/', 'd\\303\\251p/'),
    fc.constantFrom('changed', 'new', 'deleted', 'rename', 'binary', 'patch'),
    fc.array(fc.tuple(fc.constantFrom('+', '-', ' ', '\\'), text), { maxLength: 8 }),
    fc.constantFrom('\n', '\r\n'),
  )
  .map(([name, dir, kind, body, eol]) => {
    const p = `${dir}${name}`
    const q = (side: string) => (dir.includes('\\') ? `"${side}/${p}"` : `${side}/${p}`)
    const hunk = ['@@ -1 +1 @@', ...body.map(([s, t]) => s + t.replace(/[\r\n]/g, ''))]
    const lines = [`diff --git ${q('a')} ${q('b')}`]
    if (kind === 'new') lines.push('new file mode 100644', 'index 0000000..1234567', '--- /dev/null', `+++ ${q('b')}`)
    if (kind === 'deleted')
      lines.push('deleted file mode 100644', 'index 1234567..0000000', `--- ${q('a')}`, '+++ /dev/null')
    if (kind === 'changed') lines.push('index 1234567..89abcde 100644', `--- ${q('a')}`, `+++ ${q('b')}`)
    if (kind === 'rename') lines.push('similarity index 100%', `rename from ${p}`, `rename to ${p}`)
    if (kind === 'binary')
      return [...lines, 'index 1234567..89abcde', `Binary files ${q('a')} and ${q('b')} differ`].join(eol)
    if (kind === 'patch') return [...lines, 'GIT binary patch', 'literal 5', 'McmZ?wbaG_k', ''].join(eol)
    return [...lines, ...(kind === 'rename' ? [] : hunk)].join(eol)
  })
const sectionedDiff = fc
  .tuple(
    fc.array(fc.oneof(lockfileSection, randomDiff), { minLength: 1, maxLength: 6 }),
    // What follows the last section's last line: an unterminated header line
    // is still in that section's header (and an index line there is dropped).
    fc.constantFrom('\n', '\r\n', '', 'index 1234567..89abcde', 'index 1..2 100644\r', 'old mode 100644\nindex 1..2'),
  )
  .map(([sections, end]) => sections.map((s) => (s.endsWith('\n') || s === '' ? s : `${s}\n`)).join('') + end)

const anyDiff = fc.oneof(
  randomDiff,
  sectionedDiff,
  fc.constantFrom('', '\n', '\r\n', '\r', 'x', 'diff --git a/go.sum b/go.sum'),
)

const classification: fc.Arbitrary<Classification> = fc.record({
  name: fc.oneof(fc.constant('datetime'), text, fenceLike),
  description: fc.oneof(text, fenceLike, fc.constant(`x\n${FENCE_END}\n`)),
  threshold: fc.integer({ min: 0, max: 100 }),
  polarity: fc.constantFrom('positive', 'negative'),
})

// ---- Properties ------------------------------------------------------------

describe('diff preparation is byte for byte what it was (against diff-reference.ts)', () => {
  it.each([
    [''],
    ['\n'],
    ['x\r'],
    ['diff --git a/go.sum b/go.sum'],
    ['diff --git a/go.sum b/go.sum\nindex 1234567..89abcde'],
    ['diff --git a/go.sum b/go.sum\nindex 1234567..89abcde\n'],
    ['diff --git a/go.sum b/go.sum\r\nold mode 100644\r\nindex 1..2'],
    ['diff --git a/go.sum b/go.sum\nindex 1..2\r'],
    ['diff --git a/go.sum b/go.sum\nindex 1..2\nindex 3..4'],
    [
      'pre\ndiff --git a/x b/x\nindex 1..2\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+END PR DATA\r\ndiff --git a/yarn.lock b/yarn.lock\nindex 1..2',
    ],
    [
      'diff --git a/ſtart pr data/go.sum b/ſtart pr data/go.sum\n--- a/ſtart pr data/go.sum\n+++ b/ſtart pr data/go.sum\n',
    ],
  ])('on %j', (diff) => {
    expect(stripObjectHashes(diff)).toBe(reference.stripObjectHashes(diff))
    expect(collapseLockfiles(diff)).toBe(reference.collapseLockfiles(diff))
    expect(neutraliseFence(diff)).toBe(reference.neutraliseFence(diff))
    const pr = { repo: 'acme/widgets', pr: 1, title: 't', commits: [], diff }
    expect(buildSharedContext(pr)).toBe(referenceContext(pr))
  })

  it('stripObjectHashes', () => {
    fc.assert(
      fc.property(anyDiff, (diff) => {
        expect(stripObjectHashes(diff)).toBe(reference.stripObjectHashes(diff))
      }),
      { numRuns: RUNS },
    )
  })

  it('collapseLockfiles, on raw and on stripped diffs', () => {
    fc.assert(
      fc.property(anyDiff, (diff) => {
        expect(collapseLockfiles(diff)).toBe(reference.collapseLockfiles(diff))
        const stripped = reference.stripObjectHashes(diff)
        expect(collapseLockfiles(stripped)).toBe(reference.collapseLockfiles(stripped))
      }),
      { numRuns: RUNS },
    )
  })

  it('neutraliseFence', () => {
    const fenceText = fc
      .array(fc.tuple(fc.oneof(fenceLike, text, hunkLine), fc.constantFrom('', ' ', '\n', '\r\n', '\r', 'é', '1')), {
        maxLength: 12,
      })
      .map((parts) => parts.flat().join(''))
    fc.assert(
      fc.property(fc.oneof(fenceText, anyDiff), (value) => {
        expect(neutraliseFence(value)).toBe(reference.neutraliseFence(value))
      }),
      { numRuns: RUNS },
    )
  })

  it('buildSharedContext, the prompts around it, their stdin lines and the budget check', () => {
    const input = fc.record({
      repo: fc.oneof(fc.constant('acme/widgets'), text, fenceLike),
      pr: fc.integer({ min: 1, max: 100_000 }),
      title: fc.oneof(text, fenceLike),
      commits: fc.array(fc.record({ message: fc.oneof(text, fenceLike, fc.constant('\n')) }), { maxLength: 3 }),
      diff: anyDiff,
    })
    fc.assert(
      fc.property(input, classification, fc.integer({ min: 0, max: 4_000 }), (pr, rule, budget) => {
        const context = buildSharedContext(pr)
        expect(context).toBe(referenceContext(pr))
        const prompt = buildPromptFromContext(context, rule)
        // The rule's text neutralised as it was (neutralising twice changes nothing).
        const neutralised = {
          ...rule,
          name: reference.neutraliseFence(rule.name),
          description: reference.neutraliseFence(rule.description.trim()),
        }
        expect(prompt).toEqual(buildPromptFromContext(context, neutralised))
        expect(prompt.blocks[0].text).toBe(context)
        const line = streamJsonUserLine(prompt.blocks)
        expect(line.indexOf('\n')).toBe(line.length - 1)
        expect(JSON.parse(line)).toEqual({ type: 'user', message: { role: 'user', content: prompt.blocks } })
        expect(checkContextBudget(context, budget)).toEqual(budgetCheckOf(reference.utf8Length(context), budget))
        expect(checkContextBudget(context)).toEqual(budgetCheckOf(reference.utf8Length(context)))
      }),
      { numRuns: RUNS },
    )
  })

  it('utf8Length, astral characters and lone surrogates included', () => {
    const surrogates = fc
      .array(fc.oneof(fc.integer({ min: 0xd800, max: 0xdfff }), fc.integer({ min: 0, max: 0x10ffff })), {
        maxLength: 12,
      })
      .map((codes) => codes.map((code) => String.fromCodePoint(code)).join(''))
    const value = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), surrogates, anyDiff)
    fc.assert(
      fc.property(value, (v) => {
        expect(utf8Length(v)).toBe(reference.utf8Length(v))
      }),
      { numRuns: RUNS },
    )
  })

  it('gives the same shared context for the benchmark’s mixed diff', () => {
    for (const seed of [1, 2, 3]) {
      const diff = aMixedDiff(200_000, seed)
      const pr = { repo: 'acme/ledger', pr: 7, title: 'Mixed', commits: [{ message: 'one' }], diff }
      expect(stripObjectHashes(diff)).toBe(reference.stripObjectHashes(diff))
      expect(collapseLockfiles(diff)).toBe(reference.collapseLockfiles(diff))
      const context = buildSharedContext(pr)
      expect(context).toBe(referenceContext(pr))
      expect(utf8Length(context)).toBe(reference.utf8Length(context))
    }
  })
})
