/** The open-a-PR preview's YAML (ui/rules-yaml.ts) reads back, through the rules file's own parser, as what it shows. */
import { describe, expect, it } from 'bun:test'
import { parseRulesFile, RULES_YML_PATH } from '../../core/repo-files/rules-file.ts'
import { mergeByName, NEW_RULES_PATH, rulesYaml } from '../../ui/rules-yaml.ts'
import { aClassification } from '../support/builders.ts'

describe('the open-a-PR preview', () => {
  it('names the file core writes when there is none', () => {
    expect(NEW_RULES_PATH).toBe(RULES_YML_PATH)
  })

  it.each([
    'All datetimes carry time zone information.',
    'A commit message: advertises an AI model.',
    'yes',
    '80',
    'Ends with a space ',
    '# not a comment',
    'A "quoted" word and a \\ backslash',
    '- a dash first',
    'Two lines\nof text',
  ])('writes the description %p so that it reads back the same', (description) => {
    const classifications = [aClassification({ name: 'datetime', description }), aClassification({ name: 'no' })]
    const parsed = parseRulesFile(RULES_YML_PATH, rulesYaml(classifications))
    expect(parsed).toEqual({ ok: true, value: classifications })
  })

  it('merges by name: a name in the file is replaced where it stands, a new one goes at the end', () => {
    const file = [aClassification({ name: 'a' }), aClassification({ name: 'b' })]
    const changedB = aClassification({ name: 'b', threshold: 60 })
    const result = mergeByName(file, [changedB, aClassification({ name: 'c' }), aClassification({ name: 'a' })])
    expect(result.merged.map((entry) => entry.name)).toEqual(['a', 'b', 'c'])
    expect(result.merged[1]).toEqual(changedB)
    expect(result.added).toEqual(['c'])
    expect(result.changed).toEqual(['b'])
  })
})

describe('the open-a-PR preview with paths and mode', () => {
  it('writes them so the file reads back the same, hostile patterns included', () => {
    const classifications = [
      aClassification({ name: 'a', paths: ['db/**', '!db/legacy/**', 'x: "y" #z', '\\!bang'], mode: 'advisory' }),
      aClassification({ name: 'b' }),
    ]
    expect(parseRulesFile(RULES_YML_PATH, rulesYaml(classifications))).toEqual({ ok: true, value: classifications })
  })

  it('counts a change of paths or mode as a change, and an explicit blocking as none', () => {
    const existing = [aClassification({ name: 'a', paths: ['*.sql'] })]
    expect(mergeByName(existing, [aClassification({ name: 'a' })]).changed).toEqual(['a'])
    expect(mergeByName(existing, [aClassification({ name: 'a', paths: ['*.sql'], mode: 'blocking' })]).changed).toEqual(
      [],
    )
  })
})
