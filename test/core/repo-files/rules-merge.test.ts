import { describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import {
  formatRulesProblems,
  parseRulesFile,
  RULES_JSON_PATH,
  RULES_YML_PATH,
} from '../../../core/repo-files/rules-file.ts'
import {
  formatMergeProblem,
  type MergeProblem,
  mergeClassifications,
  type RulesFileText,
} from '../../../core/repo-files/rules-merge.ts'
import type { Classification } from '../../../core/wire/types.ts'
import { aClassification } from '../../support/builders.ts'

const YML = RULES_YML_PATH
const JSN = RULES_JSON_PATH
const commented = readFileSync(join(import.meta.dir, '../../fixtures/rules/commented.yml'), 'utf8')

function merged(file: RulesFileText | null, additions: Classification[]): RulesFileText {
  const result = mergeClassifications(file, additions)
  if (!result.ok) throw new Error(`expected a merged file, got ${formatMergeProblem(result.error)}`)
  return result.value
}

function problem(file: RulesFileText | null, additions: Classification[]): MergeProblem {
  const result = mergeClassifications(file, additions)
  if (result.ok) throw new Error(`expected a problem, got:\n${result.value.text}`)
  return result.error
}

function loaded(file: RulesFileText): Classification[] {
  const result = parseRulesFile(file.path, file.text)
  if (!result.ok) throw new Error(formatRulesProblems(result.error))
  return result.value
}

const noAds = aClassification({
  name: 'no-ads',
  description: 'A commit message advertises an AI model.',
  threshold: 95,
  polarity: 'negative',
})
const changelog = aClassification({
  name: 'changelog',
  description: 'The PR adds a line to CHANGELOG.md.',
  threshold: 50,
})

describe('mergeClassifications', () => {
  it('makes a new YAML file with a header comment when the repo has none', () => {
    const file = merged(null, [changelog, noAds])
    expect(file).toEqual({
      path: YML,
      text: [
        '# Rules for the review classifier. Each entry is a yes/no question asked',
        '# about every pull request: name, description, threshold (0-100) and',
        '# polarity (positive: a match is wanted; negative: a match is a violation);',
        '# optionally paths (globs of the files it is about) and mode (advisory: never blocks).',
        'classifications:',
        '  - name: changelog',
        '    description: The PR adds a line to CHANGELOG.md.',
        '    threshold: 50',
        '    polarity: positive',
        '  - name: no-ads',
        '    description: A commit message advertises an AI model.',
        '    threshold: 95',
        '    polarity: negative',
        '',
      ].join('\n'),
    })
    expect(loaded(file)).toEqual([changelog, noAds])
  })

  it('replaces an entry in place, keeping every other byte of a commented YAML file', () => {
    const file = merged({ path: YML, text: commented }, [noAds])
    const before = commented.slice(0, commented.indexOf('threshold: 90'))
    const after = commented.slice(commented.indexOf('\n  -   description:'))
    expect(file.text).toBe(
      `${before}threshold: 95\n    polarity: negative\n    name: no-ads\n    description: A commit message advertises an AI model.\n${after}`,
    )
    expect(loaded(file).map((c) => c.name)).toEqual(['datetime', 'no-ads', 'bao-first', 'docs-updated'])
    expect(loaded(file)[1]).toEqual(noAds)
  })

  it('appends a new name after the last entry, before the trailing comments', () => {
    const file = merged({ path: YML, text: commented }, [changelog])
    const at = commented.indexOf('\n# Candidates')
    const added =
      '  - name: changelog\n    description: The PR adds a line to CHANGELOG.md.\n    threshold: 50\n    polarity: positive\n'
    expect(file.text).toBe(commented.slice(0, at) + added + commented.slice(at))
    expect(loaded(file).map((c) => c.name)).toEqual(['datetime', 'no-ads', 'bao-first', 'docs-updated', 'changelog'])
  })

  it('replaces, appends, and leaves an identical addition untouched in one merge', () => {
    const datetime = loaded({ path: YML, text: commented })[0]
    if (datetime === undefined) throw new Error('fixture has no first entry')
    const file = merged({ path: YML, text: commented }, [datetime, noAds, changelog])
    expect(file.text.startsWith(commented.slice(0, commented.indexOf('threshold: 90')))).toBe(true)
    expect(file.text).toContain(
      commented.slice(commented.indexOf('  -   description:'), commented.indexOf('\n# Candidates')),
    )
    expect(file.text.endsWith('# Candidates, not yet enabled:\n#   - name: changelog\n')).toBe(true)
    expect(loaded(file)).toEqual([datetime, noAds, ...loaded({ path: YML, text: commented }).slice(2), changelog])
  })

  it('writes the replaced entry in the key order it had', () => {
    const text = 'classifications:\n  - threshold: 10\n    polarity: positive\n    description: old\n    name: a\n'
    const file = merged({ path: YML, text }, [aClassification({ name: 'a', description: 'new', threshold: 20 })])
    expect(file.text).toBe(
      'classifications:\n  - threshold: 20\n    polarity: positive\n    description: new\n    name: a\n',
    )
  })

  it('quotes strings that YAML 1.1 would read as another type, so the file loads', () => {
    const odd = aClassification({ name: 'yes', description: '2024-01-01', threshold: 0 })
    const file = merged(null, [odd])
    expect(file.text).toContain('  - name: "yes"\n    description: "2024-01-01"\n')
    expect(loaded(file)).toEqual([odd])
  })

  it('writes multi-line and long descriptions so they read back the same', () => {
    const long = aClassification({ name: 'long', description: `${'word '.repeat(40)}ends: here # not a comment` })
    const lines = aClassification({ name: 'lines', description: 'first line\n\n  indented: line\nlast\n' })
    const file = merged({ path: YML, text: commented }, [long, lines])
    expect(loaded(file).slice(4)).toEqual([long, lines])
  })

  it('replaces a middle entry whose new description ends in blank lines without swallowing the gap after it', () => {
    // Found by the property test below: a `|+` block took in the blank line
    // the splice keeps between entries.
    const trailing = aClassification({ name: 'no-ads', description: 'a\n\n', threshold: 0, polarity: 'positive' })
    const file = merged({ path: YML, text: commented }, [trailing])
    expect(loaded(file)[1]).toEqual(trailing)
    expect(loaded(file)).toHaveLength(4)
  })

  it('follows the list style of the file for new entries', () => {
    const text = 'classifications:\n- name: a\n  description: first\n  threshold: 10\n  polarity: positive\n'
    const file = merged({ path: YML, text }, [changelog])
    expect(file.text).toBe(
      `${text}- name: changelog\n  description: The PR adds a line to CHANGELOG.md.\n  threshold: 50\n  polarity: positive\n`,
    )
  })

  it('appends to a file with no final newline', () => {
    const text = 'classifications:\n  - {name: a, description: first, threshold: 10, polarity: positive}'
    const file = merged({ path: YML, text }, [changelog])
    expect(file.text).toBe(
      `${text}\n  - name: changelog\n    description: The PR adds a line to CHANGELOG.md.\n    threshold: 50\n    polarity: positive\n`,
    )
  })

  it('replaces a flow-style entry with a block one at the same indent', () => {
    const text =
      'classifications:\n  - {name: a, description: first, threshold: 10, polarity: positive}  # one line\n  - name: b\n    description: second\n    threshold: 20\n    polarity: negative\n'
    const file = merged({ path: YML, text }, [aClassification({ name: 'a', description: 'changed' })])
    expect(file.text).toBe(
      'classifications:\n  - name: a\n    description: changed\n    threshold: 80\n    polarity: positive  # one line\n  - name: b\n    description: second\n    threshold: 20\n    polarity: negative\n',
    )
  })

  it('keeps Windows line endings in a YAML file', () => {
    const text =
      'classifications:\r\n  - name: a\r\n    description: first\r\n    threshold: 10\r\n    polarity: positive\r\n'
    const file = merged({ path: YML, text }, [changelog, aClassification({ name: 'a', description: 'second' })])
    expect(file.text).toBe(
      'classifications:\r\n  - name: a\r\n    description: second\r\n    threshold: 80\r\n    polarity: positive\r\n' +
        '  - name: changelog\r\n    description: The PR adds a line to CHANGELOG.md.\r\n    threshold: 50\r\n    polarity: positive\r\n',
    )
  })

  it('prints a flow-style list again whole, with the merge applied', () => {
    const text = 'classifications: [{name: a, description: first, threshold: 10, polarity: positive}]\n'
    const file = merged({ path: YML, text }, [aClassification({ name: 'b', description: 'on' })])
    expect(loaded(file)).toEqual([
      { name: 'a', description: 'first', threshold: 10, polarity: 'positive' },
      aClassification({ name: 'b', description: 'on' }),
    ])
  })

  it('rewrites a JSON file with 2-space indent and a final newline, in file order', () => {
    const text =
      '{"classifications":[{"polarity":"negative","name":"no-ads","description":"old","threshold":90},{"name":"b","description":"d","threshold":1,"polarity":"positive"}]}'
    const file = merged({ path: JSN, text }, [changelog, noAds])
    expect(file.path).toBe(JSN)
    expect(file.text).toBe(
      `${JSON.stringify({ classifications: [noAds, { name: 'b', description: 'd', threshold: 1, polarity: 'positive' }, changelog] }, null, 2)}\n`,
    )
    expect(file.text).toContain('\n  "classifications": [\n    {\n      "name": "no-ads",')
  })

  it('reports additions that are all in the file already, unchanged', () => {
    const existing = loaded({ path: YML, text: commented })
    const result = problem({ path: YML, text: commented }, existing.slice(1, 3))
    expect(result).toEqual({ kind: 'unchanged', path: YML })
    expect(formatMergeProblem(result)).toBe(`${YML} already holds every one of these classifications unchanged`)
  })

  it('refuses a merge that would make eleven classifications, carrying the problems', () => {
    const additions = Array.from({ length: 7 }, (_, i) => aClassification({ name: `rule-${i}` }))
    const result = problem({ path: YML, text: commented }, additions)
    expect(result.kind).toBe('result-invalid')
    expect(formatMergeProblem(result)).toBe(
      `the merged ${YML} would break the rules:\n${YML}: classifications: has 11 classifications; at most 10 are allowed`,
    )
  })

  it('refuses to merge into a file that does not load', () => {
    const text = 'classifications:\n  - name: a\n'
    const result = problem({ path: YML, text }, [changelog])
    expect(result.kind).toBe('source-invalid')
    expect(formatMergeProblem(result)).toBe(
      [
        `${YML} on the default branch doesn't load:`,
        `${YML}: classifications[0] (name "a"): missing key "description"`,
        `${YML}: classifications[0] (name "a"): missing key "threshold"`,
        `${YML}: classifications[0] (name "a"): missing key "polarity"`,
      ].join('\n'),
    )
  })

  const badAdditions: { title: string; additions: Classification[]; message: string }[] = [
    {
      title: 'no additions',
      additions: [],
      message: 'the new classifications: classifications: is empty; it needs 1 to 10 classifications',
    },
    {
      title: 'two additions with one name',
      additions: [changelog, changelog],
      message:
        'the new classifications: classifications[1] (name "changelog"): the name is already used by classifications[0]; names must be unique',
    },
    {
      title: 'an addition with an empty description',
      additions: [aClassification({ description: ' ' })],
      message: 'the new classifications: classifications[0] (name "datetime"): description is empty',
    },
  ]
  for (const { title, additions, message } of badAdditions) {
    it(`refuses ${title}`, () => {
      const result = problem({ path: YML, text: commented }, additions)
      expect(result.kind).toBe('additions-invalid')
      expect(formatMergeProblem(result)).toBe(message)
    })
  }

  it('keeps every untouched entry byte for byte and reads back as the merge, for any additions', () => {
    const source = { path: YML, text: commented }
    const existing = loaded(source)
    const text = fc
      .string({
        unit: fc.constantFrom(
          'a',
          'Z',
          ' ',
          ':',
          '#',
          '-',
          '"',
          "'",
          '\n',
          '\t',
          '\\',
          'é',
          '|',
          '>',
          '{',
          '[',
          '%',
          '@',
          '0',
          'y',
        ),
        minLength: 1,
        maxLength: 60,
      })
      .filter((s) => s.trim() !== '')
    // A name is one line with no space at its ends; a description may hold anything here.
    const name = text.map((s) => s.replace(/[\n\t]/g, '-').trim()).filter((s) => s !== '')
    const addition = fc.record({
      name: fc.oneof(fc.constantFrom(...existing.map((c) => c.name)), name),
      description: text,
      threshold: fc.integer({ min: 0, max: 100 }),
      polarity: fc.constantFrom('positive' as const, 'negative' as const),
    })
    const additions = fc.uniqueArray(addition, { minLength: 1, maxLength: 4, selector: (c) => c.name })
    fc.assert(
      fc.property(additions, (adds) => {
        const result = mergeClassifications(source, adds)
        const expected = [
          ...existing.map((entry) => adds.find((a) => a.name === entry.name) ?? entry),
          ...adds.filter((a) => !existing.some((entry) => entry.name === a.name)),
        ]
        if (!result.ok) {
          expect(result.error.kind).toBe('unchanged')
          return
        }
        expect(loaded(result.value)).toEqual(expected)
        const untouchedNames = existing
          .filter((entry) => !adds.some((a) => a.name === entry.name))
          .map((entry) => entry.name)
        for (const name of untouchedNames) expect(result.value.text).toContain(entryText(name))
      }),
      { numRuns: 300 },
    )
  })
})

/** The exact source text of one entry of the commented fixture. */
function entryText(name: string): string {
  const entries: Record<string, [string, string]> = {
    datetime: ['  # Time zones bit us twice', '    threshold: 80   # raised after the March incident\n'],
    'no-ads': ['  - threshold: 90', '      advertising for an AI model.\n'],
    'bao-first': ['  -   description:', '      polarity: positive\n'],
    'docs-updated': ['  - name: docs-updated', '    threshold: 60\n'],
  }
  const [from, to] = entries[name] ?? ['', '']
  const start = commented.indexOf(from)
  const end = commented.indexOf(to, start) + to.length
  if (start === -1 || end < to.length) throw new Error(`no entry ${name} in the fixture`)
  return commented.slice(start, end)
}
