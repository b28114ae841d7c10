import { describe, expect, it } from 'bun:test'
import { changedNames } from '../../../core/repo-files/open-pr.ts'
import {
  formatRulesProblem,
  parseRulesFile,
  RULES_JSON_PATH,
  RULES_YML_PATH,
  validateClassifications,
} from '../../../core/repo-files/rules-file.ts'
import { formatMergeProblem, mergeClassifications } from '../../../core/repo-files/rules-merge.ts'
import type { Classification } from '../../../core/wire/types.ts'
import { aClassification } from '../../support/builders.ts'

const YML = RULES_YML_PATH
const JSN = RULES_JSON_PATH

const ISSUE_EXAMPLE = `classifications:
  - name: migrations-reversible
    description: Every new migration has a working down step.
    polarity: positive
    threshold: 80
    paths: ["db/migrations/**", "!db/migrations/legacy/**"]
    mode: advisory
`

function problemsOf(path: string, text: string): string[] {
  const result = parseRulesFile(path, text)
  if (result.ok) throw new Error(`expected problems, but it loaded ${JSON.stringify(result.value)}`)
  return result.error.map(formatRulesProblem)
}

function withKeys(extra: string): string {
  return `classifications:\n  - name: sql\n    description: Queries are parameterised.\n    threshold: 80\n    polarity: positive\n${extra}`
}

describe('paths and mode in the rules file', () => {
  it("loads the issue's example, in YAML and in JSON alike", () => {
    const expected: Classification[] = [
      {
        name: 'migrations-reversible',
        description: 'Every new migration has a working down step.',
        threshold: 80,
        polarity: 'positive',
        paths: ['db/migrations/**', '!db/migrations/legacy/**'],
        mode: 'advisory',
      },
    ]
    expect(parseRulesFile(YML, ISSUE_EXAMPLE)).toEqual({ ok: true, value: expected })
    expect(parseRulesFile(JSN, JSON.stringify({ classifications: expected }))).toEqual({ ok: true, value: expected })
  })

  it('leaves both keys out of an entry that has neither: every file, blocking', () => {
    const loaded = parseRulesFile(YML, withKeys(''))
    expect(loaded.ok && loaded.value[0]).toEqual({
      name: 'sql',
      description: 'Queries are parameterised.',
      threshold: 80,
      polarity: 'positive',
    })
  })

  it('names the entry and the pattern of a broken pattern', () => {
    expect(problemsOf(YML, withKeys('    paths: ["src/**", "db/[z-a].sql"]\n'))).toEqual([
      `${YML}: classifications[0] (name "sql"): paths[1]: pattern "db/[z-a].sql" has the range "z-a" out of order`,
    ])
    expect(problemsOf(JSN, JSON.stringify({ classifications: [{ ...aClassification(), paths: ['{a,b'] }] }))).toEqual([
      `${JSN}: classifications[0] (name "datetime"): paths[0]: pattern "{a,b" has an unclosed "{"`,
    ])
  })

  it('holds paths to 1–20 strings of at most 200 characters', () => {
    expect(problemsOf(YML, withKeys('    paths: []\n'))[0]).toContain('paths has 0 patterns; it holds 1 to 20')
    const many = JSON.stringify(Array.from({ length: 21 }, (_, i) => `f${i}`))
    expect(problemsOf(YML, withKeys(`    paths: ${many}\n`))[0]).toContain('paths has 21 patterns; it holds 1 to 20')
    const long = `"${'a'.repeat(201)}"`
    expect(problemsOf(YML, withKeys(`    paths: [${long}]\n`))[0]).toContain(
      'paths[0] is 201 characters long; at most 200 are allowed',
    )
    expect(problemsOf(YML, withKeys('    paths: "*.sql"\n'))[0]).toContain(
      'paths must be a list of glob patterns, got "*.sql" (a string)',
    )
    expect(problemsOf(YML, withKeys('    paths: [12]\n'))[0]).toContain('paths[0] must be a string, got 12 (a number)')
    expect(problemsOf(YML, withKeys('    paths: [""]\n'))[0]).toContain('paths[0]: pattern "" is empty')
  })

  it('takes mode blocking or advisory, nothing else', () => {
    const blocking = parseRulesFile(YML, withKeys('    mode: blocking\n'))
    expect(blocking.ok && blocking.value[0]?.mode).toBe('blocking')
    expect(problemsOf(YML, withKeys('    mode: warn\n'))).toEqual([
      `${YML}: classifications[0] (name "sql"): mode must be "blocking" or "advisory", got "warn" (a string)`,
    ])
  })

  it('says which key a problem is about, for the editor', () => {
    const result = validateClassifications([{ ...aClassification(), paths: ['a//b'], mode: 'x' }], 'request body')
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error.map((problem) => [problem.entry, problem.key])).toEqual([
      [0, 'paths'],
      [0, 'mode'],
    ])
  })
})

describe('open-a-PR merges paths and mode like the other keys', () => {
  const commented = `# Our rules.
classifications:
  # Dates matter here.
  - name: datetime
    description: All datetimes carry time zone information.
    threshold: 80
    polarity: positive
  # Keep this one.
  - name: other
    description: Something else.
    threshold: 50
    polarity: negative
`

  it('adds paths and mode to an entry in place, keeping its comments and the other entries', () => {
    const result = mergeClassifications({ path: YML, text: commented }, [
      aClassification({ paths: ['src/**', '!src/vendor/**'], mode: 'advisory' }),
    ])
    if (!result.ok) throw new Error(formatMergeProblem(result.error))
    expect(result.value.text).toContain('# Dates matter here.\n  - name: datetime')
    expect(result.value.text).toContain('# Keep this one.\n  - name: other')
    const loaded = parseRulesFile(YML, result.value.text)
    expect(loaded.ok && loaded.value[0]).toMatchObject({ paths: ['src/**', '!src/vendor/**'], mode: 'advisory' })
    expect(loaded.ok && loaded.value[1]).toEqual({
      name: 'other',
      description: 'Something else.',
      threshold: 50,
      polarity: 'negative',
    })
  })

  it('drops paths and mode from an entry when the addition has none', () => {
    const withScope = commented.replace(
      '    polarity: positive\n',
      '    polarity: positive\n    paths: ["*.ts"]\n    mode: advisory\n',
    )
    const result = mergeClassifications({ path: YML, text: withScope }, [aClassification()])
    if (!result.ok) throw new Error(formatMergeProblem(result.error))
    expect(result.value.text).not.toContain('paths')
    expect(result.value.text).not.toContain('mode')
  })

  it('reads an explicit blocking mode as the same rule as none', () => {
    const result = mergeClassifications({ path: YML, text: commented }, [aClassification({ mode: 'blocking' })])
    expect(!result.ok && result.error.kind).toBe('unchanged')
  })

  it('writes them into a JSON file after the four keys', () => {
    const json = `${JSON.stringify({ classifications: [aClassification()] }, null, 2)}\n`
    const result = mergeClassifications({ path: JSN, text: json }, [
      aClassification({ paths: ['*.sql'], mode: 'advisory' }),
    ])
    if (!result.ok) throw new Error(formatMergeProblem(result.error))
    expect(Object.keys(JSON.parse(result.value.text).classifications[0])).toEqual([
      'name',
      'description',
      'threshold',
      'polarity',
      'paths',
      'mode',
    ])
  })

  it('refuses an addition with a broken pattern, naming it', () => {
    const result = mergeClassifications(null, [aClassification({ paths: ['[x'] })])
    expect(!result.ok && formatMergeProblem(result.error)).toContain('paths[0]: pattern "[x" has an unclosed "["')
  })
})

describe("open-a-PR's commit message", () => {
  it('lists a rule whose paths or mode changed as updated, and one only written out as blocking as unchanged', () => {
    const existing = [aClassification({ name: 'a' }), aClassification({ name: 'b', paths: ['*.sql'] })]
    expect(
      changedNames(existing, [
        aClassification({ name: 'a', mode: 'blocking' }),
        aClassification({ name: 'b', paths: ['*.sql', '!legacy/**'] }),
      ]),
    ).toEqual({ added: [], updated: ['b'] })
    expect(changedNames(existing, [aClassification({ name: 'a', mode: 'advisory' })])).toEqual({
      added: [],
      updated: ['a'],
    })
  })
})
