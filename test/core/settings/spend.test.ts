import { describe, expect, it } from 'bun:test'
import { applySettingsUpdate, DEFAULT_SETTINGS, readSettingsLeniently } from '../../../core/settings/settings.ts'
import {
  addSpend,
  budgetRefusal,
  classificationCostUsd,
  dayIsExpired,
  decodeDaySpend,
  expiredDays,
  formatUsd,
  keptDays,
  oldestKeptDay,
  spendView,
  utcDay,
} from '../../../core/settings/spend.ts'

const prices = { input: 1, output: 5 }
const acp = { base_url: 'https://llm.example/v1', model: 'm', prices }
const usage = { input: 1_000_000, output: 100_000, cache_read: 0, cache_write: 0 }

function detailOf(body: unknown): string {
  const result = applySettingsUpdate(DEFAULT_SETTINGS, body)
  if (result.ok) throw new Error(`expected a 400, but stored ${JSON.stringify(result.value)}`)
  return result.error
}

describe('the budget setting', () => {
  it('is absent by default and stored as given, and null clears it', () => {
    expect(DEFAULT_SETTINGS.budget).toBeNull()
    const set = applySettingsUpdate(DEFAULT_SETTINGS, { budget: { daily_usd: 5 } })
    expect(set).toEqual({ ok: true, value: { ...DEFAULT_SETTINGS, budget: { daily_usd: 5 } } })
    if (!set.ok) return
    expect(applySettingsUpdate(set.value, { budget: null })).toEqual({ ok: true, value: DEFAULT_SETTINGS })
    expect(applySettingsUpdate(set.value, { model: 'sonnet' })).toMatchObject({ value: { budget: { daily_usd: 5 } } })
  })

  it('refuses a budget that is not more than 0, not a number, incomplete or with unknown fields, naming the field', () => {
    expect(detailOf({ budget: { daily_usd: 0 } })).toBe('budget.daily_usd must be more than 0 USD, not 0')
    expect(detailOf({ budget: { daily_usd: -1 } })).toContain('budget.daily_usd must be more than 0 USD')
    expect(detailOf({ budget: { daily_usd: '5' } })).toBe('budget.daily_usd must be a number of USD, not string')
    expect(detailOf({ budget: {} })).toContain('budget needs daily_usd')
    expect(detailOf({ budget: 5 })).toContain('budget must be an object with daily_usd')
    expect(detailOf({ budget: { daily_usd: 5, monthly_usd: 100 } })).toContain('unknown field "budget.monthly_usd"')
  })

  it('reads a stored document without a budget as no limit, and ignores a newer field inside it', () => {
    const { budget: _budget, ...older } = DEFAULT_SETTINGS
    expect(readSettingsLeniently(older)).toEqual({ ok: true, value: DEFAULT_SETTINGS })
    expect(readSettingsLeniently({ ...older, budget: { daily_usd: 2, per_repo: {} } })).toMatchObject({
      value: { budget: { daily_usd: 2 } },
    })
  })
})

describe('classificationCostUsd', () => {
  it("counts the CLI's own figure on the API key runtime and the priced tokens on ACP", () => {
    expect(classificationCostUsd('api-key', { costUsd: 0.0123, usage }, null)).toBe(0.0123)
    expect(classificationCostUsd('acp', { usage }, acp)).toBeCloseTo(1.5, 10)
  })

  it('has no figure without one: no total_cost_usd, or no token counts', () => {
    expect(classificationCostUsd('api-key', { usage }, null)).toBeNull()
    expect(classificationCostUsd('acp', { usage: null }, acp)).toBeNull()
    expect(classificationCostUsd('acp', { usage }, null)).toBeNull()
  })

  it('counts 0 on the subscription, whatever the CLI says: its cost is notional', () => {
    expect(classificationCostUsd('subscription', { costUsd: 1, usage }, acp)).toBe(0)
  })
})

describe('the ledger day', () => {
  it('is the UTC day, rolling over at 00:00 UTC', () => {
    expect(utcDay(Date.parse('2026-12-01T23:59:59.999Z'))).toBe('2026-12-01')
    expect(utcDay(Date.parse('2026-12-02T00:00:00.000Z'))).toBe('2026-12-02')
  })

  it('keeps 31 days, today included, and never a later day', () => {
    expect(oldestKeptDay('2026-12-31')).toBe('2026-12-01')
    const kept = keptDays('2026-12-31')
    expect([kept.length, kept[0], kept.at(-1)]).toEqual([31, '2026-12-01', '2026-12-31'])
    const expired = expiredDays('2026-12-31')
    expect([expired.length, expired[0], expired.at(-1)]).toEqual([31, '2026-10-31', '2026-11-30'])
    expect(dayIsExpired('2026-12-01', '2026-12-31')).toBe(false)
    expect(dayIsExpired('2026-11-30', '2026-12-31')).toBe(true)
    expect(dayIsExpired('2027-01-01', '2026-12-31')).toBe(false)
    expect(dayIsExpired('recent', '2026-12-31')).toBe(false)
  })

  it('adds by repo and reads back what it wrote; a document that is not a day counts 0 and says why', () => {
    const one = addSpend(null, '2026-12-01', 'acme/widgets', 0.25)
    const two = addSpend(one, '2026-12-01', 'acme/gears', 0.5)
    expect(decodeDaySpend(JSON.stringify(two), '2026-12-01')).toEqual({
      spend: {
        day: '2026-12-01',
        spent_usd: 0.75,
        by_repo: { 'acme/widgets': 0.25, 'acme/gears': 0.5 },
        estimated_usd: 0,
        reservations: {},
      },
      warning: null,
    })
    // A day an older controller wrote has no estimated part and no reservations; a broken reservation is left out.
    const older = { day: '2026-12-01', spent_usd: 1, by_repo: {}, reservations: { r1: { usd: 'x' } } }
    expect(decodeDaySpend(JSON.stringify(older), '2026-12-01').spend).toMatchObject({
      spent_usd: 1,
      estimated_usd: 0,
      reservations: {},
    })
    expect(decodeDaySpend('[]', '2026-12-01')).toMatchObject({ spend: { spent_usd: 0 }, warning: expect.any(String) })
  })

  it('lists the kept days newest first', () => {
    const today = addSpend(null, '2026-12-31', 'a/b', 1)
    const view = spendView(
      today,
      { daily_usd: 5 },
      [
        addSpend(null, '2026-12-01', 'a/b', 2),
        today,
        addSpend(null, '2026-11-30', 'a/b', 3),
        addSpend(null, '2026-12-20', 'a/b', 4),
      ],
      0.25,
    )
    expect(view).toEqual({
      day: '2026-12-31',
      spent_usd: 1,
      estimated_usd: 0,
      reserved_usd: 0.25,
      budget_usd: 5,
      by_repo: { 'a/b': 1 },
      days: [
        { day: '2026-12-31', spent_usd: 1 },
        { day: '2026-12-20', spent_usd: 4 },
        { day: '2026-12-01', spent_usd: 2 },
      ],
    })
  })
})

describe('budgetRefusal', () => {
  it('lets runs start under the budget and without one, and refuses once the spend reaches it', () => {
    expect(budgetRefusal(null, 1_000)).toBeNull()
    expect(budgetRefusal({ daily_usd: 5 }, 4.99)).toBeNull()
    expect(budgetRefusal({ daily_usd: 5 }, 5)).toBe(
      "today's budget of $5.00 (UTC) is spent ($5.00 so far), so no run starts: request it again after 00:00 UTC, " +
        'or an admin raises budget.daily_usd in the settings',
    )
  })

  it('shows amounts under a cent', () => {
    expect(formatUsd(0.0042)).toBe('$0.0042')
    expect(formatUsd(12.345)).toBe('$12.35')
  })
})
