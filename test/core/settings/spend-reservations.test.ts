import { describe, expect, it } from 'bun:test'
import { estimateRunUsd, estimateSessionUsd, runtimePrices } from '../../../core/run/spend-estimate.ts'
import { emptyDay } from '../../../core/settings/spend.ts'
import {
  dayRefusal,
  recordSessionCost,
  reservedUsd,
  reserveRun,
  settleRun,
} from '../../../core/settings/spend-reservations.ts'
import { aRunRequest } from '../../support/builders.ts'

const DAY = '2026-12-01'
const NOW = 1_000
const BUDGET = { daily_usd: 1 }

function granted(outcome: ReturnType<typeof reserveRun>) {
  if (outcome.kind !== 'granted') throw new Error(`refused: ${outcome.reason}`)
  return outcome.day
}

describe('reserveRun', () => {
  it('reserves while spend and reservations are under the budget, and refuses once they reach it', () => {
    const claim = (id: string, usd: number) => ({ id, repo: 'acme/widgets', usd, expiresUnix: NOW + 60 })
    const one = granted(reserveRun(null, DAY, BUDGET, claim('r1', 0.6), NOW))
    expect(reservedUsd(one, NOW)).toBe(0.6)
    // Under the budget by a little: the next run still starts, and may take the day past it by its own cost.
    const two = granted(reserveRun(one, DAY, BUDGET, claim('r2', 0.6), NOW))
    expect(reservedUsd(two, NOW)).toBe(1.2)
    const refused = reserveRun(two, DAY, BUDGET, claim('r3', 0.01), NOW)
    expect(refused).toEqual({
      kind: 'refused',
      reason:
        "today's budget of $1.00 (UTC) is spent ($0.00 so far, and $1.20 reserved by runs under way), so no run starts: " +
        'request it again after 00:00 UTC, or an admin raises budget.daily_usd in the settings',
    })
    expect(dayRefusal(two, BUDGET, NOW)).not.toBeNull()
    expect(dayRefusal(two, null, NOW)).toBeNull()
  })

  it('drops a reservation nobody settled once it expires, and counts it until then', () => {
    const held = granted(reserveRun(null, DAY, BUDGET, { id: 'r1', repo: 'a/b', usd: 1, expiresUnix: NOW + 60 }, NOW))
    expect(
      reserveRun(held, DAY, BUDGET, { id: 'r2', repo: 'a/b', usd: 0.1, expiresUnix: NOW + 120 }, NOW + 59).kind,
    ).toBe('refused')
    const later = granted(
      reserveRun(held, DAY, BUDGET, { id: 'r2', repo: 'a/b', usd: 0.1, expiresUnix: NOW + 120 }, NOW + 60),
    )
    expect(Object.keys(later.reservations)).toEqual(['r2'])
  })

  it('replaces a reservation the same run already holds (a write tried again) rather than counting it against itself', () => {
    // A run estimated at the whole budget: its own earlier try would refuse it.
    const claim = { id: 'r1', repo: 'a/b', usd: 1, expiresUnix: NOW + 60 }
    const first = granted(reserveRun(null, DAY, BUDGET, claim, NOW))
    const again = granted(reserveRun(first, DAY, BUDGET, { ...claim, expiresUnix: NOW + 90 }, NOW + 30))
    expect(again.reservations).toEqual({ r1: { repo: 'a/b', usd: 1, spent_usd: 0, expires_unix: NOW + 90 } })
    // Any other run still counts it.
    expect(reserveRun(again, DAY, BUDGET, { ...claim, id: 'r2', usd: 0.01 }, NOW + 30).kind).toBe('refused')
  })
})

describe('recordSessionCost and settleRun', () => {
  it('counts a session against its run’s reservation, so spend and reservation never count it twice', () => {
    const held = granted(reserveRun(null, DAY, BUDGET, { id: 'r1', repo: 'a/b', usd: 0.5, expiresUnix: NOW + 60 }, NOW))
    const spent = recordSessionCost(held, DAY, { id: 'r1', repo: 'a/b', usd: 0.2, estimated: false }, NOW)
    expect(spent.spent_usd).toBe(0.2)
    expect(reservedUsd(spent, NOW)).toBeCloseTo(0.3, 10)
    // Past its estimate, the run reserves nothing more, and what it spent counts whole.
    const over = recordSessionCost(spent, DAY, { id: 'r1', repo: 'a/b', usd: 0.4, estimated: true }, NOW)
    expect(over.spent_usd).toBeCloseTo(0.6, 10)
    expect(over.estimated_usd).toBe(0.4)
    expect(reservedUsd(over, NOW)).toBe(0)
    const settled = settleRun(over, DAY, { id: 'r1', repo: 'a/b', unrecordedUsd: 0 }, NOW)
    expect(settled.reservations).toEqual({})
    expect(settled.spent_usd).toBeCloseTo(0.6, 10)
  })

  it('records a session whose run holds no reservation (no budget, or a late one), and a settle adds only what was not recorded', () => {
    const late = recordSessionCost(null, DAY, { id: 'gone', repo: 'a/b', usd: 0.25, estimated: false }, NOW)
    expect(late).toMatchObject({ spent_usd: 0.25, by_repo: { 'a/b': 0.25 }, reservations: {} })
    const older = settleRun(late, DAY, { id: 'r9', repo: 'a/c', unrecordedUsd: 0.5 }, NOW)
    expect(older).toMatchObject({ spent_usd: 0.75, by_repo: { 'a/b': 0.25, 'a/c': 0.5 } })
    expect(emptyDay(DAY)).toEqual({ day: DAY, spent_usd: 0, by_repo: {}, estimated_usd: 0, reservations: {} })
  })
})

describe('the estimate', () => {
  it('counts every prompt token at the cache-write price and each answer at the output cap, per classification', () => {
    const one = aRunRequest({ diff: 'x'.repeat(10_000) })
    const two = { ...one, classifications: [...one.classifications, { ...one.classifications[0]!, name: 'other' }] }
    const usd = estimateRunUsd(one)
    // At least the diff's bytes / 2 tokens at haiku's $1.25 cache write, plus the default cap's 1024 output tokens at $5.
    expect(usd).toBeGreaterThan((5_000 * 1.25 + 1024 * 5) / 1_000_000)
    expect(estimateRunUsd(two)).toBeGreaterThan(1.9 * usd)
    // Past the context budget the classifier calls no model: a huge diff reserves no more than the budget's worth.
    const huge = estimateRunUsd({ ...one, diff: 'x'.repeat(5_000_000) })
    expect(huge).toBe(estimateRunUsd({ ...one, diff: 'x'.repeat(700_000) }))
    expect(estimateRunUsd({ ...one, runtime: 'subscription' })).toBe(0)
  })

  it('counts each answer at the run’s max_output_tokens, thinking included, so a higher cap reserves more', () => {
    const at = (tokens: number) => estimateRunUsd(aRunRequest({ diff: 'x'.repeat(10_000), max_output_tokens: tokens }))
    // haiku's output is $5 per million tokens: every extra token of cap is reserved, per classification.
    expect(at(8192) - at(1024)).toBeCloseTo(((8192 - 1024) * 5) / 1_000_000, 12)
    expect(at(256)).toBeLessThan(at(1024))
  })

  it('prices claude by family, an unknown model at the dearest, and ACP at the settings’ prices', () => {
    expect(runtimePrices('api-key', 'haiku', null)).toEqual({ input: 1, output: 5, cacheWrite: 1.25 })
    expect(runtimePrices('api-key', 'claude-sonnet-4-5', null)?.input).toBe(3)
    expect(runtimePrices('api-key', 'some-new-model', null)?.input).toBe(15)
    const acp = { base_url: 'https://p.example/v1', model: 'm', prices: { input: 0.5, output: 2 } }
    expect(runtimePrices('acp', 'ignored', acp)).toEqual({ input: 0.5, output: 2, cacheWrite: 0.5 })
    expect(runtimePrices('subscription', 'haiku', null)).toBeNull()
    // A session with no figure: its prompt's tokens (and the runtime's own) at the input price.
    expect(estimateSessionUsd('acp', 'm', acp, 2_000)).toBe(((1_000 + 2_000) * 0.5) / 1_000_000)
  })
})
