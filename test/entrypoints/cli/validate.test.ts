/**
 * `validate` on a repo's two files, run as the process a user runs: the
 * rules file and the examples file in the working directory, each reported
 * even when the other has problems, and a PATH of either kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { EXAMPLES_JSON_PATH, EXAMPLES_YML_PATH } from '../../../core/repo-files/examples-file.ts'
import { RULES_YML_PATH } from '../../../core/repo-files/rules-file.ts'
import { TWO_RULES_YAML } from '../../support/builders.ts'

const CLI = resolve(import.meta.dir, '../../../entrypoints/cli.ts')

const EXAMPLES = `# Labelled by the team.
examples:
  - pr: 12
    expect:
      datetime: no-match
      no-ads: not-applicable
    note: >-
      Drops tzinfo from the scheduler's timestamps,
      which the nightly report showed.
  - pr: 31
    expect:
      datetime: match
`

let root = ''
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rc-validate-'))
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A fresh directory holding `files` (paths inside it → text). */
function aRepo(files: Record<string, string>): string {
  const dir = mkdtempSync(join(root, 'repo-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(resolve(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  return dir
}

async function validate(cwd: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const child = Bun.spawn([process.execPath, 'run', CLI, 'validate', ...args], {
    cwd,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { PATH: process.env.PATH ?? '' },
  })
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, out, err }
}

describe('validate with no PATH: the rules file and the examples file', () => {
  it('prints both as tables and exits 0 when both are good', async () => {
    const dir = aRepo({ [RULES_YML_PATH]: TWO_RULES_YAML, [EXAMPLES_YML_PATH]: EXAMPLES })
    const r = await validate(dir)
    expect(r).toMatchObject({ code: 0, err: '' })
    expect(r.out).toContain(`${join(dir, RULES_YML_PATH)}: 2 classifications\n`)
    expect(r.out).toContain(`${join(dir, EXAMPLES_YML_PATH)}: 2 labelled PRs\n`)
    expect(r.out).toMatch(/\npr {2}labels {2,}note\n/)
    // The note is folded to one line and cut, the labels as the file writes them.
    expect(r.out).toMatch(
      /\n12 {2}datetime: no-match, no-ads: not-applicable {2}Drops tzinfo from the scheduler's timestamps, which the nig…\n/,
    )
    expect(r.out).toMatch(/\n31 {2}datetime: match\n/)
    expect(r.out).toContain(`every label names a classification of ${join(dir, RULES_YML_PATH)}\n`)
    expect(r.out).not.toContain('warning')
  })

  it('says in one line that there is no examples file, and exits 0', async () => {
    const r = await validate(aRepo({ [RULES_YML_PATH]: TWO_RULES_YAML }))
    expect(r).toMatchObject({ code: 0, err: '' })
    const lines = r.out.trimEnd().split('\n')
    expect(lines.at(-1)).toBe(
      `no examples file (${EXAMPLES_YML_PATH} or .json), which is fine: it is needed only to label PRs`,
    )
    expect(r.out).toContain('2 classifications')
  })

  it('warns of labels naming no classification, lists them, and still exits 0', async () => {
    const examples = `${EXAMPLES}  - pr: 40\n    expect:\n      old-name: match\n      no-ads: match\n  - pr: 41\n    expect:\n      renamed: no-match\n`
    const dir = aRepo({ [RULES_YML_PATH]: TWO_RULES_YAML, [EXAMPLES_YML_PATH]: examples })
    const r = await validate(dir)
    expect(r).toMatchObject({ code: 0, err: '' })
    expect(r.out).toContain(
      [
        `warning (not an error): 2 labels name no classification of ${join(dir, RULES_YML_PATH)}:`,
        '  pr 40: no such classification "old-name"; its label is left out',
        '  pr 41: no such classification "renamed"; its label is left out',
        "  pr 41: no label of it is left, so the PR isn't run",
        '',
      ].join('\n'),
    )
    // The table still shows every label as written.
    expect(r.out).toMatch(/\n40 {2}old-name: match, no-ads: match\n/)
  })

  it.each([
    ['broken YAML', 'examples:\n  - pr: 12\n    expect: {datetime: match\n', [/: line \d+, column \d+: /]],
    [
      'an unknown key',
      'examples:\n  - pr: 12\n    expect: {datetime: match}\n    colour: red\n',
      [/: examples\[0\] \(pr 12\): unknown key "colour"; an entry has the keys pr and expect, and optionally note$/],
    ],
    [
      'a duplicate pr',
      'examples:\n  - pr: 12\n    expect: {datetime: match}\n  - pr: 12\n    expect: {no-ads: no-match}\n',
      [/: examples\[1\] \(pr 12\): pr 12 is already labelled by examples\[0\]; PRs must be unique$/],
    ],
    [
      'a bad label and a missing key',
      'examples:\n  - pr: 7\n    expect: {datetime: maybe}\n  - note: none\n',
      [
        /: examples\[0\] \(pr 7\): expect "datetime" must be "match", "no-match" or "not-applicable", got "maybe" \(a string\)$/,
        /: examples\[1\]: missing key "pr"$/,
        /: examples\[1\]: missing key "expect"$/,
      ],
    ],
  ])(
    'exits 1 for an examples file with %s, naming file, entry and key, the rules still reported',
    async (_what, examples, expected) => {
      const dir = aRepo({ [RULES_YML_PATH]: TWO_RULES_YAML, [EXAMPLES_YML_PATH]: examples })
      const r = await validate(dir)
      expect(r.code).toBe(1)
      const lines = r.err.trimEnd().split('\n')
      expect(lines).toHaveLength(expected.length)
      for (const [i, pattern] of expected.entries()) {
        expect(lines[i]).toStartWith(`${join(dir, EXAMPLES_YML_PATH)}: `)
        expect(lines[i]).toMatch(pattern)
      }
      expect(r.out).toContain('2 classifications')
      expect(r.out).not.toContain('labelled PR')
    },
  )

  it('exits 1 when the repo holds both the .yml and the .json examples file', async () => {
    const json = JSON.stringify({ examples: [{ pr: 1, expect: { datetime: 'match' } }] })
    const r = await validate(
      aRepo({ [RULES_YML_PATH]: TWO_RULES_YAML, [EXAMPLES_YML_PATH]: EXAMPLES, [EXAMPLES_JSON_PATH]: json }),
    )
    expect(r.code).toBe(1)
    expect(r.err).toBe(
      `${EXAMPLES_YML_PATH} and ${EXAMPLES_JSON_PATH}: both exist; a repo holds one of the two, so neither is loaded\n`,
    )
    expect(r.out).toContain('2 classifications')
  })

  it('reports the examples file when the rules file has problems, and exits 1', async () => {
    const dir = aRepo({
      [RULES_YML_PATH]: TWO_RULES_YAML.replace('threshold: 90', 'threshold: 190'),
      [EXAMPLES_YML_PATH]: EXAMPLES,
    })
    const r = await validate(dir)
    expect(r.code).toBe(1)
    expect(r.err).toContain(`${join(dir, RULES_YML_PATH)}: classifications[1] (name "no-ads"): threshold`)
    expect(r.out).toContain(`${join(dir, EXAMPLES_YML_PATH)}: 2 labelled PRs\n`)
    expect(r.out).toContain(`labels not checked: ${join(dir, RULES_YML_PATH)} doesn't load\n`)
  })

  it('reports the examples file when there is no rules file, and exits 1', async () => {
    const dir = aRepo({ [EXAMPLES_YML_PATH]: EXAMPLES })
    const r = await validate(dir)
    expect(r.code).toBe(1)
    expect(r.err).toContain('no rules file')
    expect(r.out).toContain(`labels not checked: no rules file in ${dir}\n`)
  })
})

describe('validate PATH', () => {
  it('checks a file named .examples.yml as an examples file, against the rules in the working directory', async () => {
    const dir = aRepo({ [RULES_YML_PATH]: TWO_RULES_YAML })
    const path = join(aRepo({}), 'draft.examples.yml')
    writeFileSync(path, `${EXAMPLES}  - pr: 40\n    expect:\n      old-name: match\n`)
    const r = await validate(dir, path)
    expect(r).toMatchObject({ code: 0, err: '' })
    expect(r.out).toStartWith(`${path}: 3 labelled PRs\n`)
    expect(r.out).toContain('  pr 40: no such classification "old-name"; its label is left out\n')
    expect(r.out).not.toContain('classifications')
  })

  it('checks a file named .examples.json, and says when the working directory has no rules to check its labels against', async () => {
    const dir = aRepo({})
    const path = join(dir, 'labels.examples.json')
    writeFileSync(path, JSON.stringify({ examples: [{ pr: 3, expect: { datetime: 'match' }, note: 'One.\n\tTwo.' }] }))
    const r = await validate(dir, path)
    expect(r).toMatchObject({ code: 0, err: '' })
    expect(r.out).toMatch(/\n3 {3}datetime: match {2}One\. Two\.\n/)
    expect(r.out).toContain(`labels not checked: no rules file in ${dir}\n`)
  })

  it('exits 1 for an examples PATH with problems, naming it', async () => {
    const dir = aRepo({ [RULES_YML_PATH]: TWO_RULES_YAML })
    const path = join(dir, 'bad.examples.yml')
    writeFileSync(path, 'examples:\n  - pr: 0\n    expect: {datetime: match}\n')
    const r = await validate(dir, path)
    expect(r.code).toBe(1)
    expect(r.out).toBe('')
    expect(r.err).toBe(`${path}: examples[0]: pr must be a PR number, a whole number of at least 1, got 0 (a number)\n`)
  })

  it("checks an examples PATH alone: the working directory's broken rules don't fail it", async () => {
    const dir = aRepo({ [RULES_YML_PATH]: TWO_RULES_YAML.replace('polarity: negative', 'polarity: sideways') })
    const path = join(dir, 'labels.examples.yml')
    writeFileSync(path, EXAMPLES)
    const r = await validate(dir, path)
    expect(r).toMatchObject({ code: 0, err: '' })
    expect(r.out).toContain(
      `labels not checked: ${join(dir, RULES_YML_PATH)} doesn't load (\`validate\` with no PATH lists its problems)\n`,
    )
  })

  it('checks any other PATH as a rules file, as before, whatever examples file is about', async () => {
    const dir = aRepo({ [RULES_YML_PATH]: TWO_RULES_YAML, [EXAMPLES_YML_PATH]: 'not: examples\n' })
    const path = join(dir, 'draft.yml')
    writeFileSync(path, TWO_RULES_YAML)
    const r = await validate(dir, path)
    expect(r).toMatchObject({ code: 0, err: '' })
    expect(r.out).toStartWith(`${path}: 2 classifications\n\nname      polarity  threshold  description\n`)
    expect(r.out).not.toContain('example')
    // The name decides: labels in a file not named .examples.* are read as a rules file.
    const labels = join(dir, 'labels.yml')
    writeFileSync(labels, EXAMPLES)
    const wrong = await validate(dir, labels)
    expect(wrong).toMatchObject({ code: 1, out: '' })
    expect(wrong.err).toContain(
      `${labels}: top level: unknown key "examples"; the only key allowed is "classifications"`,
    )
  })
})
