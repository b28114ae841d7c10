import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import {
  type BudgetCheck,
  checkContextBudget,
  DEFAULT_CONTEXT_BUDGET_BYTES,
  formatSize,
  utf8Length,
} from '../../../core/run/budget.ts'
import { buildSharedContext } from '../../../core/run/prompt.ts'

describe('checkContextBudget', () => {
  it('defaults to 600 KB', () => {
    expect(DEFAULT_CONTEXT_BUDGET_BYTES).toBe(600_000)
    expect(checkContextBudget('x'.repeat(600_000))).toEqual({ ok: true, bytes: 600_000 })
    expect(checkContextBudget('x'.repeat(600_001)).ok).toBe(false)
  })

  it.each<[string, string, number, BudgetCheck]>([
    ['ASCII under the budget', 'abc', 3, { ok: true, bytes: 3 }],
    ['exactly the budget', 'abcd', 4, { ok: true, bytes: 4 }],
    ['multi-byte characters counted as UTF-8', 'é€😀', 9, { ok: true, bytes: 9 }],
    [
      'multi-byte characters over the budget',
      'é€😀',
      8,
      { ok: false, bytes: 9, budget: 8, message: "the PR's commits and diff come to 9 bytes, over the 8 bytes budget" },
    ],
    [
      'a large context',
      'x'.repeat(812_345),
      600_000,
      {
        ok: false,
        bytes: 812_345,
        budget: 600_000,
        message: "the PR's commits and diff come to 813 KB, over the 600 KB budget",
      },
    ],
    [
      'a context in megabytes',
      'x'.repeat(1_234_567),
      600_000,
      {
        ok: false,
        bytes: 1_234_567,
        budget: 600_000,
        message: "the PR's commits and diff come to 1.3 MB, over the 600 KB budget",
      },
    ],
  ])('reports %s', (_name, context, budget, expected) => {
    expect(checkContextBudget(context, budget)).toEqual(expected)
  })

  it('measures after the lockfiles collapse', () => {
    const lockLines = Array.from({ length: 30_000 }, (_, i) => `+  "dep-${i}": "1.0.0",`).join('\n')
    const diff = `diff --git a/package-lock.json b/package-lock.json\n--- a/package-lock.json\n+++ b/package-lock.json\n@@ -0,0 +1,30000 @@\n${lockLines}\n`
    expect(diff.length).toBeGreaterThan(500_000)
    const shared = buildSharedContext({ repo: 'acme/widgets', pr: 1, title: 't', commits: [], diff })
    expect(checkContextBudget(shared, 2_000)).toEqual({ ok: true, bytes: utf8Length(shared) })
  })
})

describe('formatSize', () => {
  it.each([
    [1, 'up', '1 byte'],
    [999, 'up', '999 bytes'],
    [600_000, 'down', '600 KB'],
    [600_001, 'up', '601 KB'],
    [600_999, 'down', '600 KB'],
    [1_000_000, 'up', '1 MB'],
    [1_000_001, 'up', '1.1 MB'],
    [1_999_999, 'down', '1.9 MB'],
  ] as const)('shows %d bytes rounded %s as %s', (bytes, rounding, expected) => {
    expect(formatSize(bytes, rounding)).toBe(expected)
  })

  it('never shows a size over the budget as equal to or below it (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 10_000_000 }), (budget, over) => {
        const size = formatSize(budget + over, 'up')
        expect(size).not.toBe(formatSize(budget, 'down'))
      }),
    )
  })
})

describe('utf8Length', () => {
  it('agrees with TextEncoder, lone surrogates included (property)', () => {
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string())
    fc.assert(
      fc.property(text, (value) => {
        expect(utf8Length(value)).toBe(new TextEncoder().encode(value).length)
      }),
    )
  })
})
