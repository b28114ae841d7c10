import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import {
  aggregateVerdict,
  type ClassificationResult,
  checkProgressRow,
  checkReplyRows,
  outOfScopeRow,
  rowBlocks,
  rowFromAnswer,
} from '../../../core/run/aggregate.ts'
import type { Classification, Overall, Polarity, Row, RowError, Verdict } from '../../../core/wire/types.ts'
import { aClassification, anAnswer, anUnansweredRow, aRow, aRowError } from '../../support/builders.ts'

function answered(name: string, verdict: Verdict, certainty = 95): ClassificationResult {
  return { name, answer: anAnswer({ verdict, certainty }), error: null }
}

function unanswered(name: string, error: RowError = aRowError()): ClassificationResult {
  return { name, answer: null, error }
}

const SENT: Classification[] = [
  aClassification({ name: 'datetime', polarity: 'positive', threshold: 80 }),
  aClassification({ name: 'no-ads', polarity: 'negative', threshold: 90 }),
  aClassification({ name: 'bao-first', polarity: 'positive', threshold: 70 }),
  aClassification({ name: 'docs-updated', polarity: 'positive', threshold: 60 }),
]

describe('rowFromAnswer', () => {
  const cases: Array<{
    polarity: Polarity
    verdict: Verdict
    certainty: number
    counted: boolean
    fails: boolean
  }> = [
    { polarity: 'positive', verdict: 'match', certainty: 80, counted: true, fails: false },
    { polarity: 'positive', verdict: 'no-match', certainty: 80, counted: true, fails: true },
    { polarity: 'negative', verdict: 'match', certainty: 100, counted: true, fails: true },
    { polarity: 'negative', verdict: 'no-match', certainty: 99, counted: true, fails: false },
    { polarity: 'positive', verdict: 'no-match', certainty: 79, counted: false, fails: false },
    { polarity: 'negative', verdict: 'match', certainty: 0, counted: false, fails: false },
    { polarity: 'positive', verdict: 'not-applicable', certainty: 100, counted: false, fails: false },
    { polarity: 'negative', verdict: 'not-applicable', certainty: 100, counted: false, fails: false },
  ]
  for (const { polarity, verdict, certainty, counted, fails } of cases) {
    it(`${verdict} at ${certainty} on a ${polarity} rule with threshold 80: counted ${counted}, fails ${fails}`, () => {
      const row = rowFromAnswer(
        aClassification({ polarity, threshold: 80 }),
        anAnswer({ verdict, certainty, reason: 'Every timestamp is zone-aware.' }),
        null,
      )
      expect(row).toEqual({
        name: 'datetime',
        polarity,
        threshold: 80,
        verdict,
        certainty,
        reason: 'Every timestamp is zone-aware.',
        counted,
        fails,
        error: null,
        mode: 'blocking',
        in_scope: true,
        blocks: fails,
      })
    })
  }

  it('lists an unanswered classification with its error, not counted', () => {
    const error = aRowError({ kind: 'malformed-answer', detail: 'duplicate key' })
    expect(rowFromAnswer(aClassification(), null, error)).toEqual(
      anUnansweredRow({ error, mode: 'blocking', in_scope: true, blocks: false }),
    )
  })

  it('lets an error win over an answer, so a failed run never counts', () => {
    const row = rowFromAnswer(aClassification(), anAnswer(), aRowError())
    expect(row.verdict).toBeNull()
    expect(row.counted).toBe(false)
    expect(row.error).toEqual(aRowError())
  })

  it('reads neither answer nor error as a runtime error', () => {
    expect(rowFromAnswer(aClassification(), null, null).error?.kind).toBe('runtime')
  })

  it('carries usage only when given', () => {
    const usage = { input: 10, output: 5, cache_read: 100, cache_write: 0 }
    expect(rowFromAnswer(aClassification(), anAnswer(), null, usage).usage).toEqual(usage)
    expect('usage' in rowFromAnswer(aClassification(), anAnswer(), null)).toBe(false)
  })
})

describe('aggregateVerdict', () => {
  it('requests changes for the spec example and keeps the order sent', () => {
    const result = aggregateVerdict(SENT, [
      answered('docs-updated', 'match', 41),
      answered('bao-first', 'not-applicable', 95),
      answered('no-ads', 'no-match', 99),
      answered('datetime', 'no-match', 92),
    ])
    expect(result.overall).toBe('request-changes')
    expect(result.reason).toBeNull()
    expect(result.rows.map((row) => [row.name, row.counted, row.fails])).toEqual([
      ['datetime', true, true],
      ['no-ads', true, false],
      ['bao-first', false, false],
      ['docs-updated', false, false],
    ])
  })

  const overalls: Array<{ name: string; results: ClassificationResult[]; overall: Overall }> = [
    {
      name: 'approves when every counted classification passes',
      results: [
        answered('datetime', 'match'),
        answered('no-ads', 'no-match'),
        answered('bao-first', 'match'),
        answered('docs-updated', 'match'),
      ],
      overall: 'approve',
    },
    {
      name: 'approves when nothing counted',
      results: [
        answered('datetime', 'not-applicable'),
        answered('no-ads', 'match', 10),
        answered('bao-first', 'no-match', 69),
        answered('docs-updated', 'not-applicable'),
      ],
      overall: 'approve',
    },
    {
      name: 'gives no verdict when one of ten is unanswered and the rest pass',
      results: [
        unanswered('datetime'),
        answered('no-ads', 'no-match'),
        answered('bao-first', 'match'),
        answered('docs-updated', 'match'),
      ],
      overall: 'no-verdict',
    },
    {
      name: 'gives no verdict rather than request changes when one is unanswered',
      results: [
        answered('datetime', 'no-match'),
        unanswered('no-ads'),
        answered('bao-first', 'match'),
        answered('docs-updated', 'match'),
      ],
      overall: 'no-verdict',
    },
    {
      name: 'gives no verdict for fewer results than sent',
      results: [answered('datetime', 'match'), answered('no-ads', 'no-match'), answered('bao-first', 'match')],
      overall: 'no-verdict',
    },
    {
      name: 'gives no verdict for a result under a name not sent',
      results: [
        answered('datetime', 'match'),
        answered('no-ads', 'no-match'),
        answered('bao-first', 'match'),
        answered('docs-update', 'match'),
      ],
      overall: 'no-verdict',
    },
    {
      name: 'gives no verdict for a name answered twice',
      results: [
        answered('datetime', 'match'),
        answered('no-ads', 'no-match'),
        answered('bao-first', 'match'),
        answered('docs-updated', 'match'),
        answered('docs-updated', 'no-match'),
      ],
      overall: 'no-verdict',
    },
  ]
  for (const { name, results, overall } of overalls) {
    it(name, () => {
      expect(aggregateVerdict(SENT, results).overall).toBe(overall)
    })
  }

  it('gives no verdict when nothing was sent', () => {
    expect(aggregateVerdict([], [])).toMatchObject({ overall: 'no-verdict', reason: 'No classification was sent.' })
  })

  it('gives no verdict when the classifications sent share a name', () => {
    const sent = [aClassification({ name: 'a' }), aClassification({ name: 'a' })]
    const result = aggregateVerdict(sent, [answered('a', 'match'), answered('b', 'match')])
    expect(result.overall).toBe('no-verdict')
    expect(result.reason).toContain('duplicate names')
  })

  it('explains unanswered classifications by kind, in one sentence', () => {
    const sent = Array.from({ length: 10 }, (_, i) => aClassification({ name: `rule-${i}` }))
    const results = sent.map((c, i) => {
      if (i === 3) return unanswered(c.name, aRowError({ kind: 'malformed-answer', detail: 'duplicate key' }))
      if (i === 7) return unanswered(c.name, aRowError({ kind: 'timeout' }))
      return answered(c.name, 'match')
    })
    expect(aggregateVerdict(sent, results).reason).toBe(
      '2 of 10 classifications got no answer (timeout: 1, malformed answer: 1).',
    )
  })

  it('explains a single unanswered classification', () => {
    const sent = [aClassification({ name: 'a' }), aClassification({ name: 'b' })]
    const results = [answered('a', 'match'), unanswered('b', aRowError({ kind: 'runtime', detail: 'exit 1' }))]
    expect(aggregateVerdict(sent, results).reason).toBe('1 of 2 classifications got no answer (runtime error: 1).')
  })

  it('names what is missing, unexpected and answered twice', () => {
    const result = aggregateVerdict(SENT, [
      answered('datetime', 'match'),
      answered('datetime', 'match'),
      answered('no-ads', 'match'),
      answered('mystery', 'match'),
    ])
    expect(result.reason).toBe(
      'The classifier answered 4 classifications for 4 sent (missing: "bao-first", "docs-updated"; unexpected: "mystery"; answered twice: "datetime").',
    )
  })

  it('lists a missing classification as an unanswered row and leaves out names not sent', () => {
    const result = aggregateVerdict(SENT.slice(0, 2), [answered('datetime', 'match'), answered('intruder', 'match')])
    expect(result.rows.map((row) => row.name)).toEqual(['datetime', 'no-ads'])
    expect(result.rows[1]?.error?.kind).toBe('runtime')
    expect(result.rows[1]?.counted).toBe(false)
  })

  it('counts only the first of many unexpected names, then how many more', () => {
    const results = ['a', 'b', 'c', 'd', 'e'].map((name) => answered(name, 'match'))
    expect(aggregateVerdict([aClassification({ name: 'x' })], results).reason).toContain(
      'unexpected: "a", "b", "c" and 2 more',
    )
  })

  it('never approves with an unanswered classification, and approves or requests changes only on a full answer', () => {
    const classifications = fc.uniqueArray(
      fc.record({
        name: fc.string({ minLength: 1, maxLength: 8 }),
        description: fc.constant('q'),
        threshold: fc.integer({ min: 0, max: 100 }),
        polarity: fc.constantFrom<Polarity>('positive', 'negative'),
      }),
      { minLength: 1, maxLength: 10, selector: (c) => c.name },
    )
    const outcome = fc.option(
      fc.record({
        verdict: fc.constantFrom<Verdict>('match', 'no-match', 'not-applicable'),
        certainty: fc.integer({ min: 0, max: 100 }),
      }),
      { nil: null },
    )
    fc.assert(
      fc.property(classifications, fc.array(outcome, { minLength: 10, maxLength: 10 }), (sent, outcomes) => {
        const results = sent.map((c, i) => {
          const o = outcomes[i] ?? null
          return o === null ? unanswered(c.name) : answered(c.name, o.verdict, o.certainty)
        })
        const result = aggregateVerdict(sent, results)
        const anyUnanswered = results.some((r) => r.answer === null)
        const anyFails = result.rows.some((row) => row.fails)
        expect(result.overall).toBe(anyUnanswered ? 'no-verdict' : anyFails ? 'request-changes' : 'approve')
        expect(result.reason === null).toBe(!anyUnanswered)
        expect(result.rows.map((row) => row.name)).toEqual(sent.map((c) => c.name))
      }),
    )
  })
})

describe('checkReplyRows', () => {
  const sent = [
    aClassification({ name: 'datetime', polarity: 'positive', threshold: 80 }),
    aClassification({ name: 'no-ads', polarity: 'negative', threshold: 90 }),
  ]

  it('recomputes counted and fails instead of trusting the reply', () => {
    const reply: Row[] = [
      aRow({ name: 'datetime', verdict: 'no-match', certainty: 92, counted: false, fails: false }),
      aRow({ name: 'no-ads', polarity: 'negative', threshold: 90, verdict: 'no-match', certainty: 99 }),
    ]
    const result = checkReplyRows(sent, reply)
    expect(result.overall).toBe('request-changes')
    expect(result.rows[0]).toMatchObject({ counted: true, fails: true })
  })

  it("judges by the sent rule's polarity and threshold, not the reply's", () => {
    const reply: Row[] = [
      aRow({ name: 'datetime', polarity: 'negative', threshold: 0, verdict: 'match', certainty: 50 }),
      aRow({ name: 'no-ads', polarity: 'positive', threshold: 0, verdict: 'match', certainty: 95 }),
    ]
    const result = checkReplyRows(sent, reply)
    expect(result.rows.map((row) => [row.polarity, row.threshold, row.counted, row.fails])).toEqual([
      ['positive', 80, false, false],
      ['negative', 90, true, true],
    ])
    expect(result.overall).toBe('request-changes')
  })

  it('gives no verdict for a reply with a different number of rows', () => {
    const result = checkReplyRows(sent, [aRow({ name: 'datetime' })])
    expect(result.overall).toBe('no-verdict')
    expect(result.reason).toBe('The classifier answered 1 classification for 2 sent (missing: "no-ads").')
  })

  it('reads a row with an incomplete or out-of-range answer as a malformed answer', () => {
    const reply: Row[] = [aRow({ name: 'datetime', certainty: null }), aRow({ name: 'no-ads', certainty: 250 })]
    const result = checkReplyRows(sent, reply)
    expect(result.overall).toBe('no-verdict')
    expect(result.rows.map((row) => row.error?.kind)).toEqual(['malformed-answer', 'malformed-answer'])
  })

  it('keeps a reply row error, flattened and capped', () => {
    const detail = `line one\nline two ${'x'.repeat(500)}`
    const result = checkReplyRows(sent, [
      anUnansweredRow({ name: 'datetime', error: { kind: 'runtime', detail } }),
      aRow({ name: 'no-ads' }),
    ])
    const error = result.rows[0]?.error
    expect(error?.kind).toBe('runtime')
    expect(error?.detail).toStartWith('line one line two x')
    expect([...(error?.detail ?? '')].length).toBe(200)
  })

  it('caps a reply reason over 500 characters', () => {
    const result = checkReplyRows(sent, [aRow({ name: 'datetime', reason: 'y'.repeat(900) }), aRow({ name: 'no-ads' })])
    expect(result.rows[0]?.reason).toBe(`${'y'.repeat(499)}…`)
  })

  it('drops usage, which the controller keeps no record of', () => {
    const usage = { input: 1, output: 2, cache_read: 3, cache_write: 4 }
    const result = checkReplyRows(sent, [aRow({ name: 'datetime', usage }), aRow({ name: 'no-ads', usage })])
    expect(result.rows.some((row) => 'usage' in row)).toBe(false)
  })
})

describe('checkProgressRow', () => {
  const sent = [
    aClassification({ name: 'datetime', polarity: 'positive', threshold: 80 }),
    aClassification({ name: 'no-ads', polarity: 'negative', threshold: 90 }),
  ]

  it('re-checks a row heard before the reply as a reply row: the sent rule decides, usage goes', () => {
    const usage = { input: 1, output: 2, cache_read: 3, cache_write: 4 }
    const heard = aRow({
      name: 'no-ads',
      polarity: 'positive',
      threshold: 0,
      verdict: 'match',
      certainty: 95,
      counted: false,
      fails: false,
      usage,
    })
    const { usage: _usage, ...answered } = heard
    expect(checkProgressRow(sent, heard)).toEqual({
      ...answered,
      polarity: 'negative',
      threshold: 90,
      counted: true,
      fails: true,
      mode: 'blocking',
      in_scope: true,
      blocks: true,
    })
    expect('usage' in (checkProgressRow(sent, heard) ?? {})).toBe(false)
  })

  it('reads an incomplete answer as malformed, keeps an error, and drops a row for a name not sent', () => {
    expect(checkProgressRow(sent, aRow({ name: 'datetime', certainty: 101 }))?.error?.kind).toBe('malformed-answer')
    expect(checkProgressRow(sent, anUnansweredRow({ name: 'datetime' }))?.error).toEqual(aRowError())
    expect(checkProgressRow(sent, aRow({ name: 'other' }))).toBeNull()
  })
})

describe('advisory rules and rules out of scope', () => {
  const advisory = aClassification({ name: 'migrations', polarity: 'positive', threshold: 80, mode: 'advisory' })
  const blocking = aClassification({ name: 'datetime', polarity: 'positive', threshold: 80 })

  it("an advisory rule's counted failure fails but doesn't block, and the run approves", () => {
    const result = aggregateVerdict(
      [blocking, advisory],
      [answered('datetime', 'match'), answered('migrations', 'no-match')],
    )
    expect(result.overall).toBe('approve')
    expect(result.rows[1]).toMatchObject({ mode: 'advisory', counted: true, fails: true, blocks: false })
    expect(result.rows[0]).toMatchObject({ mode: 'blocking', blocks: false })
  })

  it('a blocking failure still requests changes beside an advisory one', () => {
    const result = aggregateVerdict(
      [blocking, advisory],
      [answered('datetime', 'no-match'), answered('migrations', 'no-match')],
    )
    expect(result.overall).toBe('request-changes')
    expect(result.rows.map((row) => row.blocks)).toEqual([true, false])
  })

  it('an out-of-scope rule gets its not-applicable row, uncounted, whatever its result says, and needs none', () => {
    const out = new Set(['migrations'])
    const withResult = aggregateVerdict(
      [blocking, advisory],
      [answered('datetime', 'match'), answered('migrations', 'no-match')],
      out,
    )
    const withoutResult = aggregateVerdict([blocking, advisory], [answered('datetime', 'match')], out)
    for (const result of [withResult, withoutResult]) {
      expect(result.overall).toBe('approve')
      expect(result.reason).toBeNull()
      expect(result.rows[1]).toEqual(outOfScopeRow(advisory))
    }
    expect(outOfScopeRow(advisory)).toEqual({
      name: 'migrations',
      polarity: 'positive',
      threshold: 80,
      verdict: 'not-applicable',
      certainty: null,
      reason: 'No changed file matches its paths.',
      counted: false,
      fails: false,
      error: null,
      mode: 'advisory',
      in_scope: false,
      blocks: false,
    })
  })

  it("a reply row can't put an in-scope rule out of scope: certainty null reads as malformed", () => {
    const forged = { ...outOfScopeRow(blocking) }
    const result = checkReplyRows([blocking], [forged])
    expect(result.overall).toBe('no-verdict')
    expect(result.rows[0]?.error?.kind).toBe('malformed-answer')
  })

  it('a progress row for an out-of-scope rule is its out-of-scope row', () => {
    expect(checkProgressRow([advisory], aRow({ name: 'migrations' }), new Set(['migrations']))).toEqual(
      outOfScopeRow(advisory),
    )
  })

  it('reads a row of an older record, without blocks, by its fails', () => {
    expect(rowBlocks({ fails: true })).toBe(true)
    expect(rowBlocks({ fails: true, blocks: false })).toBe(false)
  })
})
