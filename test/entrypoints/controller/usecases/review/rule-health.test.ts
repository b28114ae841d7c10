/**
 * The rule health store on the memory KV: what a review run and a waiver
 * add to the repo's UTC day, what a try-out doesn't, and a failed write
 * that is logged and costs only its own counts.
 */
import { describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../../../../adapters/memory/clock.ts'
import { createMemoryKv } from '../../../../../adapters/memory/kv.ts'
import { createRecordingLogger } from '../../../../../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../../../../../adapters/memory/metrics.ts'
import { appError } from '../../../../../core/base/errors.ts'
import { dayKey, RULE_HEALTH_BUCKET } from '../../../../../core/review/rule-health.ts'
import {
  createRuleHealthStore,
  RULE_HEALTH_WRITE_FAILED,
} from '../../../../../entrypoints/controller/usecases/review/rule-health.ts'
import { aRow, aRunRecord } from '../../../../support/builders.ts'

const DAY_MS = 86_400_000

function aStore() {
  const buckets = createMemoryKv()
  const clock = createFixedClock(Date.parse('2026-12-01T23:59:00Z'))
  const logger = createRecordingLogger()
  const metrics = createRecordingMetrics()
  return { buckets, clock, logger, metrics, store: createRuleHealthStore({ buckets, clock, logger, metrics }) }
}

const failing = aRow({ verdict: 'no-match', counted: true, fails: true })

describe('the rule health store', () => {
  it('adds a review run to its day, and a fix on a later head of the same PR', async () => {
    const { store, clock } = aStore()
    await store.recordRun(aRunRecord({ id: 'r1', pr: 7, head_sha: 'h1', rows: [failing] }))
    clock.advance(2 * 60_000) // the next UTC day
    await store.recordRun(aRunRecord({ id: 'r2', pr: 7, head_sha: 'h2', rows: [aRow()] }))
    const days = (await store.days('acme/widgets')).sort((a, b) => a.day.localeCompare(b.day))
    expect(days.map((day) => [day.day, day.rules.map((r) => [r.name, r.asked, r.failed, r.passed, r.fixed])])).toEqual([
      ['2026-12-01', [['datetime', 1, 1, 0, 0]]],
      ['2026-12-02', [['datetime', 1, 0, 1, 1]]],
    ])
    expect(days[0]?.rules[0]?.failing_runs).toEqual(['r1'])
  })

  it('counts no try-out and no run without rows, and keeps each repo apart', async () => {
    const { store } = aStore()
    await store.recordRun(aRunRecord({ trigger: 'try-out', outcome: 'done', rows: [failing] }))
    await store.recordRun(aRunRecord({ outcome: 'no-verdict', rows: undefined }))
    await store.recordRun(aRunRecord({ repo: 'acme/other', rows: [failing] }))
    expect(await store.days('acme/widgets')).toEqual([])
    expect((await store.days('acme/other'))[0]?.rules[0]?.failed).toBe(1)
  })

  it('records a waiver for a repo, rule and day', async () => {
    const { store } = aStore()
    expect(await store.recordWaiver({ repo: 'acme/widgets', rule: 'datetime', pr: 7 })).toBe(true)
    expect(await store.recordWaiver({ repo: 'acme/widgets', rule: 'datetime' })).toBe(true)
    const [day] = await store.days('acme/widgets')
    expect(day?.rules).toMatchObject([{ name: 'datetime', waived: 2, asked: 0, failed: 0 }])
  })

  it('logs a failed write and rejects nothing; the next write counts again', async () => {
    const { store, buckets, logger } = aStore()
    buckets.simulateFailure(appError('unavailable', 'the queue is down'))
    await store.recordRun(aRunRecord({ rows: [failing] }))
    expect(await store.recordWaiver({ repo: 'acme/widgets', rule: 'datetime' })).toBe(false)
    const warned = logger.withMessage(RULE_HEALTH_WRITE_FAILED)
    expect(warned.map((entry) => entry.fields.what)).toEqual(['pr memory', 'day', 'waiver'])
    buckets.simulateFailure(null)
    await store.recordRun(aRunRecord({ rows: [failing] }))
    expect((await store.days('acme/widgets'))[0]?.rules[0]).toMatchObject({ asked: 1, failed: 1, waived: 0 })
  })

  it('reads a stored day it cannot decode as nothing counted, and deletes days past the 30 kept', async () => {
    const { store, buckets, clock, logger } = aStore()
    const kv = await buckets.open(RULE_HEALTH_BUCKET)
    await kv.create(dayKey('acme/widgets', '2026-11-30'), 'not json')
    await kv.create(dayKey('acme/widgets', '2026-10-15'), '{"rules":[]}')
    await store.recordRun(aRunRecord({ rows: [failing] }))
    expect(await kv.get(dayKey('acme/widgets', '2026-10-15'))).toBeNull()
    const days = await store.days('acme/widgets')
    expect(days.map((day) => [day.day, day.rules.length]).sort()).toEqual([
      ['2026-11-30', 0],
      ['2026-12-01', 1],
    ])
    expect(logger.entries.some((entry) => entry.fields.reason === "the stored day isn't JSON")).toBe(true)
    clock.advance(40 * DAY_MS)
    expect(await store.days('acme/widgets')).toEqual([])
  })

  it('adds the same counts to the rule outcome counter, even when the write fails', async () => {
    const { store, metrics, buckets, clock } = aStore()
    await store.recordRun(
      aRunRecord({
        pr: 9,
        head_sha: 'h1',
        rows: [failing, aRow({ name: 'scoped', verdict: 'not-applicable', counted: false, in_scope: false } as never)],
      }),
    )
    clock.advance(60_000)
    buckets.simulateFailure(appError('unavailable', 'the queue is down'))
    await store.recordWaiver({ repo: 'acme/widgets', rule: 'datetime' })
    buckets.simulateFailure(null)
    await store.recordRun(aRunRecord({ pr: 9, head_sha: 'h2', rows: [aRow()] }))
    const seen = metrics.ruleOutcomes.map(
      ({ count, labels }) => `${labels.repo} ${labels.rule} ${labels.outcome} ${count}`,
    )
    expect(seen).toEqual([
      'acme/widgets datetime failed 1',
      'acme/widgets datetime asked 1',
      'acme/widgets scoped uncounted 1',
      'acme/widgets datetime waived 1',
      'acme/widgets datetime passed 1',
      'acme/widgets datetime asked 1',
      'acme/widgets datetime fixed 1',
    ])
  })
})
