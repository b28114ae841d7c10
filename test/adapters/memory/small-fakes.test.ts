import { describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../../adapters/memory/clock.ts'
import { createSequenceIds } from '../../../adapters/memory/ids.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../../../adapters/memory/metrics.ts'

describe('createFixedClock', () => {
  it('stands still until advanced or set', () => {
    const clock = createFixedClock(Date.UTC(2026, 5, 30, 10))
    expect(clock.nowMs()).toBe(Date.UTC(2026, 5, 30, 10))
    clock.advance(90_000)
    expect(clock.nowMs()).toBe(Date.UTC(2026, 5, 30, 10, 1, 30))
    clock.set(new Date(0))
    expect(clock.nowMs()).toBe(0)
  })
})

describe('createSequenceIds', () => {
  it('counts run ids and eight-digit hex separately', () => {
    const ids = createSequenceIds()
    expect([ids.runId(), ids.runId(), ids.hex8(), ids.hex8()]).toEqual(['run-1', 'run-2', '00000001', '00000002'])
  })

  it('keeps each instance its own sequence', () => {
    const a = createSequenceIds('a-')
    createSequenceIds('b-').runId()
    expect(a.runId()).toBe('a-1')
  })
})

describe('createRecordingMetrics', () => {
  it('keeps each addition with its labels and sums by type', () => {
    const metrics = createRecordingMetrics()
    const labels = { repo: 'acme/widgets', pr: 42, model: 'qwen' }
    metrics.addTokens(100, { ...labels, type: 'input' })
    metrics.addTokens(50, { ...labels, type: 'input' })
    metrics.addTokens(7, { ...labels, type: 'cacheRead' })
    metrics.addCost(0.25, labels)
    metrics.addCost(0.5, labels)
    expect([metrics.tokenTotal('input'), metrics.tokenTotal('cacheRead'), metrics.tokenTotal('output')]).toEqual([
      150, 7, 0,
    ])
    expect(metrics.costTotal()).toBe(0.75)
    expect(metrics.costs[0]).toEqual({ usd: 0.25, labels })
  })
})

describe('createRecordingLogger', () => {
  it('keeps level, message and a copy of the fields', () => {
    const logger = createRecordingLogger()
    const fields = { repo: 'acme/widgets' }
    logger.info('review classifier run finished', fields)
    fields.repo = 'changed'
    logger.warn('settings undecodable')
    expect(logger.entries).toEqual([
      { level: 'info', msg: 'review classifier run finished', fields: { repo: 'acme/widgets' } },
      { level: 'warn', msg: 'settings undecodable', fields: {} },
    ])
    expect(logger.withMessage('settings undecodable')).toHaveLength(1)
  })
})
