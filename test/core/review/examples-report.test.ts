import { describe, expect, it } from 'bun:test'
import { applyLabels } from '../../../core/repo-files/examples-check.ts'
import { examplesOutcome, renderExamplesReport } from '../../../core/review/examples-report.ts'
import { scoreExamples } from '../../../core/try-out/reliability.ts'

const RULE = { name: 'datetime', polarity: 'positive', threshold: 80 } as const

function scoreOf(verdict: 'match' | 'no-match' | null, certainty: number) {
  const applied = applyLabels([{ pr: 2, expect: { datetime: 'no-match', gone: 'match' } }], [RULE])
  const rows = verdict === null ? null : [{ name: 'datetime', verdict, certainty }]
  return scoreExamples([RULE], applied, [{ pr: 2, runs: [rows] }], 1)
}

describe('renderExamplesReport', () => {
  it('prints a line per rule, the disagreements in words, the labels left out and the closing line', () => {
    const score = scoreOf('match', 97)
    const text = renderExamplesReport(score, [], { width: null })
    expect(text.split('\n')[2]).toMatch(/^datetime\s+1\s+0\s+1\s+0\s+1\s+0\s+\+17\s+98 \(now 80\)$/)
    expect(text).toContain(
      '\nDisagreements:\n  "datetime" on PR #2: labelled no match, answered match at certainty 97: a false pass\n',
    )
    expect(text).toContain('\nLabels left out:\n  pr 2: no such classification "gone"; its label is left out\n')
    expect(text.endsWith('\n1 answer disagrees with its label (1 of them a false pass).\n')).toBe(true)
    expect(examplesOutcome(score, [])).toBe('disagree')
  })

  it('says when nothing was answered, and that a missing answer is no verdict', () => {
    const score = scoreOf(null, 0)
    const text = renderExamplesReport(score, [{ pr: 2, reason: 'origin has no refs/pull/2/head' }], { width: null })
    expect(text).toMatch(/\ndatetime\s+1\s+0\s+0\s+1\s+0\s+0\s+—\s+— \(nothing counted\)\n/)
    expect(text).toContain('\nNo answer:\n  PR #2: origin has no refs/pull/2/head\n')
    expect(examplesOutcome(score, [{ pr: 2, reason: 'x' }])).toBe('no-verdict')
    expect(examplesOutcome(scoreOf('no-match', 95), [])).toBe('agree')
  })
})
