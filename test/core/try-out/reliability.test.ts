/**
 * The score of a rule against labelled PRs (docs/behaviour.md, "Labelled
 * examples and reliability"): what agree, disagree, abstain, false pass,
 * false block, flips and margin mean, the threshold curve and its
 * suggestion, as properties over any answers and as examples of each term.
 */
import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import fc from 'fast-check'
import { applyLabels } from '../../../core/repo-files/examples-check.ts'
import { rowFromAnswer } from '../../../core/run/aggregate.ts'
import {
  judgeAnswer,
  type LabelledAnswers,
  labelledAnswers,
  outcomeAt,
  type ScoredAnswer,
  type ScoredRule,
  scoreClassification,
  scoreExamples,
} from '../../../core/try-out/reliability.ts'
import { summariseAnswers } from '../../../core/try-out/try-out-runs.ts'
import { ClassificationScoreSchema, ReliabilityScoreSchema, VERDICTS } from '../../../core/wire/schemas.ts'
import type { Polarity, RecordedRow, Verdict } from '../../../core/wire/types.ts'
import { aClassification, anUnansweredRow } from '../../support/builders.ts'

const POSITIVE: ScoredRule = { name: 'datetime', polarity: 'positive', threshold: 80 }
const NEGATIVE: ScoredRule = { name: 'no-ads', polarity: 'negative', threshold: 90 }

function said(verdict: Verdict, certainty: number): ScoredAnswer {
  return { verdict, certainty }
}

function pr(number: number, expected: Verdict, ...answers: ScoredAnswer[]): LabelledAnswers {
  return { pr: number, expected, answers }
}

/** The four counts of a card, as a curve point holds them. */
function counts(card: { agree: number; disagree: number; abstain: number; false_pass: number }) {
  const { agree, disagree, abstain, false_pass } = card
  return { agree, disagree, abstain, false_pass }
}

const verdictArb = fc.constantFrom<Verdict>(...VERDICTS)
const answerArb: fc.Arbitrary<ScoredAnswer> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  // An error row: no verdict, no certainty.
  { weight: 1, arbitrary: fc.constant({ verdict: null, certainty: null }) },
  { weight: 8, arbitrary: fc.record({ verdict: verdictArb, certainty: fc.integer({ min: 0, max: 100 }) }) },
)
const ruleArb: fc.Arbitrary<ScoredRule> = fc.record({
  name: fc.constant('rule'),
  polarity: fc.constantFrom<Polarity>('positive', 'negative'),
  threshold: fc.integer({ min: 0, max: 100 }),
})
const labelledArb: fc.Arbitrary<LabelledAnswers[]> = fc.integer({ min: 1, max: 10 }).chain((repeat) =>
  fc.uniqueArray(fc.integer({ min: 1, max: 500 }), { maxLength: 20 }).chain((prs) =>
    fc.tuple(
      ...prs.map((number) =>
        fc.record({
          pr: fc.constant(number),
          expected: verdictArb,
          answers: fc.array(answerArb, { minLength: repeat, maxLength: repeat }),
        }),
      ),
    ),
  ),
)
const thresholdArb = fc.integer({ min: 0, max: 100 })
const RUNS = { numRuns: 300 }

describe('the score, whatever the answers', () => {
  it('judges every answer once: agree + disagree + abstain = answers, at any threshold and on the curve', () => {
    fc.assert(
      fc.property(ruleArb, labelledArb, thresholdArb, (rule, labelled, threshold) => {
        const total = labelled.reduce((sum, { answers }) => sum + answers.length, 0)
        const card = scoreClassification(rule, labelled, threshold)
        expect(card.answers).toBe(total)
        expect(card.agree + card.disagree + card.abstain).toBe(total)
        expect(card.labelled).toBe(labelled.length)
        for (const point of card.threshold_curve) expect(point.agree + point.disagree + point.abstain).toBe(total)
      }),
      RUNS,
    )
  })

  it('has on its curve, at the rule’s own threshold and at any what-if one, the card’s counts', () => {
    fc.assert(
      fc.property(ruleArb, labelledArb, thresholdArb, (rule, labelled, threshold) => {
        const own = scoreClassification(rule, labelled)
        expect(own.threshold).toBe(rule.threshold)
        expect(own.threshold_curve.map((point) => point.threshold)).toEqual(Array.from({ length: 101 }, (_, t) => t))
        expect(own.threshold_curve[rule.threshold]).toEqual({ threshold: rule.threshold, ...counts(own) })
        const whatIf = scoreClassification(rule, labelled, threshold)
        expect(own.threshold_curve[threshold]).toEqual({ threshold, ...counts(whatIf) })
        // The curve and the suggestion are the rule's, whatever threshold the card is judged at.
        expect(whatIf.threshold_curve).toEqual(own.threshold_curve)
        expect(whatIf.suggested_threshold).toBe(own.suggested_threshold)
      }),
      RUNS,
    )
  })

  it('never suggests a threshold with a false pass, and none agrees more without one', () => {
    fc.assert(
      fc.property(ruleArb, labelledArb, (rule, labelled) => {
        const card = scoreClassification(rule, labelled)
        const safe = card.threshold_curve.filter((point) => point.false_pass === 0)
        const answered = labelled.some(({ answers }) => answers.some((a) => a !== null && a.verdict !== null))
        if (card.suggested_threshold === null) {
          expect(safe.length === 0 || !answered).toBe(true)
          return
        }
        const suggested = card.threshold_curve[card.suggested_threshold]
        expect(suggested?.false_pass).toBe(0)
        expect(scoreClassification(rule, labelled, card.suggested_threshold).false_pass).toBe(0)
        for (const point of safe) expect(point.agree).toBeLessThanOrEqual(suggested?.agree ?? -1)
      }),
      RUNS,
    )
  })

  it('splits the disagreements it lists into false passes and false blocks, the rest on not-applicable labels', () => {
    fc.assert(
      fc.property(ruleArb, labelledArb, thresholdArb, (rule, labelled, threshold) => {
        const card = scoreClassification(rule, labelled, threshold)
        expect(card.disagreements).toHaveLength(card.disagree)
        expect(card.disagreements.filter((d) => d.kind === 'false-pass')).toHaveLength(card.false_pass)
        expect(card.disagreements.filter((d) => d.kind === 'false-block')).toHaveLength(card.false_block)
        for (const { kind, expected } of card.disagreements) if (kind === null) expect(expected).toBe('not-applicable')
        if (labelled.every(({ expected }) => expected !== 'not-applicable')) {
          expect(card.false_pass + card.false_block).toBe(card.disagree)
        }
      }),
      RUNS,
    )
  })

  it('keeps the margin to the counted answers, within what the threshold leaves, and the flips to the PRs', () => {
    fc.assert(
      fc.property(ruleArb, labelledArb, thresholdArb, (rule, labelled, threshold) => {
        const card = scoreClassification(rule, labelled, threshold)
        const counted = labelled.flatMap(({ answers }) =>
          answers.filter((a) => a !== null && a.verdict !== null && a.verdict !== 'not-applicable'),
        )
        const margins = counted.flatMap((a) =>
          a?.certainty !== null && a?.certainty !== undefined && a.certainty >= threshold
            ? [a.certainty - threshold]
            : [],
        )
        expect(card.margin).toBe(margins.length === 0 ? null : Math.min(...margins))
        expect(card.flips).toBeLessThanOrEqual(card.labelled)
      }),
      RUNS,
    )
  })

  it('counts fewer answers as the threshold rises: agreements and false passes never grow', () => {
    fc.assert(
      fc.property(ruleArb, labelledArb, (rule, labelled) => {
        const curve = scoreClassification(rule, labelled).threshold_curve
        curve.slice(1).forEach((point, index) => {
          const before = curve[index]
          expect(point.agree).toBeLessThanOrEqual(before?.agree ?? 0)
          expect(point.false_pass).toBeLessThanOrEqual(before?.false_pass ?? 0)
          expect(point.abstain).toBeGreaterThanOrEqual(before?.abstain ?? 0)
        })
      }),
      RUNS,
    )
  })

  it('counts an answer as the review does', () => {
    fc.assert(
      fc.property(ruleArb, verdictArb, fc.integer({ min: 0, max: 100 }), (rule, verdict, certainty) => {
        const row = rowFromAnswer(aClassification(rule), { verdict, certainty, reason: 'r' }, null)
        const expected = row.counted ? (row.fails ? 'fail' : 'pass') : 'uncounted'
        expect(outcomeAt(rule.polarity, said(verdict, certainty), rule.threshold)).toBe(expected)
      }),
      RUNS,
    )
  })

  it('gives a card of the schema the try-out GET will carry', () => {
    fc.assert(
      fc.property(ruleArb, labelledArb, (rule, labelled) => {
        expect(Value.Check(ClassificationScoreSchema, scoreClassification(rule, labelled))).toBe(true)
      }),
      { numRuns: 50 },
    )
  })
})

describe('each answer against its label', () => {
  it('agrees when a counted verdict is the label, either polarity', () => {
    expect(judgeAnswer('positive', 'match', said('match', 90), 80)).toEqual({ kind: 'agree' })
    expect(judgeAnswer('positive', 'no-match', said('no-match', 80), 80)).toEqual({ kind: 'agree' })
    expect(judgeAnswer('negative', 'match', said('match', 95), 90)).toEqual({ kind: 'agree' })
  })

  it('on a positive rule: a counted no-match on a PR labelled match is a false block, the other way a false pass', () => {
    expect(judgeAnswer('positive', 'match', said('no-match', 90), 80)).toEqual({
      kind: 'disagree',
      disagreement: 'false-block',
    })
    expect(judgeAnswer('positive', 'no-match', said('match', 90), 80)).toEqual({
      kind: 'disagree',
      disagreement: 'false-pass',
    })
  })

  it('on a negative rule: a counted no-match on a PR labelled match is a false pass, the other way a false block', () => {
    expect(judgeAnswer('negative', 'match', said('no-match', 95), 90)).toEqual({
      kind: 'disagree',
      disagreement: 'false-pass',
    })
    expect(judgeAnswer('negative', 'no-match', said('match', 95), 90)).toEqual({
      kind: 'disagree',
      disagreement: 'false-block',
    })
  })

  it('abstains without an answer, below the threshold, and on every not-applicable answer', () => {
    const abstain = { kind: 'abstain' } as const
    expect(judgeAnswer('positive', 'match', null, 80)).toEqual(abstain)
    expect(judgeAnswer('positive', 'match', { verdict: null, certainty: null }, 80)).toEqual(abstain)
    expect(judgeAnswer('positive', 'no-match', said('match', 79), 80)).toEqual(abstain)
    expect(judgeAnswer('positive', 'match', said('not-applicable', 100), 80)).toEqual(abstain)
    // The review never counts a not-applicable answer, so it can't agree: the label is kept, not confirmed.
    expect(judgeAnswer('positive', 'not-applicable', said('not-applicable', 100), 0)).toEqual(abstain)
  })

  it('on a PR labelled not-applicable: a counted fail is a false block, a counted pass a disagreement of neither kind', () => {
    expect(judgeAnswer('positive', 'not-applicable', said('no-match', 90), 80)).toEqual({
      kind: 'disagree',
      disagreement: 'false-block',
    })
    expect(judgeAnswer('negative', 'not-applicable', said('no-match', 95), 90)).toEqual({
      kind: 'disagree',
      disagreement: null,
    })
  })
})

describe('a card', () => {
  const labelled = [
    pr(12, 'no-match', said('no-match', 95), said('match', 85), said('no-match', 70)),
    pr(31, 'match', said('match', 90), said('match', 92), null),
    pr(40, 'match', said('no-match', 81), said('not-applicable', 99), { verdict: null, certainty: null }),
    pr(41, 'not-applicable', said('match', 88), said('not-applicable', 90), said('match', 60)),
  ]

  it('adds up each term at the rule’s threshold', () => {
    const card = scoreClassification(POSITIVE, labelled)
    expect(card).toMatchObject({
      name: 'datetime',
      polarity: 'positive',
      threshold: 80,
      labelled: 4,
      answers: 12,
      agree: 3, // 12: no-match 95; 31: match 90, match 92
      disagree: 3, // 12: match 85 (false pass); 40: no-match 81 (false block); 41: match 88 (neither)
      abstain: 6, // 12: 70; 31: none; 40: n.a., error; 41: n.a., 60
      false_pass: 1,
      false_block: 1,
      margin: 1, // 40: no-match at 81
    })
    expect(card.disagreements).toEqual([
      { pr: 12, expected: 'no-match', verdict: 'match', certainty: 85, kind: 'false-pass' },
      { pr: 40, expected: 'match', verdict: 'no-match', certainty: 81, kind: 'false-block' },
      { pr: 41, expected: 'not-applicable', verdict: 'match', certainty: 88, kind: null },
    ])
  })

  it('counts a flip per PR whose answered answers don’t all do the same to the review', () => {
    // 12: fail, pass, uncounted; 31: pass, pass (no answer skipped); 40: fail, uncounted; 41: pass, uncounted, uncounted.
    expect(scoreClassification(POSITIVE, labelled).flips).toBe(3)
    const steady = [
      pr(1, 'match', said('match', 90), null, said('match', 99)),
      // The verdict changes, but below the threshold: nothing the review would do differently.
      pr(2, 'no-match', said('match', 60), said('no-match', 70), said('not-applicable', 95)),
    ]
    expect(scoreClassification(POSITIVE, steady).flips).toBe(0)
    expect(scoreClassification(POSITIVE, [pr(3, 'match', said('match', 78), said('match', 82))]).flips).toBe(1)
  })

  it('judges the same answers at a what-if threshold', () => {
    const card = scoreClassification(POSITIVE, labelled, 90)
    expect(card).toMatchObject({ threshold: 90, agree: 3, disagree: 0, false_pass: 0, margin: 0 })
    expect(scoreClassification(POSITIVE, labelled, 100)).toMatchObject({ agree: 0, disagree: 0, margin: null })
  })

  it('has no margin when nothing counted, and nothing to go by for a rule with no labelled PR', () => {
    expect(scoreClassification(POSITIVE, [pr(5, 'match', said('match', 10), null)]).margin).toBeNull()
    expect(scoreClassification(NEGATIVE, [])).toMatchObject({
      labelled: 0,
      answers: 0,
      flips: 0,
      margin: null,
      disagreements: [],
      suggested_threshold: null,
    })
  })
})

describe('the suggested threshold', () => {
  it('is the lowest threshold past every false pass, moved towards the rule’s own while the counts hold', () => {
    // A false pass at 85; agreements at 90 and 95. At 86 to 90 both agree and nothing passes falsely.
    const labelled = [
      pr(1, 'no-match', said('match', 85)),
      pr(2, 'match', said('match', 90)),
      pr(3, 'no-match', said('no-match', 95)),
    ]
    expect(scoreClassification(POSITIVE, labelled).suggested_threshold).toBe(86)
    expect(scoreClassification({ ...POSITIVE, threshold: 88 }, labelled).suggested_threshold).toBe(88)
    expect(scoreClassification({ ...POSITIVE, threshold: 99 }, labelled).suggested_threshold).toBe(90)
  })

  it('prefers fewer false blocks when the agreements are equal', () => {
    // Below 70 a false block at 65 counts too; from 66 to 70 the agreement at 70 still counts without it.
    const labelled = [pr(1, 'match', said('match', 70)), pr(2, 'match', said('no-match', 65))]
    expect(scoreClassification({ ...POSITIVE, threshold: 0 }, labelled).suggested_threshold).toBe(66)
  })

  it('is the rule’s own when no answer counts either way (all not applicable)', () => {
    const labelled = [pr(1, 'match', said('not-applicable', 90), said('not-applicable', 40))]
    expect(scoreClassification(POSITIVE, labelled).suggested_threshold).toBe(80)
  })

  it('is null when even 100 leaves a false pass, or when nothing was answered', () => {
    const certain = [pr(1, 'match', said('no-match', 100)), pr(2, 'match', said('match', 95))]
    expect(scoreClassification(NEGATIVE, certain)).toMatchObject({ false_pass: 1, suggested_threshold: null })
    expect(scoreClassification(POSITIVE, [pr(1, 'match', null, { verdict: null, certainty: null })])).toMatchObject({
      abstain: 2,
      suggested_threshold: null,
    })
  })
})

describe('scoring a try-out against the examples', () => {
  const rules = [POSITIVE, NEGATIVE]
  const applied = applyLabels(
    [
      { pr: 12, expect: { datetime: 'match', 'no-ads': 'no-match' } },
      { pr: 31, expect: { datetime: 'no-match', renamed: 'match' } },
    ],
    rules,
  )
  function row(name: string, verdict: Verdict, certainty: number): RecordedRow {
    const rule = rules.find((candidate) => candidate.name === name) ?? POSITIVE
    return rowFromAnswer(aClassification(rule), { verdict, certainty, reason: 'r' }, null)
  }

  it('gives each labelled PR exactly repeat answers: a failed, missing or extra run is no answer or left out', () => {
    const runs = [
      { pr: 12, runs: [[row('datetime', 'match', 90), row('no-ads', 'no-match', 95)], null] },
      // PR 31's one run has no datetime row, and a third run past repeat.
      {
        pr: 31,
        runs: [[row('no-ads', 'match', 99)], [row('datetime', 'no-match', 85)], [row('datetime', 'match', 99)]],
      },
    ]
    expect(labelledAnswers('datetime', applied.classifications[0]?.labelled ?? [], runs, 2)).toEqual([
      { pr: 12, expected: 'match', answers: [said('match', 90), null] },
      { pr: 31, expected: 'no-match', answers: [null, said('no-match', 85)] },
    ])
    expect(labelledAnswers('datetime', [{ pr: 99, expected: 'match' }], runs, 3)).toEqual([
      { pr: 99, expected: 'match', answers: [null, null, null] },
    ])
    expect(
      labelledAnswers('datetime', [{ pr: 12, expected: 'match' }], [{ pr: 12, runs: [[anUnansweredRow()]] }], 1),
    ).toEqual([{ pr: 12, expected: 'match', answers: [{ verdict: null, certainty: null }] }])
  })

  it('scores each classification in the order given, and passes the labels left out along', () => {
    const runs = [
      { pr: 12, runs: [[row('datetime', 'match', 90), row('no-ads', 'no-match', 95)]] },
      { pr: 31, runs: [[row('datetime', 'match', 88), row('no-ads', 'match', 99)]] },
    ]
    const score = scoreExamples(rules, applied, runs, 1)
    expect(Value.Check(ReliabilityScoreSchema, score)).toBe(true)
    expect(score.repeat).toBe(1)
    expect(score.unknown_labels).toEqual([{ pr: 31, name: 'renamed' }])
    expect(score.classifications.map((card) => [card.name, card.labelled, card.agree, card.false_pass])).toEqual([
      ['datetime', 2, 1, 1],
      ['no-ads', 1, 1, 0],
    ])
  })
})

describe('flips of a repeat, whatever the answers', () => {
  it('are none when every answered answer counts the same way, and at most one per answer after the first', () => {
    fc.assert(
      fc.property(ruleArb, fc.array(answerArb, { maxLength: 10 }), (rule, answers) => {
        const rows = answers.map((answer) =>
          answer === null || answer.verdict === null || answer.certainty === null
            ? anUnansweredRow()
            : rowFromAnswer(
                aClassification(rule),
                { verdict: answer.verdict, certainty: answer.certainty, reason: 'r' },
                null,
              ),
        )
        const summary = summariseAnswers(rows)
        const outcomes = answers
          .map((answer) => outcomeAt(rule.polarity, answer, rule.threshold))
          .filter((o) => o !== null)
        expect(summary.flips === 0).toBe(new Set(outcomes).size <= 1)
        expect(summary.flips).toBeLessThanOrEqual(Math.max(0, outcomes.length - 1))
        expect(summary.verdict_flips).toBeLessThanOrEqual(Math.max(0, outcomes.length - 1))
        // The card counts a PR with these answers as a flip exactly when the repeat has one.
        const card = scoreClassification(rule, [{ pr: 1, expected: 'match', answers }])
        expect(card.flips).toBe(summary.flips > 0 ? 1 : 0)
      }),
      RUNS,
    )
  })
})

describe('the score the page may bundle', () => {
  it('keeps reliability free of the YAML reader', async () => {
    const built = await Bun.build({
      entrypoints: [join(import.meta.dir, '../../../core/try-out/reliability.ts')],
      target: 'browser',
    })
    expect(built.success).toBe(true)
    expect(await built.outputs[0]?.text()).not.toContain('LineCounter')
  })
})
