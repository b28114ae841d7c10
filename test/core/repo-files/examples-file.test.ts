/**
 * The examples file (docs/behaviour.md, "Labelled examples and reliability"):
 * its schema, every way it can be wrong and the words for each, in YAML and
 * JSON alike, and which of its labels apply to a set of classifications.
 */
import { describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { DETAIL_MAX_CHARS } from '../../../core/base/text.ts'
import {
  applyLabels,
  describeUnknownLabel,
  EXAMPLES_JSON_PATH,
  EXAMPLES_MAX_ITEMS,
  EXAMPLES_MAX_YAML_TOKENS,
  EXAMPLES_YML_PATH,
  NOTE_MAX_CHARS,
  parseExamplesFile,
  selectExamplesFile,
  validateExamples,
} from '../../../core/repo-files/examples-file.ts'
import { formatRulesProblem, formatRulesProblems } from '../../../core/repo-files/rules-file.ts'
import type { Example } from '../../../core/wire/types.ts'

const YML = EXAMPLES_YML_PATH
const JSN = EXAMPLES_JSON_PATH
const ENTRY_KEYS = 'an entry has the keys pr and expect, and optionally note'
const ONE_LINE = 'a name is one line of visible characters, with no control or format characters'

function fixture(name: string): string {
  return readFileSync(join(import.meta.dir, '../../fixtures/examples', name), 'utf8')
}

function loaded(path: string, text: string): Example[] {
  const result = parseExamplesFile(path, text)
  if (!result.ok) throw new Error(`expected it to load, got ${formatRulesProblems(result.error)}`)
  return result.value
}

/** The formatted problems of a file that must not load. */
function problemsOf(path: string, text: string): string[] {
  const result = parseExamplesFile(path, text)
  if (result.ok) throw new Error(`expected problems, but it loaded ${JSON.stringify(result.value)}`)
  return result.error.map(formatRulesProblem)
}

/** One valid YAML entry, with lines replaced or added per key; `expect` is its whole block. */
function yamlEntry(overrides: Record<string, string | null> = {}): string {
  const lines: Record<string, string | null> = {
    pr: 'pr: 12',
    expect: 'expect:\n      datetime: match',
    ...overrides,
  }
  const body = Object.values(lines).filter((line): line is string => line !== null)
  return body.map((line, i) => (i === 0 ? `  - ${line}` : `    ${line}`)).join('\n')
}

function yamlFile(...entries: string[]): string {
  return `examples:\n${entries.join('\n')}\n`
}

function jsonFile(...entries: unknown[]): string {
  return JSON.stringify({ examples: entries })
}

describe('parseExamplesFile', () => {
  it('loads a commented file in file order, keys in any order, the note kept', () => {
    expect(loaded(YML, fixture('commented.yml'))).toEqual([
      {
        pr: 12,
        expect: { datetime: 'no-match', 'no-ads': 'not-applicable' },
        note: "Drops tzinfo from the scheduler's timestamps; the rule must catch it.",
      },
      { pr: 31, expect: { datetime: 'match' } },
      { pr: 40, expect: { 'no-ads': 'match' }, note: 'A Co-authored-by: line in the second commit.' },
    ])
  })

  it('loads JSON to the same shape, and .yaml as YAML', () => {
    expect(loaded(JSN, fixture('example.json'))).toEqual([
      { pr: 12, expect: { datetime: 'no-match', 'no-ads': 'not-applicable' }, note: 'Drops tzinfo.' },
      { pr: 31, expect: { datetime: 'match' } },
    ])
    expect(loaded('labels.yaml', yamlFile(yamlEntry()))).toEqual([{ pr: 12, expect: { datetime: 'match' } }])
  })

  it('accepts fifty entries of ten labels, a note of 500 characters, and names that look like other types', () => {
    const labels = Array.from({ length: 10 }, (_, i) => `      "rule-${i}": not-applicable`).join('\n')
    const entries = Array.from({ length: 50 }, (_, i) =>
      yamlEntry({ pr: `pr: ${i + 1}`, expect: `expect:\n${labels}`, note: `note: "${'n'.repeat(NOTE_MAX_CHARS)}"` }),
    )
    const examples = loaded(YML, yamlFile(...entries))
    expect(examples).toHaveLength(50)
    expect(Object.keys(examples[49]?.expect ?? {})).toHaveLength(10)
    expect(
      loaded(YML, yamlFile(yamlEntry({ expect: 'expect:\n      "yes": match\n      "2024-01-01": no-match' }))),
    ).toEqual([{ pr: 12, expect: { yes: 'match', '2024-01-01': 'no-match' } }])
  })

  it('keeps a label named like an Object property as a plain own key', () => {
    const [example] = loaded(JSN, jsonFile({ pr: 3, expect: { ['__proto__']: 'match', constructor: 'no-match' } }))
    expect(Object.entries(example?.expect ?? {})).toEqual([
      ['__proto__', 'match'],
      ['constructor', 'no-match'],
    ])
    expect(Object.getPrototypeOf(example?.expect)).toBe(Object.prototype)
  })

  const cases: { title: string; path?: string; text: string; problems: string[] }[] = [
    // The file as a whole, in the rules file's words
    {
      title: 'an unknown extension',
      path: '.hyperhive/review-classifier.examples.toml',
      text: 'x',
      problems: ['.hyperhive/review-classifier.examples.toml: an examples file must end in .yml, .yaml or .json'],
    },
    { title: 'an empty file', text: '', problems: [`${YML}: the file is empty; it needs the key "examples"`] },
    {
      title: 'an empty JSON file',
      path: JSN,
      text: ' \n',
      problems: [`${JSN}: the file is empty; it needs the key "examples"`],
    },
    {
      title: 'two YAML documents',
      text: `${yamlFile(yamlEntry())}---\n${yamlFile(yamlEntry())}`,
      problems: [`${YML}: line 5, column 1: the file holds 2 YAML documents; an examples file is one document`],
    },
    {
      title: 'a %YAML 1.1 directive',
      text: `%YAML 1.1\n---\n${yamlFile(yamlEntry())}`,
      problems: [`${YML}: line 1: the %YAML 1.1 directive is not allowed; examples files are read as YAML 1.2`],
    },
    {
      title: 'an anchor and an alias',
      text: yamlFile(yamlEntry({ pr: 'pr: &n 12' }), yamlEntry({ pr: 'pr: *n' })),
      problems: [
        `${YML}: line 2, column 9: the anchor &n is not allowed; examples files use no anchors or aliases`,
        `${YML}: line 5, column 9: the alias *n is not allowed; write the value out`,
      ],
    },
    {
      title: 'a tag',
      text: yamlFile(yamlEntry({ pr: 'pr: !!int "12"' })),
      problems: [`${YML}: line 2, column 15: the tag !!int is not allowed; examples files use no tags`],
    },
    {
      title: 'a YAML syntax error, with its position',
      text: 'examples:\n  - pr: "12\n',
      problems: [`${YML}: line 3, column 1: Missing closing "quote`],
    },
    {
      title: 'a duplicate label in YAML',
      text: yamlFile(yamlEntry({ expect: 'expect:\n      datetime: match\n      datetime: no-match' })),
      problems: [`${YML}: line 5, column 7: Map keys must be unique`],
    },
    {
      title: 'a duplicate label in JSON (JSON.parse keeps the last silently)',
      path: JSN,
      text: '{"examples": [{"pr": 1, "expect": {"a": "match", "a": "no-match"}}]}',
      problems: [`${JSN}: line 1, column 50: duplicate key "a" (first at line 1, column 36)`],
    },
    {
      title: 'a JSON syntax error, with its position',
      path: JSN,
      text: '{"examples": [{"pr": 1,}]}',
      problems: [`${JSN}: line 1, column 24: invalid JSON: expected a key in double quotes`],
    },
    // The top level
    {
      title: 'a document that is a list',
      text: '- pr: 1\n',
      problems: [`${YML}: top level: must be a mapping with the one key "examples", got a list`],
    },
    {
      title: 'a missing examples key, and an unknown one',
      text: 'labels: []\n',
      problems: [
        `${YML}: top level: unknown key "labels"; the only key allowed is "examples"`,
        `${YML}: top level: missing key "examples"`,
      ],
    },
    {
      title: 'the rules file’s key in the examples file',
      text: `classifications: []\n${yamlFile(yamlEntry())}`,
      problems: [`${YML}: top level: unknown key "classifications"; the only key allowed is "examples"`],
    },
    {
      title: 'an empty list',
      text: 'examples: []\n',
      problems: [`${YML}: examples: is empty; it needs 1 to 50 examples`],
    },
    {
      title: 'examples with no value',
      text: 'examples:\n',
      problems: [`${YML}: examples: must be a list of 1 to 50 examples, got nothing`],
    },
    {
      title: 'examples as a mapping, in JSON',
      path: JSN,
      text: '{"examples": {"12": {"datetime": "match"}}}',
      problems: [`${JSN}: examples: must be a list of 1 to 50 examples, got a mapping`],
    },
    {
      title: 'fifty-one entries',
      text: yamlFile(...Array.from({ length: 51 }, (_, i) => yamlEntry({ pr: `pr: ${i + 1}` }))),
      problems: [`${YML}: examples: has 51 examples; at most 50 are allowed`],
    },
    // One entry
    {
      title: 'an entry that is a number',
      text: 'examples:\n  - 12\n',
      problems: [
        `${YML}: examples[0]: must be a mapping with the keys pr and expect, and optionally note, got 12 (a number)`,
      ],
    },
    {
      title: 'a misspelt key',
      text: yamlFile(yamlEntry({ expect: null, expects: 'expects:\n      datetime: match' })),
      problems: [
        `${YML}: examples[0] (pr 12): unknown key "expects"; ${ENTRY_KEYS}`,
        `${YML}: examples[0] (pr 12): missing key "expect"`,
      ],
    },
    {
      title: 'a rule’s key in an entry',
      text: yamlFile(yamlEntry({ threshold: 'threshold: 80' })),
      problems: [`${YML}: examples[0] (pr 12): unknown key "threshold"; ${ENTRY_KEYS}`],
    },
    {
      title: 'a missing pr',
      text: yamlFile(yamlEntry({ pr: null })),
      problems: [`${YML}: examples[0]: missing key "pr"`],
    },
    {
      title: 'pr: 0',
      text: yamlFile(yamlEntry({ pr: 'pr: 0' })),
      problems: [`${YML}: examples[0]: pr must be a PR number, a whole number of at least 1, got 0 (a number)`],
    },
    {
      title: 'pr: -3',
      text: yamlFile(yamlEntry({ pr: 'pr: -3' })),
      problems: [`${YML}: examples[0]: pr must be a PR number, a whole number of at least 1, got -3 (a number)`],
    },
    {
      title: 'pr: 12.5',
      text: yamlFile(yamlEntry({ pr: 'pr: 12.5' })),
      problems: [`${YML}: examples[0]: pr must be a PR number, a whole number of at least 1, got 12.5 (a number)`],
    },
    {
      title: 'pr: "12" (a string)',
      text: yamlFile(yamlEntry({ pr: 'pr: "12"' })),
      problems: [`${YML}: examples[0]: pr must be a PR number, a whole number of at least 1, got "12" (a string)`],
    },
    {
      title: 'pr: 0x0c',
      text: yamlFile(yamlEntry({ pr: 'pr: 0x0c' })),
      problems: [
        `${YML}: examples[0]: pr must be a PR number, a whole number of at least 1, got 0x0c (a number); write it in plain decimal digits, like 12`,
      ],
    },
    {
      title: 'pr: 012 (a leading zero, 10 in YAML 1.1)',
      text: yamlFile(yamlEntry({ pr: 'pr: 012' })),
      problems: [
        `${YML}: examples[0]: pr must be a PR number, a whole number of at least 1, got 012 (a number); write it in plain decimal digits, like 12`,
      ],
    },
    {
      title: 'pr: 1e1',
      text: yamlFile(yamlEntry({ pr: 'pr: 1e1' })),
      problems: [
        `${YML}: examples[0]: pr must be a PR number, a whole number of at least 1, got 1e1 (a number); write it in plain decimal digits, like 10`,
      ],
    },
    {
      title: 'a pr past what a number keeps exactly',
      text: yamlFile(yamlEntry({ pr: 'pr: 100000000000000000000' })),
      problems: [
        `${YML}: examples[0]: pr is 100000000000000000000 (a number), more than any PR number (at most 9007199254740991)`,
      ],
    },
    {
      title: 'a JSON pr written as 12.0',
      path: JSN,
      text: '{"examples": [{"pr": 12.0, "expect": {"a": "match"}}]}',
      problems: [
        `${JSN}: examples[0]: pr must be a PR number, a whole number of at least 1, got 12.0 (a number); write it in plain decimal digits, like 12`,
      ],
    },
    {
      title: 'two entries for one PR',
      text: yamlFile(yamlEntry(), yamlEntry({ pr: 'pr: 13' }), yamlEntry()),
      problems: [`${YML}: examples[2] (pr 12): pr 12 is already labelled by examples[0]; PRs must be unique`],
    },
    // expect
    {
      title: 'a missing expect',
      text: yamlFile(yamlEntry({ expect: null })),
      problems: [`${YML}: examples[0] (pr 12): missing key "expect"`],
    },
    {
      title: 'expect as a list of names',
      text: yamlFile(yamlEntry({ expect: 'expect: [datetime]' })),
      problems: [
        `${YML}: examples[0] (pr 12): expect must be a mapping of classification names to match, no-match or not-applicable, got a list`,
      ],
    },
    {
      title: 'expect as one label',
      text: yamlFile(yamlEntry({ expect: 'expect: match' })),
      problems: [
        `${YML}: examples[0] (pr 12): expect must be a mapping of classification names to match, no-match or not-applicable, got "match" (a string)`,
      ],
    },
    {
      title: 'an empty expect',
      text: yamlFile(yamlEntry({ expect: 'expect: {}' })),
      problems: [`${YML}: examples[0] (pr 12): expect is empty; it needs 1 to 10 labels`],
    },
    {
      title: 'eleven labels',
      text: yamlFile(
        yamlEntry({
          expect: `expect:\n${Array.from({ length: 11 }, (_, i) => `      r${i}: match`).join('\n')}`,
        }),
      ),
      problems: [`${YML}: examples[0] (pr 12): expect has 11 labels; at most 10 are allowed`],
    },
    {
      title: 'a label that is not a verdict',
      text: yamlFile(yamlEntry({ expect: 'expect:\n      datetime: fail' })),
      problems: [
        `${YML}: examples[0] (pr 12): expect "datetime" must be "match", "no-match" or "not-applicable", got "fail" (a string)`,
      ],
    },
    {
      title: 'a label written as a YAML boolean',
      text: yamlFile(yamlEntry({ expect: 'expect:\n      datetime: yes' })),
      problems: [
        `${YML}: examples[0] (pr 12): expect "datetime" must be "match", "no-match" or "not-applicable", got "yes" (a string)`,
      ],
    },
    {
      title: 'a label in the wrong case, and one with no value',
      text: yamlFile(yamlEntry({ expect: 'expect:\n      datetime: Match\n      no-ads:' })),
      problems: [
        `${YML}: examples[0] (pr 12): expect "datetime" must be "match", "no-match" or "not-applicable", got "Match" (a string)`,
        `${YML}: examples[0] (pr 12): expect "no-ads" must be "match", "no-match" or "not-applicable", got nothing`,
      ],
    },
    {
      title: 'a label as a mapping',
      text: yamlFile(yamlEntry({ expect: 'expect:\n      datetime: {verdict: match}' })),
      problems: [
        `${YML}: examples[0] (pr 12): expect "datetime" must be "match", "no-match" or "not-applicable", got a mapping`,
      ],
    },
    {
      title: 'a label under a number',
      text: yamlFile(yamlEntry({ expect: 'expect:\n      123: match' })),
      problems: [`${YML}: examples[0] (pr 12): expect key 123 (a number) must be a classification's name, a string`],
    },
    {
      title: 'a label under yes (a YAML 1.1 boolean)',
      text: yamlFile(yamlEntry({ expect: 'expect:\n      yes: match' })),
      problems: [
        `${YML}: examples[0] (pr 12): expect key is yes without quotes, which YAML 1.1 reads as a boolean; put it in quotes`,
      ],
    },
    {
      title: 'a label under an empty name',
      text: yamlFile(yamlEntry({ expect: 'expect:\n      "  ": match' })),
      problems: [`${YML}: examples[0] (pr 12): expect key "  " is empty`],
    },
    {
      title: 'a label under a name too long to be one',
      text: yamlFile(yamlEntry({ expect: `expect:\n      ${'n'.repeat(65)}: match` })),
      problems: [
        `${YML}: examples[0] (pr 12): expect key "${'n'.repeat(65)}" is 65 characters long; at most 64 are allowed`,
      ],
    },
    {
      title: 'a label under a name with a zero-width space',
      text: yamlFile(yamlEntry({ expect: 'expect:\n      "no-ads\\u200b": match' })),
      problems: [
        `${YML}: examples[0] (pr 12): expect key "no-ads\\u200b" holds U+200B (a format character) at character 7; ${ONE_LINE}`,
      ],
    },
    {
      title: 'a label under a name with a trailing space',
      text: yamlFile(yamlEntry({ expect: 'expect:\n      "no-ads ": match' })),
      problems: [`${YML}: examples[0] (pr 12): expect key "no-ads " ends with a space; write it without`],
    },
    // note
    {
      title: 'a note that is a number',
      text: yamlFile(yamlEntry({ note: 'note: 42' })),
      problems: [`${YML}: examples[0] (pr 12): note must be a string, got 42 (a number)`],
    },
    {
      title: 'a note with no value',
      text: yamlFile(yamlEntry({ note: 'note:' })),
      problems: [`${YML}: examples[0] (pr 12): note must be a string, got nothing`],
    },
    {
      title: 'note: off (a YAML 1.1 boolean)',
      text: yamlFile(yamlEntry({ note: 'note: off' })),
      problems: [
        `${YML}: examples[0] (pr 12): note is off without quotes, which YAML 1.1 reads as a boolean; put it in quotes`,
      ],
    },
    {
      title: 'an empty note',
      text: yamlFile(yamlEntry({ note: "note: ' '" })),
      problems: [`${YML}: examples[0] (pr 12): note is empty; leave the key out instead`],
    },
    {
      title: 'a note of 501 characters',
      text: yamlFile(yamlEntry({ note: `note: ${'n'.repeat(501)}` })),
      problems: [`${YML}: examples[0] (pr 12): note is 501 characters long; at most 500 are allowed`],
    },
    {
      title: 'a note with a bidi override',
      text: yamlFile(yamlEntry({ note: 'note: "Looks \\u202efine"' })),
      problems: [
        `${YML}: examples[0] (pr 12): note holds U+202E (a format character) at character 7; a note holds no format characters, and no control characters but newline and tab`,
      ],
    },
    // JSON alike
    {
      title: 'a JSON top level that is a list',
      path: JSN,
      text: '[]',
      problems: [`${JSN}: top level: must be a mapping with the one key "examples", got a list`],
    },
    {
      title: 'a JSON entry with a string pr, a bad label and a null note',
      path: JSN,
      text: jsonFile({ pr: '12', expect: { datetime: 'pass' }, note: null }),
      problems: [
        `${JSN}: examples[0]: pr must be a PR number, a whole number of at least 1, got "12" (a string)`,
        `${JSN}: examples[0]: expect "datetime" must be "match", "no-match" or "not-applicable", got "pass" (a string)`,
        `${JSN}: examples[0]: note must be a string, got null (null)`,
      ],
    },
    {
      title: 'a JSON entry with an unknown key and two entries for one PR',
      path: JSN,
      text: jsonFile({ pr: 7, expect: { a: 'match' } }, { pr: 7, expect: { a: 'no-match' }, label: 'match' }),
      problems: [
        `${JSN}: examples[1] (pr 7): unknown key "label"; ${ENTRY_KEYS}`,
        `${JSN}: examples[1] (pr 7): pr 7 is already labelled by examples[0]; PRs must be unique`,
      ],
    },
  ]

  for (const { title, path, text, problems } of cases) {
    it(`refuses ${title}`, () => {
      expect(problemsOf(path ?? YML, text)).toEqual(problems)
    })
  }

  it('says the same of the same entries in YAML and in JSON', () => {
    const entries: unknown[][] = [
      [{ pr: 0, expect: { a: 'match' } }],
      [{ pr: 1.5, expect: [] }],
      [{ pr: 2, expect: {}, note: '' }],
      [{ pr: 3, expect: { '': 'match', b: 'yes', 'c\u200b': null } }],
      [{ pr: 4, expect: { a: 'match' }, extra: true, note: 'n'.repeat(501) }],
      [
        { pr: 5, expect: { a: 'match' } },
        { pr: 5, expect: { a: 'no-match' } },
      ],
      ['entry', null, []],
    ]
    for (const list of entries) {
      // JSON text is YAML too: the one file, read as each.
      const text = jsonFile(...list)
      const where = (path: string) => problemsOf(path, text).map((problem) => problem.slice(path.length))
      expect(where(YML)).toEqual(where(JSN))
      expect(where(JSN).length).toBeGreaterThan(0)
    }
  })

  it('reports every problem in the file, each naming its entry and key', () => {
    const text = yamlFile(
      yamlEntry({ pr: 'pr: 0', note: 'note: 3' }),
      yamlEntry({ expect: 'expect: {}', extra: 'extra: 1' }),
      yamlEntry({ expect: 'expect:\n      a: nope' }),
    )
    const result = parseExamplesFile(YML, `version: 1\n${text}`)
    const places = result.ok ? [] : result.error.map(({ at, entry, key, detail }) => ({ at, entry, key, detail }))
    expect(places).toEqual([
      {
        at: 'top level',
        entry: undefined,
        key: undefined,
        detail: 'unknown key "version"; the only key allowed is "examples"',
      },
      {
        at: 'examples[0]',
        entry: 0,
        key: 'pr',
        detail: 'pr must be a PR number, a whole number of at least 1, got 0 (a number)',
      },
      { at: 'examples[0]', entry: 0, key: 'note', detail: 'note must be a string, got 3 (a number)' },
      { at: 'examples[1] (pr 12)', entry: 1, key: undefined, detail: `unknown key "extra"; ${ENTRY_KEYS}` },
      { at: 'examples[1] (pr 12)', entry: 1, key: 'expect', detail: 'expect is empty; it needs 1 to 10 labels' },
      {
        at: 'examples[2] (pr 12)',
        entry: 2,
        key: 'expect',
        detail: 'expect "a" must be "match", "no-match" or "not-applicable", got "nope" (a string)',
      },
      {
        at: 'examples[2] (pr 12)',
        entry: 2,
        key: 'pr',
        detail: 'pr 12 is already labelled by examples[1]; PRs must be unique',
      },
    ])
  })

  it('bounds what it reads with limits of its own, in the rules file’s words', () => {
    const items = `the file holds more than ${EXAMPLES_MAX_ITEMS} keys and list entries, so it isn't read; an examples file holds one key and a list of at most 50 entries of 3 keys and 10 labels`
    expect(problemsOf(YML, `examples:\n${'  - x\n'.repeat(EXAMPLES_MAX_ITEMS + 1)}`)).toEqual([
      `${YML}: line ${EXAMPLES_MAX_ITEMS + 1}, column 3: ${items}`,
    ])
    const json = `{"examples": [${Array.from({ length: EXAMPLES_MAX_ITEMS + 1 }, () => '1').join(',\n')}]}`
    expect(problemsOf(JSN, json)).toEqual([`${JSN}: line ${EXAMPLES_MAX_ITEMS}, column 1: ${items}`])
    expect(problemsOf(YML, '\n'.repeat(EXAMPLES_MAX_YAML_TOKENS + 1))).toEqual([
      `${YML}: line ${EXAMPLES_MAX_YAML_TOKENS + 1}, column 1: the file holds more than ${EXAMPLES_MAX_YAML_TOKENS} YAML tokens (keys, values, indicators, comments, line breaks), so it isn't read; a full examples file needs about 5,000`,
    ])
  })

  it('reads a file over the rules file’s limits that a full examples file can reach', () => {
    // 701 keys and entries, about 5,000 tokens with its comments: past the rules file's 500 and near its 10,000.
    const labels = Array.from({ length: 10 }, (_, i) => `      rule-${i}: match  # why\n`).join('')
    const note = `    note: >-\n${'      A line of the note that says why.\n'.repeat(12)}`
    const entries = Array.from(
      { length: 50 },
      (_, i) => `  # PR ${i + 1}\n  - pr: ${i + 1}\n    expect:\n${labels}${note}`,
    )
    expect(loaded(YML, `examples:\n${entries.join('')}`)).toHaveLength(50)
  })

  it('refuses a file over 1 MiB before parsing it, as for the rules', () => {
    const text = `# ${'x'.repeat(2 * 1024 * 1024)}\n${yamlFile(yamlEntry())}`
    expect(problemsOf(YML, text)).toEqual([
      `${YML}: the file is at least ${text.length} bytes, over the 1048576-byte (1 MiB) limit`,
    ])
  })

  it('keeps a problem that quotes a huge value short', () => {
    const huge = 'x'.repeat(200_000)
    for (const text of [
      jsonFile({ pr: 1, expect: { [huge]: 'match' } }),
      jsonFile({ pr: 1, expect: { a: huge } }),
      jsonFile({ pr: 1, expect: { a: 'match' }, [huge]: 1 }),
      jsonFile({ pr: huge, expect: { a: 'match' } }),
    ]) {
      for (const problem of problemsOf(JSN, text)) expect(problem.length).toBeLessThan(2 * DETAIL_MAX_CHARS)
    }
  })

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.constantFrom(YML, JSN), (text, path) => {
        const result = parseExamplesFile(path, text)
        expect(result.ok || result.error.length > 0).toBe(true)
      }),
      { numRuns: 300 },
    )
  })
})

describe('selectExamplesFile', () => {
  it('picks the one file present, or none', () => {
    expect(selectExamplesFile({ yml: true, json: false })).toEqual({ ok: true, value: YML })
    expect(selectExamplesFile({ yml: false, json: true })).toEqual({ ok: true, value: JSN })
    expect(selectExamplesFile({ yml: false, json: false })).toEqual({ ok: true, value: null })
  })

  it('refuses both, naming both files, as for the rules', () => {
    const result = selectExamplesFile({ yml: true, json: true })
    expect(!result.ok && formatRulesProblem(result.error)).toBe(
      `${YML} and ${JSN}: both exist; a repo holds one of the two, so neither is loaded`,
    )
  })
})

describe('validateExamples', () => {
  it('checks a parsed value in the file’s shape with the same rules, naming its source', () => {
    expect(validateExamples([{ pr: 4, expect: { a: 'match' } }], 'the page')).toEqual({
      ok: true,
      value: [{ pr: 4, expect: { a: 'match' } }],
    })
    const result = validateExamples(
      [
        { pr: 4, expect: { a: 'yes' } },
        { pr: 4.5, expect: {} },
      ],
      'the page',
    )
    expect(!result.ok && formatRulesProblems(result.error)).toBe(
      [
        'the page: examples[0] (pr 4): expect "a" must be "match", "no-match" or "not-applicable", got "yes" (a string)',
        'the page: examples[1]: pr must be a PR number, a whole number of at least 1, got 4.5 (a number)',
        'the page: examples[1]: expect is empty; it needs 1 to 10 labels',
      ].join('\n'),
    )
  })
})

describe('applyLabels', () => {
  const examples: Example[] = [
    { pr: 12, expect: { datetime: 'no-match', 'no-ads': 'not-applicable' } },
    { pr: 31, expect: { 'old-name': 'match' } },
    // A name like an Object property is a name like any other (a literal with the key `constructor` won't type).
    {
      pr: 40,
      expect: Object.fromEntries([
        ['no-ads', 'match'],
        ['datetime', 'match'],
        ['constructor', 'match'],
      ] as const),
    },
  ]

  it('gives each classification its labelled PRs in the file’s order, and the PRs to run', () => {
    const applied = applyLabels(examples, [{ name: 'no-ads' }, { name: 'datetime' }, { name: 'new-rule' }])
    expect(applied.classifications).toEqual([
      {
        name: 'no-ads',
        labelled: [
          { pr: 12, expected: 'not-applicable' },
          { pr: 40, expected: 'match' },
        ],
      },
      {
        name: 'datetime',
        labelled: [
          { pr: 12, expected: 'no-match' },
          { pr: 40, expected: 'match' },
        ],
      },
      { name: 'new-rule', labelled: [] },
    ])
    // PR 31 labels only a name the rules don't have: nothing to run it for.
    expect(applied.prs).toEqual([12, 40])
  })

  it('sets aside a label for a name the rules don’t have, not as a problem with the file', () => {
    const applied = applyLabels(examples, [{ name: 'datetime' }])
    expect(applied.unknown).toEqual([
      { pr: 12, name: 'no-ads' },
      { pr: 31, name: 'old-name' },
      { pr: 40, name: 'no-ads' },
      { pr: 40, name: 'constructor' },
    ])
    expect(applied.unknown.map(describeUnknownLabel)).toContain(
      'pr 31: no such classification "old-name"; its label is left out',
    )
  })

  it('takes a name only as the file spells it', () => {
    const applied = applyLabels(examples, [{ name: 'Datetime' }, { name: 'toString' }])
    expect(applied.classifications.map(({ labelled }) => labelled)).toEqual([[], []])
    expect(applied.prs).toEqual([])
  })
})

describe('the checks the page may bundle', () => {
  it('keeps examples-check free of the YAML reader', async () => {
    const built = await Bun.build({
      entrypoints: [join(import.meta.dir, '../../../core/repo-files/examples-check.ts')],
      target: 'browser',
    })
    expect(built.success).toBe(true)
    expect(await built.outputs[0]?.text()).not.toContain('LineCounter')
  })
})
