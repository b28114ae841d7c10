import { describe, expect, it } from 'bun:test'
import {
  changedPaths,
  compareRules,
  newQuestions,
  outcomeUnder,
  questionKey,
  REPORT_PRS_MAX,
  reportPrs,
  touchedFiles,
} from '../../../core/review/rules-change.ts'
import { renderReportSkipped, renderRulesChangeReport } from '../../../core/review/rules-change-body.ts'
import { aClassification } from '../../support/builders.ts'

const section = (a: string, b = a) => `diff --git a/${a} b/${b}\n--- a/${a}\n+++ b/${b}\n@@ -1 +1 @@\n-x\n+y\n`

describe('changedPaths and touchedFiles', () => {
  it('names both sides of each file, renames included, and never a hunk line', () => {
    const diff = `${section('app.py')}${section('old.yml', 'new.yml')}diff --git a/z b/z\n@@ -1 +1 @@\n--- a/.hyperhive/review-classifier.yml\n`
    expect([...changedPaths(diff)].sort()).toEqual(['app.py', 'new.yml', 'old.yml', 'z'])
    expect(touchedFiles(diff)).toEqual({ rules: false, examples: false })
    expect(touchedFiles(section('.hyperhive/review-classifier.json'))).toEqual({ rules: true, examples: false })
    expect(touchedFiles(section('.hyperhive/review-classifier.examples.yml'))).toEqual({ rules: false, examples: true })
  })
})

describe('which PRs and which questions', () => {
  it('takes the newest ten PRs either side labels for one of its own rules', () => {
    const rules = [aClassification({ name: 'a' })]
    const examples = Array.from({ length: 14 }, (_, i) => ({ pr: i + 1, expect: { a: 'match' as const } }))
    const prs = reportPrs({ rules, examples }, { rules, examples: [{ pr: 40, expect: { other: 'match' } }] })
    expect(prs).toHaveLength(REPORT_PRS_MAX)
    expect(prs[0]).toBe(14)
    expect(prs.at(-1)).toBe(5)
  })

  it('asks again only what the model would be asked differently', () => {
    const before = [aClassification({ name: 'a' }), aClassification({ name: 'b' })]
    const after = [
      aClassification({ name: 'a', threshold: 10, polarity: 'negative' }),
      aClassification({ name: 'b', description: 'Reworded.' }),
      aClassification({ name: 'c' }),
    ]
    expect(newQuestions(before, after).map((rule) => rule.name)).toEqual(['b', 'c'])
  })
})

describe('compareRules', () => {
  const rule = aClassification({ name: 'a', threshold: 80 })
  const answers = (verdict: 'match' | 'no-match', certainty: number) =>
    new Map([[questionKey(rule), { verdict, certainty }]])

  it('judges a threshold change on the same answers, before → after', () => {
    const examples = [{ pr: 3, expect: { a: 'match' as const } }]
    const report = compareRules({ rules: [rule], examples }, { rules: [{ ...rule, threshold: 90 }], examples }, [
      { pr: 3, answers: answers('match', 85) },
    ])
    expect(report.rules).toEqual([
      {
        name: 'a',
        before: { labelled: 1, agree: 1, disagree: 0, false_pass: 0 },
        after: { labelled: 1, agree: 0, disagree: 0, false_pass: 0 },
      },
    ])
    expect(report.changed).toEqual([])
    expect(outcomeUnder([rule], answers('no-match', 95))).toBe('request-changes')
    expect(outcomeUnder([rule], new Map())).toBe('no-verdict')
    expect(outcomeUnder([], answers('match', 95))).toBe('no-verdict')
  })

  it('renders names escaped and PR numbers without references', () => {
    const named = aClassification({ name: '@team #1' })
    const examples = [{ pr: 7, expect: { '@team #1': 'match' as const } }]
    const body = renderRulesChangeReport(
      compareRules({ rules: [named], examples }, { rules: [], examples }, [{ pr: 7, answers: new Map() }]),
      false,
    )
    expect(body).toContain('| &#64;\u200Bteam &#35;\u200B1 | 1 → — |')
    expect(body).toContain('Removed: &#64;\u200Bteam &#35;\u200B1.')
    expect(body).not.toMatch(/[^;]#7|@team/)
    expect(renderReportSkipped('no @one')).toBe('**Rules change report**: skipped, no &#64;\u200Bone')
  })
})
