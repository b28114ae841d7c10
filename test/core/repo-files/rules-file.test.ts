import { describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import {
  formatRulesProblem,
  formatRulesProblems,
  parseRulesFile,
  RULES_JSON_PATH,
  RULES_MAX_BYTES,
  RULES_YML_PATH,
  selectRulesFile,
  validateClassifications,
} from '../../../core/repo-files/rules-file.ts'

const YML = RULES_YML_PATH
const JSN = RULES_JSON_PATH

function fixture(name: string): string {
  return readFileSync(join(import.meta.dir, '../../fixtures/rules', name), 'utf8')
}

/** The formatted problems of a file that must not load. */
function problemsOf(path: string, text: string): string[] {
  const result = parseRulesFile(path, text)
  if (result.ok) throw new Error(`expected problems, but it loaded ${JSON.stringify(result.value)}`)
  return result.error.map(formatRulesProblem)
}

/** One valid YAML entry, with lines replaced or added per key. */
function yamlEntry(overrides: Record<string, string | null> = {}): string {
  const lines: Record<string, string | null> = {
    name: 'name: datetime',
    description: 'description: All datetimes carry time zone information.',
    threshold: 'threshold: 80',
    polarity: 'polarity: positive',
    ...overrides,
  }
  const body = Object.values(lines).filter((line): line is string => line !== null)
  return body.map((line, i) => (i === 0 ? `  - ${line}` : `    ${line}`)).join('\n')
}

function yamlFile(...entries: string[]): string {
  return `classifications:\n${entries.join('\n')}\n`
}

describe('parseRulesFile', () => {
  it('loads the example from the spec, in file order', () => {
    const result = parseRulesFile(YML, fixture('spec-example.yml'))
    expect(result).toEqual({
      ok: true,
      value: [
        {
          name: 'datetime',
          description: 'All datetimes carry time zone information.',
          polarity: 'positive',
          threshold: 80,
        },
        {
          name: 'no-ads',
          description: 'A commit message contains a co-authored-by line or other advertising for an AI model.',
          polarity: 'negative',
          threshold: 90,
        },
        {
          name: 'bao-first',
          description: 'Any added secret reaches its reader through the bao store.',
          polarity: 'positive',
          threshold: 70,
        },
        {
          name: 'docs-updated',
          description: 'The PR updates the operator-facing docs where the code change needs it.',
          polarity: 'positive',
          threshold: 60,
        },
      ],
    })
  })

  it('loads a file with comments, blank lines, quoting styles and any key order', () => {
    const result = parseRulesFile(YML, fixture('commented.yml'))
    expect(result.ok && result.value.map((c) => [c.name, c.threshold, c.polarity])).toEqual([
      ['datetime', 80, 'positive'],
      ['no-ads', 90, 'negative'],
      ['bao-first', 70, 'positive'],
      ['docs-updated', 60, 'positive'],
    ])
    expect(result.ok && result.value[3]?.description).toBe(
      'The PR updates the operator-facing docs\nwhere the code change needs it.\n',
    )
  })

  it('loads JSON, and .yaml as YAML', () => {
    const json = parseRulesFile(JSN, fixture('spec-example.json'))
    expect(json.ok && json.value.map((c) => c.name)).toEqual(['datetime', 'no-ads'])
    const yaml = parseRulesFile('rules.yaml', yamlFile(yamlEntry()))
    expect(yaml.ok && yaml.value).toEqual([
      {
        name: 'datetime',
        description: 'All datetimes carry time zone information.',
        threshold: 80,
        polarity: 'positive',
      },
    ])
  })

  it('accepts the threshold bounds 0 and 100, ten entries, and quoted strings that look like other types', () => {
    const entries = Array.from({ length: 10 }, (_, i) =>
      yamlEntry({
        name: `name: "rule-${i}"`,
        threshold: `threshold: ${i === 0 ? 0 : 100}`,
        description: "description: 'yes'",
      }),
    )
    const result = parseRulesFile(YML, yamlFile(...entries))
    expect(result.ok && result.value.length).toBe(10)
    expect(result.ok && [result.value[0]?.threshold, result.value[1]?.threshold, result.value[0]?.description]).toEqual(
      [0, 100, 'yes'],
    )
  })

  const cases: { title: string; path?: string; text: string; problems: string[] }[] = [
    // The file as a whole
    {
      title: 'an unknown extension',
      path: '.hyperhive/review-classifier.toml',
      text: 'x',
      problems: ['.hyperhive/review-classifier.toml: a rules file must end in .yml, .yaml or .json'],
    },
    { title: 'an empty file', text: '', problems: [`${YML}: the file is empty; it needs the key "classifications"`] },
    {
      title: 'a whitespace and comment only file',
      text: '  \n# nothing\n',
      problems: [`${YML}: the file is empty; it needs the key "classifications"`],
    },
    {
      title: 'an empty JSON file',
      path: JSN,
      text: ' \n',
      problems: [`${JSN}: the file is empty; it needs the key "classifications"`],
    },
    {
      title: 'a document that is a list',
      text: '- name: a\n',
      problems: [`${YML}: top level: must be a mapping with the one key "classifications", got a list`],
    },
    {
      title: 'a document that is a scalar',
      text: 'classifications\n',
      problems: [
        `${YML}: top level: must be a mapping with the one key "classifications", got "classifications" (a string)`,
      ],
    },
    {
      title: 'a document with only a start marker',
      text: '---\n',
      problems: [`${YML}: top level: must be a mapping with the one key "classifications", got nothing`],
    },
    {
      title: 'two YAML documents',
      text: `${yamlFile(yamlEntry())}---\n${yamlFile(yamlEntry())}`,
      problems: [`${YML}: line 6, column 1: the file holds 2 YAML documents; a rules file is one document`],
    },
    {
      title: 'a YAML syntax error, with its position',
      text: 'classifications:\n  - name: "open\n',
      problems: [`${YML}: line 3, column 1: Missing closing "quote`],
    },
    {
      title: 'an unclosed flow list, with only the real error',
      text: 'classifications: [\n',
      problems: [
        `${YML}: line 2, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]`,
      ],
    },
    {
      title: 'a %YAML 1.1 directive, which would turn yes into a boolean',
      text: `%YAML 1.1\n---\n${yamlFile(yamlEntry())}`,
      problems: [`${YML}: line 1: the %YAML 1.1 directive is not allowed; rules files are read as YAML 1.2`],
    },
    // The top level
    {
      title: 'a missing classifications key',
      text: 'rules: []\n',
      problems: [
        `${YML}: top level: unknown key "rules"; the only key allowed is "classifications"`,
        `${YML}: top level: missing key "classifications"`,
      ],
    },
    {
      title: 'an extra top-level key',
      text: `version: 1\n${yamlFile(yamlEntry())}`,
      problems: [`${YML}: top level: unknown key "version"; the only key allowed is "classifications"`],
    },
    {
      title: 'a duplicate top-level key',
      text: `${yamlFile(yamlEntry())}${yamlFile(yamlEntry())}`,
      problems: [`${YML}: line 6, column 1: Map keys must be unique`],
    },
    {
      title: 'a YAML merge key',
      text: `<<: {a: 1}\n${yamlFile(yamlEntry())}`,
      problems: [`${YML}: top level: unknown key "<<"; the only key allowed is "classifications"`],
    },
    {
      title: 'an empty list',
      text: 'classifications: []\n',
      problems: [`${YML}: classifications: is empty; it needs 1 to 10 classifications`],
    },
    {
      title: 'classifications with no value',
      text: 'classifications:\n',
      problems: [`${YML}: classifications: must be a list of 1 to 10 classifications, got nothing`],
    },
    {
      title: 'classifications as a mapping',
      text: 'classifications:\n  datetime: 80\n',
      problems: [`${YML}: classifications: must be a list of 1 to 10 classifications, got a mapping`],
    },
    {
      title: 'eleven entries',
      text: yamlFile(...Array.from({ length: 11 }, (_, i) => yamlEntry({ name: `name: rule-${i}` }))),
      problems: [`${YML}: classifications: has 11 classifications; at most 10 are allowed`],
    },
    // One entry
    {
      title: 'an entry that is a string',
      text: 'classifications:\n  - datetime\n',
      problems: [
        `${YML}: classifications[0]: must be a mapping with the keys name, description, threshold and polarity, and optionally paths and mode, got "datetime" (a string)`,
      ],
    },
    {
      title: 'a misspelt key',
      text: yamlFile(yamlEntry({ threshold: null, treshold: 'treshold: 80' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): unknown key "treshold"; an entry has the keys name, description, threshold and polarity, and optionally paths and mode`,
        `${YML}: classifications[0] (name "datetime"): missing key "threshold"`,
      ],
    },
    {
      title: 'an extra key in an entry',
      text: yamlFile(yamlEntry({ model: 'model: haiku' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): unknown key "model"; an entry has the keys name, description, threshold and polarity, and optionally paths and mode`,
      ],
    },
    {
      title: 'a missing name',
      text: yamlFile(yamlEntry({ name: null })),
      problems: [`${YML}: classifications[0]: missing key "name"`],
    },
    {
      title: 'a missing description',
      text: yamlFile(yamlEntry({ description: null })),
      problems: [`${YML}: classifications[0] (name "datetime"): missing key "description"`],
    },
    {
      title: 'a missing polarity',
      text: yamlFile(yamlEntry({ polarity: null })),
      problems: [`${YML}: classifications[0] (name "datetime"): missing key "polarity"`],
    },
    {
      title: 'a duplicate key in an entry',
      text: yamlFile(yamlEntry({ polarity: 'polarity: positive\n    polarity: negative' })),
      problems: [`${YML}: line 6, column 5: Map keys must be unique`],
    },
    {
      title: 'an empty name',
      text: yamlFile(yamlEntry({ name: 'name: ""' })),
      problems: [`${YML}: classifications[0]: name is empty`],
    },
    {
      title: 'a whitespace-only name',
      text: yamlFile(yamlEntry({ name: 'name: "  \\t"' })),
      problems: [`${YML}: classifications[0]: name is empty`],
    },
    {
      title: 'a whitespace-only description',
      text: yamlFile(yamlEntry({ description: "description: '   '" })),
      problems: [`${YML}: classifications[0] (name "datetime"): description is empty`],
    },
    {
      title: 'a name with no value',
      text: yamlFile(yamlEntry({ name: 'name:' })),
      problems: [`${YML}: classifications[0]: name must be a string, got nothing`],
    },
    {
      title: 'name: null',
      text: yamlFile(yamlEntry({ name: 'name: null' })),
      problems: [`${YML}: classifications[0]: name must be a string, got null (null)`],
    },
    {
      title: 'name: 123',
      text: yamlFile(yamlEntry({ name: 'name: 123' })),
      problems: [`${YML}: classifications[0]: name must be a string, got 123 (a number)`],
    },
    {
      title: 'name: true',
      text: yamlFile(yamlEntry({ name: 'name: true' })),
      problems: [`${YML}: classifications[0]: name must be a string, got true (a boolean)`],
    },
    {
      title: 'a name that is a list',
      text: yamlFile(yamlEntry({ name: 'name: [a, b]' })),
      problems: [`${YML}: classifications[0]: name must be a string, got a list`],
    },
    {
      title: 'name: yes (a YAML 1.1 boolean)',
      text: yamlFile(yamlEntry({ name: 'name: yes' })),
      problems: [
        `${YML}: classifications[0] (name "yes"): name is yes without quotes, which YAML 1.1 reads as a boolean; put it in quotes`,
      ],
    },
    {
      title: 'name: no',
      text: yamlFile(yamlEntry({ name: 'name: no' })),
      problems: [
        `${YML}: classifications[0] (name "no"): name is no without quotes, which YAML 1.1 reads as a boolean; put it in quotes`,
      ],
    },
    {
      title: 'name: on',
      text: yamlFile(yamlEntry({ name: 'name: on' })),
      problems: [
        `${YML}: classifications[0] (name "on"): name is on without quotes, which YAML 1.1 reads as a boolean; put it in quotes`,
      ],
    },
    {
      title: 'name: Off',
      text: yamlFile(yamlEntry({ name: 'name: Off' })),
      problems: [
        `${YML}: classifications[0] (name "Off"): name is Off without quotes, which YAML 1.1 reads as a boolean; put it in quotes`,
      ],
    },
    {
      title: 'name: 2024-01-01 (a YAML 1.1 date)',
      text: yamlFile(yamlEntry({ name: 'name: 2024-01-01' })),
      problems: [
        `${YML}: classifications[0] (name "2024-01-01"): name is 2024-01-01 without quotes, which YAML 1.1 reads as a date; put it in quotes`,
      ],
    },
    {
      title: 'name: 1_000 (a YAML 1.1 number)',
      text: yamlFile(yamlEntry({ name: 'name: 1_000' })),
      problems: [
        `${YML}: classifications[0] (name "1_000"): name is 1_000 without quotes, which YAML 1.1 reads as a number; put it in quotes`,
      ],
    },
    {
      title: 'description: off',
      text: yamlFile(yamlEntry({ description: 'description: off' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): description is off without quotes, which YAML 1.1 reads as a boolean; put it in quotes`,
      ],
    },
    {
      title: 'threshold: "80" (a string)',
      text: yamlFile(yamlEntry({ name: 'name: no-ads', threshold: 'threshold: "80"' })),
      problems: [
        `${YML}: classifications[0] (name "no-ads"): threshold must be a whole number 0–100, got "80" (a string)`,
      ],
    },
    {
      title: 'threshold: 80.5',
      text: yamlFile(yamlEntry({ threshold: 'threshold: 80.5' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): threshold must be a whole number 0–100, got 80.5 (a number)`,
      ],
    },
    {
      title: 'threshold: 80.0',
      text: yamlFile(yamlEntry({ threshold: 'threshold: 80.0' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): threshold must be a whole number 0–100, got 80.0 (a number); write it in plain decimal digits, like 80`,
      ],
    },
    {
      title: 'threshold: 8e1',
      text: yamlFile(yamlEntry({ threshold: 'threshold: 8e1' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): threshold must be a whole number 0–100, got 8e1 (a number); write it in plain decimal digits, like 80`,
      ],
    },
    {
      title: 'threshold: 0x50',
      text: yamlFile(yamlEntry({ threshold: 'threshold: 0x50' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): threshold must be a whole number 0–100, got 0x50 (a number); write it in plain decimal digits, like 80`,
      ],
    },
    {
      title: 'threshold: 0o120',
      text: yamlFile(yamlEntry({ threshold: 'threshold: 0o120' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): threshold must be a whole number 0–100, got 0o120 (a number); write it in plain decimal digits, like 80`,
      ],
    },
    {
      title: 'threshold: 080 (a leading zero)',
      text: yamlFile(yamlEntry({ threshold: 'threshold: 080' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): threshold must be a whole number 0–100, got 080 (a number); write it in plain decimal digits, like 80`,
      ],
    },
    {
      title: 'threshold: 101',
      text: yamlFile(yamlEntry({ threshold: 'threshold: 101' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): threshold must be a whole number 0–100, got 101 (a number)`,
      ],
    },
    {
      title: 'threshold: -1',
      text: yamlFile(yamlEntry({ threshold: 'threshold: -1' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): threshold must be a whole number 0–100, got -1 (a number)`,
      ],
    },
    {
      title: 'threshold: .inf',
      text: yamlFile(yamlEntry({ threshold: 'threshold: .inf' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): threshold must be a whole number 0–100, got .inf (a number)`,
      ],
    },
    {
      title: 'threshold: yes',
      text: yamlFile(yamlEntry({ threshold: 'threshold: true' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): threshold must be a whole number 0–100, got true (a boolean)`,
      ],
    },
    {
      title: 'polarity: yes',
      text: yamlFile(yamlEntry({ polarity: 'polarity: yes' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): polarity must be "positive" or "negative", got "yes" (a string)`,
      ],
    },
    {
      title: 'polarity: Positive',
      text: yamlFile(yamlEntry({ polarity: 'polarity: Positive' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): polarity must be "positive" or "negative", got "Positive" (a string)`,
      ],
    },
    {
      title: 'polarity: true',
      text: yamlFile(yamlEntry({ polarity: 'polarity: true' })),
      problems: [
        `${YML}: classifications[0] (name "datetime"): polarity must be "positive" or "negative", got true (a boolean)`,
      ],
    },
    {
      title: 'two entries with one name',
      text: yamlFile(
        yamlEntry({ name: 'name: no-ads' }),
        yamlEntry({ name: 'name: datetime' }),
        yamlEntry({ name: 'name: no-ads' }),
      ),
      problems: [
        `${YML}: classifications[2] (name "no-ads"): the name is already used by classifications[0]; names must be unique`,
      ],
    },
    // YAML features that make a file mean different things to different readers
    {
      title: 'an anchor and an alias',
      text: yamlFile(yamlEntry({ name: 'name: &n datetime' }), yamlEntry({ name: 'name: *n' })),
      problems: [
        `${YML}: line 2, column 11: the anchor &n is not allowed; rules files use no anchors or aliases`,
        `${YML}: line 6, column 11: the alias *n is not allowed; write the value out`,
      ],
    },
    {
      title: 'an alias bomb',
      text: `a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\n${yamlFile(yamlEntry())}`,
      problems: [
        `${YML}: line 1, column 4: the anchor &a is not allowed; rules files use no anchors or aliases`,
        `${YML}: line 2, column 4: the anchor &b is not allowed; rules files use no anchors or aliases`,
        `${YML}: line 2, column 8: the alias *a is not allowed; write the value out`,
        `${YML}: line 2, column 12: the alias *a is not allowed; write the value out`,
        `${YML}: line 3, column 4: the anchor &c is not allowed; rules files use no anchors or aliases`,
        `${YML}: line 3, column 8: the alias *b is not allowed; write the value out`,
        `${YML}: line 3, column 12: the alias *b is not allowed; write the value out`,
      ],
    },
    {
      title: 'a !!binary tag',
      text: yamlFile(yamlEntry({ description: 'description: !!binary aGVsbG8=' })),
      problems: [`${YML}: line 3, column 27: the tag !!binary is not allowed; rules files use no tags`],
    },
    {
      title: 'a !!str tag',
      text: yamlFile(yamlEntry({ name: 'name: !!str yes' })),
      problems: [`${YML}: line 2, column 17: the tag !!str is not allowed; rules files use no tags`],
    },
    {
      title: 'a custom tag',
      text: yamlFile(yamlEntry({ polarity: 'polarity: !pol positive' })),
      problems: [`${YML}: line 5, column 20: the tag !pol is not allowed; rules files use no tags`],
    },
    // JSON
    {
      title: 'a JSON syntax error, with its position',
      path: JSN,
      text: '{\n  "classifications": [\n    {"name": "a",}\n  ]\n}\n',
      problems: [`${JSN}: line 3, column 18: invalid JSON: expected a key in double quotes`],
    },
    {
      title: 'a JSON trailing comma in a list',
      path: JSN,
      text: '{"classifications": [1,]}',
      problems: [`${JSN}: line 1, column 24: invalid JSON: unexpected character "]"`],
    },
    {
      title: 'a JSON comment',
      path: JSN,
      text: '// rules\n{"classifications": []}',
      problems: [`${JSN}: line 1, column 1: invalid JSON: unexpected character "/"`],
    },
    {
      title: 'truncated JSON',
      path: JSN,
      text: '{"classifications": [',
      problems: [`${JSN}: line 1, column 22: invalid JSON: unexpected end of file`],
    },
    {
      title: 'JSON with content after the value',
      path: JSN,
      text: '{"classifications": []} {}',
      problems: [`${JSN}: line 1, column 25: invalid JSON: unexpected content after the end of the JSON value`],
    },
    {
      title: 'a JSON unterminated string',
      path: JSN,
      text: '{"classifications": "abc\n}',
      problems: [
        `${JSN}: line 1, column 21: invalid JSON: invalid string: unterminated, or a raw control character or bad escape inside`,
      ],
    },
    {
      title: 'JSON nested too deep',
      path: JSN,
      text: `${'['.repeat(100)}${']'.repeat(100)}`,
      problems: [`${JSN}: line 1, column 66: invalid JSON: nested more than 64 levels deep`],
    },
    {
      title: 'a JSON duplicate key (JSON.parse keeps the last silently)',
      path: JSN,
      text: '{\n  "classifications": [\n    {"name": "a", "description": "d", "threshold": 80, "polarity": "positive", "name": "b"}\n  ]\n}\n',
      problems: [`${JSN}: line 3, column 80: duplicate key "name" (first at line 3, column 6)`],
    },
    {
      title: 'a JSON top level that is a list',
      path: JSN,
      text: '[]',
      problems: [`${JSN}: top level: must be a mapping with the one key "classifications", got a list`],
    },
    {
      title: 'a JSON top level that is a string',
      path: JSN,
      text: '"classifications"',
      problems: [
        `${JSN}: top level: must be a mapping with the one key "classifications", got "classifications" (a string)`,
      ],
    },
    {
      title: 'a JSON threshold written as 80.0',
      path: JSN,
      text: '{"classifications": [{"name": "a", "description": "d", "threshold": 80.0, "polarity": "positive"}]}',
      problems: [
        `${JSN}: classifications[0] (name "a"): threshold must be a whole number 0–100, got 80.0 (a number); write it in plain decimal digits, like 80`,
      ],
    },
    {
      title: 'a JSON threshold as a string and a null name',
      path: JSN,
      text: '{"classifications": [{"name": null, "description": "d", "threshold": "80", "polarity": "positive"}]}',
      problems: [
        `${JSN}: classifications[0]: name must be a string, got null (null)`,
        `${JSN}: classifications[0]: threshold must be a whole number 0–100, got "80" (a string)`,
      ],
    },
  ]

  for (const { title, path, text, problems } of cases) {
    it(`refuses ${title}`, () => {
      expect(problemsOf(path ?? YML, text)).toEqual(problems)
    })
  }

  it('reports every problem in the file, not just the first', () => {
    const text = yamlFile(
      yamlEntry({ name: 'name: no-ads', threshold: 'threshold: "80"', polarity: 'polarity: yes' }),
      yamlEntry({ name: 'name: ""', extra: 'extra: 1' }),
      yamlEntry({ name: 'name: no-ads', description: null }),
    )
    expect(problemsOf(YML, `version: 2\n${text}`)).toEqual([
      `${YML}: top level: unknown key "version"; the only key allowed is "classifications"`,
      `${YML}: classifications[0] (name "no-ads"): threshold must be a whole number 0–100, got "80" (a string)`,
      `${YML}: classifications[0] (name "no-ads"): polarity must be "positive" or "negative", got "yes" (a string)`,
      `${YML}: classifications[1]: unknown key "extra"; an entry has the keys name, description, threshold and polarity, and optionally paths and mode`,
      `${YML}: classifications[1]: name is empty`,
      `${YML}: classifications[2] (name "no-ads"): missing key "description"`,
      `${YML}: classifications[2] (name "no-ads"): the name is already used by classifications[0]; names must be unique`,
    ])
  })

  it('refuses YAML nested deeper than the parser can go, with one problem', () => {
    // Where the parser's stack runs out depends on the engine, so only the line is fixed.
    const problems = problemsOf(YML, `classifications: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(
      /^\.hyperhive\/review-classifier\.yml: line 1, column \d+: the file nests too deeply to read$/,
    )
  })

  it('refuses a 5 MB file before parsing it, naming its size', () => {
    const text = `# ${'x'.repeat(5 * 1024 * 1024)}\n${yamlFile(yamlEntry())}`
    expect(problemsOf(YML, text)).toEqual([
      `${YML}: the file is at least ${text.length} bytes, over the 1048576-byte (1 MiB) limit`,
    ])
  })

  it('counts the cap in UTF-8 bytes, not characters', () => {
    // 400,000 × "é" is 800,000 bytes, under the cap; the same in "€" is 1,200,000.
    const under = `# ${'é'.repeat(400_000)}\n${yamlFile(yamlEntry())}`
    expect(parseRulesFile(YML, under).ok).toBe(true)
    const over = `# ${'€'.repeat(400_000)}\n${yamlFile(yamlEntry())}`
    const bytes = new TextEncoder().encode(over).byteLength
    expect(over.length).toBeLessThan(RULES_MAX_BYTES)
    expect(problemsOf(YML, over)).toEqual([`${YML}: the file is ${bytes} bytes, over the 1048576-byte (1 MiB) limit`])
  })

  it('loads a file of exactly the cap', () => {
    const body = yamlFile(yamlEntry())
    const text = `#${'x'.repeat(RULES_MAX_BYTES - body.length - 2)}\n${body}`
    expect(text.length).toBe(RULES_MAX_BYTES)
    expect(parseRulesFile(YML, text).ok).toBe(true)
  })

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.constantFrom(YML, JSN), (text, path) => {
        const result = parseRulesFile(path, text)
        expect(result.ok || result.error.length > 0).toBe(true)
      }),
      { numRuns: 300 },
    )
  })
})

describe('selectRulesFile', () => {
  it('picks the one file present, or none', () => {
    expect(selectRulesFile({ yml: true, json: false })).toEqual({ ok: true, value: YML })
    expect(selectRulesFile({ yml: false, json: true })).toEqual({ ok: true, value: JSN })
    expect(selectRulesFile({ yml: false, json: false })).toEqual({ ok: true, value: null })
  })

  it('refuses both, naming both files', () => {
    const result = selectRulesFile({ yml: true, json: true })
    expect(!result.ok && formatRulesProblem(result.error)).toBe(
      `${YML} and ${JSN}: both exist; a repo holds one of the two, so neither is loaded`,
    )
  })
})

describe('validateClassifications', () => {
  it('accepts a parsed list with the same rules as the file', () => {
    const list = [{ name: 'a', description: 'd', threshold: 80, polarity: 'positive' }]
    expect(validateClassifications(list, 'body')).toEqual({
      ok: true,
      value: [{ name: 'a', description: 'd', threshold: 80, polarity: 'positive' }],
    })
  })

  it('names the source in its problems', () => {
    const result = validateClassifications(
      [{ name: 'a', description: 'd', threshold: 80.5, polarity: 'up', extra: true }, 'x'],
      'request body',
    )
    expect(!result.ok && formatRulesProblems(result.error)).toBe(
      [
        'request body: classifications[0] (name "a"): unknown key "extra"; an entry has the keys name, description, threshold and polarity, and optionally paths and mode',
        'request body: classifications[0] (name "a"): threshold must be a whole number 0–100, got 80.5 (a number)',
        'request body: classifications[0] (name "a"): polarity must be "positive" or "negative", got "up" (a string)',
        'request body: classifications[1]: must be a mapping with the keys name, description, threshold and polarity, and optionally paths and mode, got "x" (a string)',
      ].join('\n'),
    )
  })

  it('refuses a value that is not a list', () => {
    const result = validateClassifications({ name: 'a' }, 'request body')
    expect(!result.ok && formatRulesProblems(result.error)).toBe(
      'request body: classifications: must be a list of 1 to 10 classifications, got a mapping',
    )
  })
})

describe('where a problem is (for an editor that shows it next to the field)', () => {
  it('names the entry and the key of each problem about one, and neither for the list', () => {
    const entry = (overrides: Record<string, unknown>) => ({
      name: 'a',
      description: 'd',
      threshold: 80,
      polarity: 'positive',
      ...overrides,
    })
    const result = validateClassifications(
      [
        entry({ threshold: 101 }),
        entry({ name: '' }),
        entry({ name: 'a', polarity: 'up' }),
        entry({ description: undefined, extra: 1 }),
        ...Array.from({ length: 7 }, (_, i) => entry({ name: `n${i}` })),
      ].map((value) => JSON.parse(JSON.stringify(value))),
      'the page',
    )
    const places = result.ok ? [] : result.error.map(({ entry, key, detail }) => ({ entry, key, detail }))
    expect(places).toEqual([
      { entry: undefined, key: undefined, detail: 'has 11 classifications; at most 10 are allowed' },
      { entry: 0, key: 'threshold', detail: 'threshold must be a whole number 0–100, got 101 (a number)' },
      { entry: 1, key: 'name', detail: 'name is empty' },
      { entry: 2, key: 'polarity', detail: 'polarity must be "positive" or "negative", got "up" (a string)' },
      { entry: 2, key: 'name', detail: 'the name is already used by classifications[0]; names must be unique' },
      {
        entry: 3,
        key: undefined,
        detail:
          'unknown key "extra"; an entry has the keys name, description, threshold and polarity, and optionally paths and mode',
      },
      { entry: 3, key: 'description', detail: 'missing key "description"' },
      { entry: 3, key: 'name', detail: 'the name is already used by classifications[0]; names must be unique' },
    ])
  })

  it('keeps the checks free of the YAML reader, so the page can bundle them', async () => {
    const built = await Bun.build({
      entrypoints: [join(import.meta.dir, '../../../core/repo-files/rules-check.ts')],
      target: 'browser',
    })
    expect(built.success).toBe(true)
    const [output] = built.outputs
    expect(await output?.text()).not.toContain('LineCounter')
  })
})
