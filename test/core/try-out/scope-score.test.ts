import { describe, expect, it } from 'bun:test'
import { questionKey } from '../../../core/review/rules-change.ts'
import { outOfScopeRow } from '../../../core/run/aggregate.ts'
import { judgeAnswer, outcomeAt } from '../../../core/try-out/reliability.ts'
import { aClassification } from '../../support/builders.ts'

describe('a labelled PR out of a rule scope', () => {
  const row = outOfScopeRow(aClassification({ paths: ['db/**'] }))

  it("is that rule's not-applicable answer: uncounted, so it abstains whatever the label", () => {
    expect(outcomeAt('positive', row, 80)).toBe('uncounted')
    expect(judgeAnswer('positive', 'not-applicable', row, 80)).toEqual({ kind: 'abstain' })
    expect(judgeAnswer('positive', 'match', row, 0)).toEqual({ kind: 'abstain' })
  })

  it('is a question of its own in the rules-change report once its paths change', () => {
    const before = aClassification({ paths: ['db/**'] })
    expect(questionKey(before)).not.toBe(questionKey({ ...before, paths: ['src/**'] }))
    expect(questionKey(before)).toBe(
      questionKey(aClassification({ paths: ['db/**'], threshold: 10, mode: 'advisory' })),
    )
    expect(questionKey(aClassification())).toBe(JSON.stringify(['datetime', aClassification().description]))
  })
})
