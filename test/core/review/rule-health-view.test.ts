import { describe, expect, it } from 'bun:test'
import { type HealthDay, type RuleDay, zeroCounts } from '../../../core/review/rule-health.ts'
import { flagWords, ruleFlags, rulesHealthView } from '../../../core/review/rule-health-view.ts'

const counts = (patch: Partial<ReturnType<typeof zeroCounts>>) => ({ ...zeroCounts(), ...patch })

describe('ruleFlags', () => {
  it('flags noisy at 30 % waived of at least 5 failures', () => {
    expect(ruleFlags(counts({ failed: 5, waived: 2 }), 0, 0)).toEqual(['noisy'])
    expect(ruleFlags(counts({ failed: 10, waived: 2 }), 0, 0)).toEqual([])
    expect(ruleFlags(counts({ failed: 4, waived: 4 }), 0, 0)).toEqual([])
  })

  it('flags silent on 20 PRs with no failure', () => {
    expect(ruleFlags(counts({ asked: 20, passed: 20 }), 20, 0)).toEqual(['silent'])
    expect(ruleFlags(counts({ asked: 40, passed: 40 }), 19, 0)).toEqual([])
    expect(ruleFlags(counts({ asked: 20, passed: 19, failed: 1 }), 20, 0)).toEqual([])
  })

  it('flags unsure when half of at least 10 answers are uncounted; out of scope and unanswered are no answers', () => {
    expect(ruleFlags(counts({ asked: 10, passed: 5, uncounted: 5 }), 1, 0)).toEqual(['unsure'])
    expect(ruleFlags(counts({ asked: 10, passed: 6, uncounted: 4 }), 1, 0)).toEqual([])
    // 9 answers, 1 unanswered: too few answers.
    expect(ruleFlags(counts({ asked: 10, passed: 4, uncounted: 5, unanswered: 1 }), 1, 0)).toEqual([])
    // 6 out of scope (uncounted, not asked): 10 answers, 4 of them uncounted.
    expect(ruleFlags(counts({ asked: 10, passed: 6, uncounted: 10 }), 1, 0)).toEqual([])
  })

  it('flags flaky on 3 PRs', () => {
    expect(ruleFlags(counts({ asked: 6, passed: 3, failed: 3 }), 3, 3)).toEqual(['flaky'])
    expect(ruleFlags(counts({ asked: 6, passed: 3, failed: 3 }), 3, 2)).toEqual([])
  })

  it('says each flag in words with its numbers', () => {
    const rule = {
      ...counts({ asked: 30, failed: 9, passed: 5, waived: 4, uncounted: 14 }),
      asked_prs: 23,
      flaky_prs: 3,
    }
    expect(flagWords('noisy', rule)).toBe('waived on 4 of 9 failures: consider making it advisory')
    expect(flagWords('silent', rule)).toBe('asked on 23 PRs and never failed: check that it still asks something')
    expect(flagWords('unsure', rule)).toBe(
      '16 of 30 answers uncounted (below its threshold or not applicable): sharpen the question or its threshold',
    )
    expect(flagWords('flaky', rule)).toBe('runs on the same head disagreed on 3 PRs: try it out with repeats')
  })
})

function aRule(name: string, patch: Partial<RuleDay>): RuleDay {
  return { name, ...zeroCounts(), prs: [], flaky_prs: [], failing_runs: [], ...patch }
}

describe('rulesHealthView', () => {
  const day = (date: string, rules: RuleDay[]): HealthDay => ({ repo: 'acme/app', day: date, rules })

  it('sums the last 30 days per rule, the file’s rules first, then the removed ones', () => {
    const view = rulesHealthView({
      repo: 'acme/app',
      today: '2026-12-03',
      path: '.hyperhive/review-classifier.yml',
      branch: 'main',
      rules: [
        { name: 'b', description: 'B?', threshold: 70, polarity: 'negative', mode: 'advisory', paths: ['src/**'] },
        { name: 'a' },
      ],
      days: [
        day('2026-12-03', [
          aRule('a', { asked: 1, failed: 1, prs: [1], failing_runs: ['r3'] }),
          aRule('old', { passed: 1, asked: 1 }),
        ]),
        day('2026-12-01', [aRule('a', { asked: 2, passed: 1, failed: 1, prs: [1, 2], failing_runs: ['r1'] })]),
        // Outside the 30 days, and a day ahead of the clock: left out.
        day('2026-11-03', [aRule('a', { asked: 5, failed: 5 })]),
        day('2026-12-04', [aRule('a', { asked: 5, failed: 5 })]),
      ],
    })
    expect(view).toMatchObject({ repo: 'acme/app', days: 30, since: '2026-11-04', until: '2026-12-03' })
    expect(view.rules.map((rule) => [rule.name, rule.removed ?? false])).toEqual([
      ['b', false],
      ['a', false],
      ['old', true],
    ])
    expect(view.rules[0]).toMatchObject({ asked: 0, mode: 'advisory', paths: ['src/**'], by_day: [], flags: [] })
    expect(view.rules[1]).toMatchObject({
      asked: 3,
      failed: 2,
      passed: 1,
      asked_prs: 2,
      failing_runs: ['r3', 'r1'],
      by_day: [
        { day: '2026-12-01', asked: 2, failed: 1, passed: 1 },
        { day: '2026-12-03', asked: 1, failed: 1 },
      ],
    })
    expect(view.rules[1]?.mode).toBeUndefined()
  })
})
