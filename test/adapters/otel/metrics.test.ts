import { afterEach, describe, expect, it } from 'bun:test'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import {
  costMetricName,
  createConfiguredMetrics,
  createNoopMetrics,
  createOtelMetrics,
  daySpendMetricName,
  ruleOutcomeMetricName,
  tokenMetricName,
} from '../../../adapters/otel/metrics.ts'
import { createJsonLogger } from '../../../adapters/system/logger.ts'
import { isAppError } from '../../../core/base/errors.ts'
import type { MetricLabels } from '../../../ports/metrics.ts'
import { type OtlpReceiver, type ReceivedPoint, startOtlpReceiver } from '../../support/otlp-receiver.ts'

const labels: MetricLabels = { repo: 'acme/app', pr: 42, model: 'qwen3-coder' }
/** Long enough that only shutdown's flush exports, unless a test wants periodic exports. */
const quietIntervalMs = 60_000

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function receiver(options?: Parameters<typeof startOtlpReceiver>[0]): Promise<OtlpReceiver> {
  const started = await startOtlpReceiver(options)
  cleanups.push(() => started.stop())
  return started
}

function total(points: ReceivedPoint[], name: string, attributes: Record<string, string> = {}): number {
  return points
    .filter((p) => p.name === name && Object.entries(attributes).every(([k, v]) => p.attributes[k] === v))
    .reduce((sum, p) => sum + p.value, 0)
}

describe('createOtelMetrics', () => {
  it("exports the day's spend as a gauge holding the last value set, labelled with the day", async () => {
    const otlp = await receiver()
    const handle = createOtelMetrics(
      { endpoint: otlp.endpoint, serviceName: 'review-classifier', exportIntervalMs: quietIntervalMs },
      { logger: createRecordingLogger() },
    )
    handle.metrics.setDaySpend(0.5, '2026-12-01')
    handle.metrics.setDaySpend(1.25, '2026-12-01')
    handle.metrics.setDaySpend(-1, '2026-12-01')
    await handle.shutdown()
    const points = otlp.received().filter((p) => p.name === daySpendMetricName)
    expect(points).toHaveLength(1)
    expect(points[0]).toMatchObject({
      unit: 'USD',
      kind: 'gauge',
      value: 1.25,
      attributes: { day: '2026-12-01', currency: 'USD' },
    })
  })

  it('exports the cost and token counters with their labels when shut down', async () => {
    const otlp = await receiver()
    const logger = createRecordingLogger()
    const handle = createOtelMetrics(
      { endpoint: otlp.endpoint, serviceName: 'review-classifier', exportIntervalMs: quietIntervalMs },
      { logger },
    )
    handle.metrics.addCost(0.0123, labels)
    handle.metrics.addCost(0.25, labels)
    handle.metrics.addTokens(1200, { ...labels, type: 'input' })
    handle.metrics.addTokens(7, { ...labels, type: 'output' })
    handle.metrics.addTokens(900, { ...labels, type: 'cacheRead' })
    handle.metrics.addTokens(300, { ...labels, type: 'cacheCreation' })
    await handle.shutdown()

    const points = otlp.received()
    const cost = points.filter((p) => p.name === costMetricName)
    expect(cost).toHaveLength(1)
    expect(cost[0]).toMatchObject({
      unit: 'USD',
      kind: 'sum',
      temporality: 'delta',
      valueType: 'double',
      attributes: { repo: 'acme/app', pr: '42', model: 'qwen3-coder', currency: 'USD' },
      resource: { 'service.name': 'review-classifier' },
    })
    expect(cost[0]?.value).toBeCloseTo(0.2623, 10)

    const tokens = points.filter((p) => p.name === tokenMetricName)
    expect(tokens.map((p) => [p.attributes.type, p.value]).sort()).toEqual([
      ['cacheCreation', 300],
      ['cacheRead', 900],
      ['input', 1200],
      ['output', 7],
    ])
    for (const point of tokens) {
      expect(point).toMatchObject({ unit: 'tokens', kind: 'sum', temporality: 'delta', valueType: 'int' })
      expect(point.attributes).toEqual({
        repo: 'acme/app',
        pr: '42',
        model: 'qwen3-coder',
        type: point.attributes.type ?? '',
      })
    }
    expect(logger.entries).toEqual([])
  })

  it('keeps each repo, PR and model its own series', async () => {
    const otlp = await receiver()
    const handle = createOtelMetrics(
      { endpoint: otlp.endpoint, serviceName: 'review-classifier', exportIntervalMs: quietIntervalMs },
      { logger: createRecordingLogger() },
    )
    handle.metrics.addCost(1, labels)
    handle.metrics.addCost(2, { ...labels, pr: 43 })
    handle.metrics.addCost(4, { ...labels, model: 'other' })
    handle.metrics.addCost(8, { ...labels, repo: 'acme/lib' })
    await handle.shutdown()

    const points = otlp.received()
    expect(points.filter((p) => p.name === costMetricName)).toHaveLength(4)
    expect(total(points, costMetricName, { repo: 'acme/app', pr: '42', model: 'qwen3-coder' })).toBe(1)
    expect(total(points, costMetricName, { pr: '43' })).toBe(2)
    expect(total(points, costMetricName, { model: 'other' })).toBe(4)
    expect(total(points, costMetricName, { repo: 'acme/lib' })).toBe(8)
  })

  it('exports the rule outcome counter labelled with repo, rule and outcome, one series each', async () => {
    const otlp = await receiver()
    const handle = createOtelMetrics(
      { endpoint: otlp.endpoint, serviceName: 'review-classifier', exportIntervalMs: quietIntervalMs },
      { logger: createRecordingLogger() },
    )
    handle.metrics.addRuleOutcome(1, { repo: 'acme/app', rule: 'no-ads', outcome: 'failed' })
    handle.metrics.addRuleOutcome(1, { repo: 'acme/app', rule: 'no-ads', outcome: 'failed' })
    handle.metrics.addRuleOutcome(1, { repo: 'acme/app', rule: 'no-ads', outcome: 'waived' })
    handle.metrics.addRuleOutcome(1, { repo: 'acme/lib', rule: 'no-ads', outcome: 'failed' })
    handle.metrics.addRuleOutcome(-1, { repo: 'acme/lib', rule: 'no-ads', outcome: 'failed' })
    await handle.shutdown()
    const points = otlp.received().filter((p) => p.name === ruleOutcomeMetricName)
    expect(points).toHaveLength(3)
    for (const point of points) {
      expect(point).toMatchObject({ kind: 'sum', temporality: 'delta', valueType: 'int' })
      expect(Object.keys(point.attributes).sort()).toEqual(['outcome', 'repo', 'rule'])
    }
    const all = otlp.received()
    expect(total(all, ruleOutcomeMetricName, { repo: 'acme/app', rule: 'no-ads', outcome: 'failed' })).toBe(2)
    expect(total(all, ruleOutcomeMetricName, { repo: 'acme/app', outcome: 'waived' })).toBe(1)
    expect(total(all, ruleOutcomeMetricName, { repo: 'acme/lib' })).toBe(1)
  })

  it('exports deltas: each export carries only what was added since the last one', async () => {
    const otlp = await receiver()
    const handle = createOtelMetrics(
      // The export timeout is the interval's (the SDK holds it at or under it): an interval of
      // 100 ms gave each export 100 ms, and a loaded machine let the shutdown's export time out.
      { endpoint: otlp.endpoint, serviceName: 'review-classifier', exportIntervalMs: 2_000 },
      { logger: createRecordingLogger() },
    )
    handle.metrics.addTokens(5, { ...labels, type: 'input' })
    await otlp.waitFor((points) => total(points, tokenMetricName) === 5)
    handle.metrics.addTokens(3, { ...labels, type: 'input' })
    await handle.shutdown()

    const values = otlp
      .received()
      .filter((p) => p.name === tokenMetricName)
      .map((p) => p.value)
    // Cumulative temporality would have exported a point of 8.
    expect(values.filter((v) => v !== 0)).toEqual([5, 3])
  })

  it('drops negative and non-finite amounts, logging each, and keeps counting the valid ones', async () => {
    const otlp = await receiver()
    const logger = createRecordingLogger()
    const handle = createOtelMetrics(
      { endpoint: otlp.endpoint, serviceName: 'review-classifier', exportIntervalMs: quietIntervalMs },
      { logger },
    )
    handle.metrics.addCost(-0.5, labels)
    handle.metrics.addCost(Number.NaN, labels)
    handle.metrics.addCost(Number.POSITIVE_INFINITY, labels)
    handle.metrics.addTokens(-10, { ...labels, type: 'output' })
    handle.metrics.addCost(0.5, labels)
    handle.metrics.addTokens(10, { ...labels, type: 'output' })
    await handle.shutdown()

    const points = otlp.received()
    expect(total(points, costMetricName)).toBe(0.5)
    expect(total(points, tokenMetricName)).toBe(10)
    const dropped = logger.withMessage('metric value dropped')
    expect(dropped.map((e) => e.fields.metric)).toEqual([
      costMetricName,
      costMetricName,
      costMetricName,
      tokenMetricName,
    ])
    expect(dropped.every((e) => e.level === 'warn')).toBe(true)
  })

  it('does not throw into the caller when the collector is down; the failure is logged', async () => {
    const gone = await startOtlpReceiver()
    const endpoint = gone.endpoint
    await gone.stop()
    const lines: string[] = []
    const logger = createJsonLogger({ write: (line) => void lines.push(line) })
    const handle = createOtelMetrics(
      { endpoint, serviceName: 'review-classifier', exportIntervalMs: quietIntervalMs },
      { logger },
    )

    expect(() => handle.metrics.addCost(0.1, labels)).not.toThrow()
    expect(() => handle.metrics.addTokens(100, { ...labels, type: 'input' })).not.toThrow()
    await handle.shutdown()

    const failures = lines.map((line) => JSON.parse(line)).filter((e) => e.msg === 'metrics export failed')
    expect(failures.length).toBeGreaterThanOrEqual(1)
    expect(failures[0]).toMatchObject({ level: 'warn', error: { code: 14 } })
    expect(String(failures[0]?.error?.message)).toContain('UNAVAILABLE')
  })

  it('finishes shutdown when the collector accepts and never answers', async () => {
    const wedged = await receiver({ respond: 'never' })
    const logger = createRecordingLogger()
    const handle = createOtelMetrics(
      { endpoint: wedged.endpoint, serviceName: 'review-classifier', exportIntervalMs: 1_000 },
      { logger },
    )
    handle.metrics.addCost(0.1, labels)
    await handle.shutdown()

    expect(total(wedged.received(), costMetricName)).toBeCloseTo(0.1, 10)
    expect(logger.withMessage('metrics export failed').length).toBeGreaterThanOrEqual(1)
  })

  it('resolves every shutdown call, and the second one exports nothing more', async () => {
    const otlp = await receiver()
    const handle = createOtelMetrics(
      { endpoint: otlp.endpoint, serviceName: 'review-classifier', exportIntervalMs: quietIntervalMs },
      { logger: createRecordingLogger() },
    )
    handle.metrics.addCost(1, labels)
    await Promise.all([handle.shutdown(), handle.shutdown()])
    await handle.shutdown()
    expect(total(otlp.received(), costMetricName)).toBe(1)
  })

  it('rejects an endpoint that is not an http(s) URL as a configuration error', () => {
    const logger = createRecordingLogger()
    for (const endpoint of ['127.0.0.1:4317', 'not a url', 'ftp://127.0.0.1:4317']) {
      let thrown: unknown
      try {
        createOtelMetrics({ endpoint, serviceName: 'review-classifier' }, { logger })
      } catch (error) {
        thrown = error
      }
      expect(isAppError(thrown, 'invalid')).toBe(true)
    }
  })
})

describe('createNoopMetrics', () => {
  it('accepts additions and does nothing with them', () => {
    const metrics = createNoopMetrics()
    expect(() => {
      metrics.addCost(1, labels)
      metrics.addTokens(-1, { ...labels, type: 'input' })
    }).not.toThrow()
  })
})

describe('createConfiguredMetrics', () => {
  it('is off without an endpoint, even when the exporter’s own environment variable names a collector', async () => {
    const otlp = await receiver()
    const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = otlp.endpoint
    try {
      for (const endpoint of [undefined, '', '  ']) {
        const handle = createConfiguredMetrics(
          { endpoint, serviceName: 'review-classifier', exportIntervalMs: quietIntervalMs },
          { logger: createRecordingLogger() },
        )
        handle.metrics.addCost(1, labels)
        await handle.shutdown()
      }
    } finally {
      if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT
      else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved
    }
    expect(otlp.exportCount()).toBe(0)
  })

  it('exports when an endpoint is set', async () => {
    const otlp = await receiver()
    const handle = createConfiguredMetrics(
      { endpoint: ` ${otlp.endpoint} `, serviceName: 'review-classifier', exportIntervalMs: quietIntervalMs },
      { logger: createRecordingLogger() },
    )
    handle.metrics.addCost(2, labels)
    await handle.shutdown()
    expect(total(otlp.received(), costMetricName)).toBe(2)
  })
})
