import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { rowFromAnswer } from '../../../core/run/aggregate.ts'
import { repeatRunId, replayRunId, runsAtOnce, summariseAnswers } from '../../../core/try-out/try-out-runs.ts'
import { REPEAT_MAX, REPLAY_MAX } from '../../../core/wire/limits.ts'
import type { Classification, RecordedRow, Verdict } from '../../../core/wire/types.ts'
import { aClassification, anUnansweredRow } from '../../support/builders.ts'

/** A row as the controller keeps it: counted and fails as the review computes them for `rule`. */
function answer(verdict: Verdict, certainty: number, rule: Classification = aClassification()): RecordedRow {
  return rowFromAnswer(rule, { verdict, certainty, reason: 'Because.' }, null)
}

describe('summariseAnswers', () => {
  it('counts no flip for a rule whose every answer counts the same way, and the spread of its certainty', () => {
    expect(summariseAnswers([answer('match', 90), answer('match', 85), answer('match', 80)])).toEqual({
      flips: 0,
      verdict_flips: 0,
      verdicts: { match: 3, 'no-match': 0, 'not-applicable': 0, unanswered: 0 },
      certainty: { min: 80, median: 85, max: 90 },
    })
  })

  it('counts a flip where the review would flip: a match at 78 then 82 against a threshold of 80', () => {
    // Before issue 20 this was "stable": the verdict never changed, but the review did.
    const answers = [answer('match', 78), answer('match', 82), answer('match', 78)]
    expect(summariseAnswers(answers)).toMatchObject({ flips: 2, verdict_flips: 0 })
  })

  it('counts no flip for a verdict that changes only below the threshold, and keeps that change visible', () => {
    // Before issue 20 this was "unstable": the verdict changed, but never counted.
    const answers = [answer('match', 60), answer('no-match', 55), answer('match', 70)]
    expect(summariseAnswers(answers)).toMatchObject({ flips: 0, verdict_flips: 2 })
  })

  it('tells pass, fail and uncounted apart, not-applicable among the uncounted', () => {
    const negative = aClassification({ name: 'no-ads', polarity: 'negative', threshold: 90 })
    const answers = [
      answer('no-match', 95, negative),
      answer('match', 95, negative),
      answer('not-applicable', 99, negative),
      answer('match', 50, negative),
    ]
    // pass → fail → uncounted → uncounted
    expect(summariseAnswers(answers)).toMatchObject({ flips: 2, verdict_flips: 3 })
  })

  it('counts each change from one answer to the next, skipping unanswered ones', () => {
    const answers = [
      answer('match', 60),
      answer('no-match', 55),
      anUnansweredRow(),
      answer('no-match', 65),
      answer('match', 90),
    ]
    expect(summariseAnswers(answers)).toEqual({
      flips: 1,
      verdict_flips: 2,
      verdicts: { match: 2, 'no-match': 2, 'not-applicable': 0, unanswered: 1 },
      certainty: { min: 55, median: 62.5, max: 90 },
    })
  })

  it('has no spread when nothing was answered', () => {
    expect(summariseAnswers([anUnansweredRow(), anUnansweredRow()])).toMatchObject({
      flips: 0,
      verdict_flips: 0,
      certainty: null,
    })
    expect(summariseAnswers([])).toMatchObject({ flips: 0, verdict_flips: 0, certainty: null })
  })
})

describe('the runs of a repeat or a replay', () => {
  it('starts only as many runs together as keep their sessions within eight, at least one', () => {
    expect([1, 2, 3, 4, 5, 8, 9, 10].map(runsAtOnce)).toEqual([8, 4, 2, 2, 1, 1, 1, 1])
    for (let n = 1; n <= 10; n += 1) expect(runsAtOnce(n) * n <= 8 || runsAtOnce(n) === 1).toBe(true)
  })

  it('gives each run an id of its own that stays one subject token, the first the try-out’s own', () => {
    const id = '0f9d2c4e-6b1a-4e8f-9c3d-2a7b5e1f0c9d'
    expect(repeatRunId(id, 1)).toBe(id)
    expect(repeatRunId(id, REPEAT_MAX)).toBe(`${id}-10`)
    expect(replayRunId(id, 1234)).toBe(`${id}-pr1234`)
    for (const runId of [repeatRunId(id, 7), replayRunId(id, 99_999)]) expect(runId).toMatch(/^[A-Za-z0-9_-]{1,128}$/)
  })

  it('keeps its bounds where the page can bundle them without anything else', async () => {
    expect([REPEAT_MAX, REPLAY_MAX]).toEqual([10, 20])
    const built = await Bun.build({ entrypoints: [join(import.meta.dir, '../../../core/try-out/try-out-runs.ts')] })
    const [output] = built.outputs
    expect((await output?.text())?.length).toBeLessThan(4_000)
  })
})
