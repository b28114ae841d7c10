/**
 * The bounds a rules file and a request's classifications are held to
 * (docs/behaviour.md, "Repo configuration"): how many keys, entries and YAML
 * tokens a file may hold before it is read, how long and which characters a
 * name and a description may be, and how long a problem that quotes a bad
 * value may get.
 */
import { describe, expect, it } from 'bun:test'
import { DETAIL_MAX_CHARS } from '../../../core/base/text.ts'
import {
  DESCRIPTION_MAX_CHARS,
  formatRulesProblem,
  NAME_MAX_CHARS,
  parseRulesFile,
  RULES_JSON_PATH,
  RULES_MAX_ITEMS,
  RULES_MAX_YAML_TOKENS,
  RULES_YML_PATH,
  type RulesProblem,
  validateClassifications,
} from '../../../core/repo-files/rules-file.ts'

const YML = RULES_YML_PATH
const JSN = RULES_JSON_PATH
const ITEMS = `the file holds more than ${RULES_MAX_ITEMS} keys and list entries, so it isn't read; a rules file holds one key and a list of at most 10 entries of 4 to 6 keys`

function problemsOf(path: string, text: string): RulesProblem[] {
  const result = parseRulesFile(path, text)
  if (result.ok) throw new Error(`expected problems, but it loaded ${JSON.stringify(result.value)}`)
  return result.error
}

function entry(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'no-ads',
    description: 'A commit advertises a model.',
    threshold: 90,
    polarity: 'negative',
    ...overrides,
  }
}

/** The details of a one-entry list's problems. */
function detailsOf(overrides: Record<string, unknown>): string[] {
  const result = validateClassifications([entry(overrides)], 'the body')
  return result.ok ? [] : result.error.map((problem) => problem.detail)
}

describe('how much of a file is read', () => {
  const forty = `classifications:\n${Array.from({ length: 40_000 }, (_, i) => `  k${i}: v\n`).join('')}`

  it('refuses a YAML file of 40,000 keys at the key past the limit, naming the limit', () => {
    expect(problemsOf(YML, forty)).toEqual([{ file: YML, at: `line ${RULES_MAX_ITEMS + 1}, column 7`, detail: ITEMS }])
  })

  it('refuses a JSON file of 40,000 keys with the same words', () => {
    const json = `{"classifications": {${Array.from({ length: 40_000 }, (_, i) => `"k${i}": 1`).join(',\n')}}}`
    expect(problemsOf(JSN, json)).toEqual([{ file: JSN, at: `line ${RULES_MAX_ITEMS}, column 1`, detail: ITEMS }])
  })

  it('counts list entries and flow items too', () => {
    const block = `classifications:\n${'  - x\n'.repeat(RULES_MAX_ITEMS + 1)}`
    expect(problemsOf(YML, block).map((p) => p.detail)).toEqual([ITEMS])
    const flow = `classifications: [${Array.from({ length: RULES_MAX_ITEMS + 1 }, (_, i) => `{k${i}: 1}`).join(', ')}]`
    expect(problemsOf(YML, flow).map((p) => p.detail)).toEqual([ITEMS])
  })

  it('still reads a file just under the limit, and says what is wrong with it', () => {
    const entries = Array.from(
      { length: 20 },
      (_, i) => `  - name: r${i}\n    description: d\n    threshold: 1\n    polarity: positive\n`,
    )
    expect(problemsOf(YML, `classifications:\n${entries.join('')}`).map(formatRulesProblem)).toEqual([
      `${YML}: classifications: has 20 classifications; at most 10 are allowed`,
    ])
  })

  it('refuses a file of more YAML tokens than the limit, whatever they are', () => {
    const detail = `the file holds more than ${RULES_MAX_YAML_TOKENS} YAML tokens (keys, values, indicators, comments, line breaks), so it isn't read; a rules file needs a few hundred`
    for (const text of ['\n'.repeat(RULES_MAX_YAML_TOKENS + 1), `a: ${'&x '.repeat(RULES_MAX_YAML_TOKENS)}b\n`]) {
      expect(problemsOf(YML, text).map((p) => p.detail)).toEqual([detail])
    }
    expect(problemsOf(YML, '---\n'.repeat(RULES_MAX_YAML_TOKENS)).map((p) => p.detail)).toEqual([detail])
  })

  it('reads a JSON string of 900 KB as a string, with escapes', () => {
    // A regular expression took seconds over such a string; the scan is linear.
    const text = `{"classifications": "${'x\\n'.repeat(300_000)}"}`
    expect(problemsOf(JSN, text).map((p) => p.detail)).toEqual([
      `must be a list of 1 to 10 classifications, got "${'x\\n'.repeat(33)}…" (a string)`,
    ])
  })

  it('refuses flow collections nested past 64 levels before composing them', () => {
    expect(problemsOf(YML, `classifications: ${'['.repeat(65)}${']'.repeat(65)}\n`)).toEqual([
      { file: YML, at: 'line 1, column 82', detail: 'the file nests too deeply to read' },
    ])
  })

  it('finds a repeated key among hundreds, in block and flow maps, in file order with the other errors', () => {
    const keys = Array.from({ length: 400 }, (_, i) => `k${i}: 1`)
    expect(problemsOf(YML, `${keys.join('\n')}\nk3: 2\n`).map(formatRulesProblem)).toEqual([
      `${YML}: line 401, column 1: Map keys must be unique`,
    ])
    expect(problemsOf(YML, 'classifications: [{a: 1, a: 2}]\n').map(formatRulesProblem)).toEqual([
      `${YML}: line 1, column 26: Map keys must be unique`,
    ])
    // `1` and `1.0` are the same number; `"1"` is a string.
    expect(problemsOf(YML, 'x: {1: a, "1": b, 1.0: c}\n').map(formatRulesProblem)).toEqual([
      `${YML}: line 1, column 19: Map keys must be unique`,
    ])
    expect(problemsOf(YML, 'a: 1\na: 2\nb: "open\n').map(formatRulesProblem)).toEqual([
      `${YML}: line 2, column 1: Map keys must be unique`,
      `${YML}: line 4, column 1: Missing closing "quote`,
    ])
  })
})

describe('names and descriptions', () => {
  const oneLine = 'a name is one line of visible characters, with no control or format characters'

  it(`refuses a name of more than ${NAME_MAX_CHARS} characters, counted in code points`, () => {
    expect(detailsOf({ name: 'n'.repeat(NAME_MAX_CHARS) })).toEqual([])
    expect(detailsOf({ name: '😀'.repeat(NAME_MAX_CHARS) })).toEqual([])
    expect(detailsOf({ name: 'n'.repeat(NAME_MAX_CHARS + 1) })).toEqual([
      `name is ${NAME_MAX_CHARS + 1} characters long; at most ${NAME_MAX_CHARS} are allowed`,
    ])
    expect(detailsOf({ name: 'n'.repeat(200_000) })).toEqual(['name is 200000 characters long; at most 64 are allowed'])
  })

  it('refuses control and format characters and line breaks in a name, naming the character and where', () => {
    const cases: [string, string][] = [
      ['no-ads\u200b', 'U+200B (a format character) at character 7'],
      ['no\u202eads', 'U+202E (a format character) at character 3'],
      ['\u2066no-ads\u2069', 'U+2066 (a format character) at character 1'],
      ['\ufeffno-ads', 'U+FEFF (a format character) at character 1'],
      ['no\u00adads', 'U+00AD (a format character) at character 3'],
      ['no\u0000ads', 'U+0000 (a control character) at character 3'],
      ['no\u001bads', 'U+001B (a control character) at character 3'],
      ['no\u0085ads', 'U+0085 (a control character) at character 3'],
      ['no-ads\nCo-authored-by: x', 'U+000A (a control character) at character 7'],
      ['no\tads', 'U+0009 (a control character) at character 3'],
      ['no\u00a0ads', 'U+00A0 (a space other than U+0020) at character 3'],
      ['no\u2028ads', 'U+2028 (a space other than U+0020) at character 3'],
      ['😀\ud800', 'U+D800 (half of a surrogate pair) at character 2'],
    ]
    for (const [name, held] of cases) expect(detailsOf({ name })).toEqual([`name holds ${held}; ${oneLine}`])
  })

  it('keeps spaces inside a name, and refuses them at its ends', () => {
    expect(detailsOf({ name: 'no ads, ever — 広告なし' })).toEqual([])
    expect(detailsOf({ name: 'no-ads ' })).toEqual(['name ends with a space; write it without'])
    expect(detailsOf({ name: ' no-ads' })).toEqual(['name starts with a space; write it without'])
  })

  it(`refuses a description of more than ${DESCRIPTION_MAX_CHARS} characters`, () => {
    expect(detailsOf({ description: 'd'.repeat(DESCRIPTION_MAX_CHARS) })).toEqual([])
    expect(detailsOf({ description: 'd'.repeat(DESCRIPTION_MAX_CHARS + 1) })).toEqual([
      `description is ${DESCRIPTION_MAX_CHARS + 1} characters long; at most ${DESCRIPTION_MAX_CHARS} are allowed`,
    ])
  })

  it('lets a description hold newlines and tabs, and no other control or any format character', () => {
    const rest = 'a description holds no format characters, and no control characters but newline and tab'
    expect(detailsOf({ description: 'Line one.\n\tLine two.\n' })).toEqual([])
    expect(detailsOf({ description: 'Ask \u202eyes\u202c.' })).toEqual([
      `description holds U+202E (a format character) at character 5; ${rest}`,
    ])
    expect(detailsOf({ description: 'Windows\r\nline' })).toEqual([
      `description holds U+000D (a control character) at character 8; ${rest}`,
    ])
    expect(detailsOf({ description: 'bell\u0007' })).toEqual([
      `description holds U+0007 (a control character) at character 5; ${rest}`,
    ])
  })

  it('reports a name that is too long and holds a bad character as two problems', () => {
    expect(detailsOf({ name: `${'n'.repeat(70)}\u200b` })).toEqual([
      'name is 71 characters long; at most 64 are allowed',
      `name holds U+200B (a format character) at character 71; ${oneLine}`,
    ])
  })

  it('names the entry in a rules file, with the name shown escaped', () => {
    const text = `classifications:\n  - name: "no-ads\\u200b"\n    description: d\n    threshold: 1\n    polarity: positive\n`
    expect(problemsOf(YML, text).map(formatRulesProblem)).toEqual([
      `${YML}: classifications[0] (name "no-ads\\u200b"): name holds U+200B (a format character) at character 7; ${oneLine}`,
    ])
  })
})

describe('a problem that quotes a bad value', () => {
  const huge = 'x'.repeat(900_000)

  it('stays a few hundred characters, whatever the value, and ends with …', () => {
    const cases = [
      { polarity: huge },
      { [huge]: 1 },
      { name: `${huge}\u200b` },
      { threshold: huge },
      { description: { [huge]: 1 } },
    ]
    for (const overrides of cases) {
      const result = validateClassifications([entry(overrides)], 'the body')
      expect(result.ok).toBe(false)
      for (const problem of result.ok ? [] : result.error) {
        expect(formatRulesProblem(problem).length).toBeLessThan(2 * DETAIL_MAX_CHARS)
        expect(problem.detail.length).toBeLessThanOrEqual(DETAIL_MAX_CHARS)
      }
    }
    expect(detailsOf({ polarity: huge })).toEqual([
      `polarity must be "positive" or "negative", got "${'x'.repeat(99)}…" (a string)`,
    ])
  })

  it('in a file too: a 900 KB value, key, anchor or number', () => {
    const texts = [
      `classifications:\n  - name: a\n    description: d\n    threshold: 1\n    polarity: ${huge}\n`,
      `? ${huge}\n: 1\n`,
      `classifications: &${huge} []\n`,
      `classifications:\n  - name: a\n    description: d\n    threshold: 1${'0'.repeat(900_000)}\n    polarity: positive\n`,
      `{"classifications": [], "${huge.slice(0, 400_000)}": 1, "${huge.slice(0, 400_000)}": 2}`,
    ]
    for (const text of texts) {
      const path = text.startsWith('{') ? JSN : YML
      const problems = problemsOf(path, text)
      for (const problem of problems) expect(problem.detail.length).toBeLessThanOrEqual(DETAIL_MAX_CHARS)
      expect(problems.some((problem) => /(x|0){20}…/.test(problem.detail))).toBe(true)
    }
  })
})
