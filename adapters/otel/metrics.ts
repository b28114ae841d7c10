/**
 * The classifier's counters, the controller's spend gauge and rule outcome counter over OTLP/gRPC, to the collector `claude`
 * exports to. Export failures are logged and never reach the caller: a
 * collector that is down costs a log line, not a classification.
 */
import { type Attributes, type Counter, ValueType } from '@opentelemetry/api'
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-grpc'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  AggregationTemporality,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics'
import { appError } from '../../core/base/errors.ts'
import type { Logger } from '../../ports/logger.ts'
import type { MetricLabels, Metrics } from '../../ports/metrics.ts'

export const costMetricName = 'hyperhive.review_classifier.cost.usage'
export const tokenMetricName = 'hyperhive.review_classifier.token.usage'
export const daySpendMetricName = 'hyperhive.review_classifier.spend.daily'
export const ruleOutcomeMetricName = 'hyperhive.review_classifier.rule.outcome'

export type OtelMetricsConfig = {
  /** The collector's OTLP/gRPC address, `http://host:4317` (`OTEL_EXPORTER_OTLP_ENDPOINT`). */
  endpoint: string
  /** `service.name` on the resource. */
  serviceName: string
  /** How often the counters are pushed; 60 s by default. */
  exportIntervalMs?: number
}

export type OtelMetricsDeps = {
  /** Where failed exports are reported. */
  logger: Logger
}

export type MetricsHandle = {
  metrics: Metrics
  /** Pushes what has not been exported yet, then stops; never rejects. */
  shutdown(): Promise<void>
}

/** `ExportResultCode.SUCCESS` in `@opentelemetry/core`, which is not one of our dependencies. */
const exportSucceeded = 0
/** A collector that accepts and never answers must not hold an export (or shutdown) longer than this. */
const maxExportTimeoutMs = 10_000

export function createOtelMetrics(config: OtelMetricsConfig, deps: OtelMetricsDeps): MetricsHandle {
  const url = parseEndpoint(config.endpoint)
  const intervalMs = config.exportIntervalMs ?? 60_000
  if (!Number.isFinite(intervalMs) || intervalMs <= 0) {
    throw appError('invalid', 'metrics export interval must be a positive number of milliseconds')
  }
  const timeoutMs = Math.min(intervalMs, maxExportTimeoutMs)
  const { logger } = deps

  const exporter = new OTLPMetricExporter({
    url,
    timeoutMillis: timeoutMs,
    // Delta, as `claude` exports its own counters, so one query shape serves both runtimes.
    temporalityPreference: AggregationTemporality.DELTA,
  })
  const reader = new PeriodicExportingMetricReader({
    exporter: reportFailures(exporter, logger),
    exportIntervalMillis: intervalMs,
    exportTimeoutMillis: timeoutMs,
  })
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName }),
    readers: [reader],
  })
  const meter = provider.getMeter('review-classifier')
  const cost = meter.createCounter(costMetricName, {
    unit: 'USD',
    description: 'Model cost of classifications on the ACP runtime',
  })
  const tokens = meter.createCounter(tokenMetricName, {
    unit: 'tokens',
    description: 'Tokens used by classifications on the ACP runtime',
    valueType: ValueType.INT,
  })

  const ruleOutcomes = meter.createCounter(ruleOutcomeMetricName, {
    unit: '{outcome}',
    description: "Each rule's outcomes in review runs, as the controller counts its rule health",
    valueType: ValueType.INT,
  })

  const daySpend = meter.createGauge(daySpendMetricName, {
    unit: 'USD',
    description: "The UTC day's spend toward the daily budget, as the controller's ledger holds it",
  })

  function add(counter: Counter, metric: string, value: number, attributes: Attributes): void {
    // Counters only go up; a negative or NaN amount is a caller's bug and would poison the sum.
    if (!Number.isFinite(value) || value < 0) {
      logger.warn('metric value dropped', { metric, value, repo: attributes.repo, pr: attributes.pr })
      return
    }
    counter.add(value, attributes)
  }

  const metrics = {
    addCost(usd, labels) {
      add(cost, costMetricName, usd, { ...toAttributes(labels), currency: 'USD' })
    },
    addTokens(count, labels) {
      add(tokens, tokenMetricName, count, { ...toAttributes(labels), type: labels.type })
    },
    setDaySpend(usd, day) {
      if (!Number.isFinite(usd) || usd < 0) {
        logger.warn('metric value dropped', { metric: daySpendMetricName, value: usd, day })
        return
      }
      daySpend.record(usd, { day, currency: 'USD' })
    },
    addRuleOutcome(count, labels) {
      add(ruleOutcomes, ruleOutcomeMetricName, count, { repo: labels.repo, rule: labels.rule, outcome: labels.outcome })
    },
  } satisfies Metrics

  let stopped: Promise<void> | undefined
  return {
    metrics,
    shutdown() {
      stopped ??= provider.shutdown({ timeoutMillis: timeoutMs * 2 }).catch((error: unknown) => {
        logger.warn('metrics shutdown failed', { error })
      })
      return stopped
    },
  } satisfies MetricsHandle
}

/** Metrics for when no endpoint is configured: every addition is discarded. */
export function createNoopMetrics(): Metrics {
  return {
    addCost() {},
    addTokens() {},
    setDaySpend() {},
    addRuleOutcome() {},
  } satisfies Metrics
}

/** OTLP when `endpoint` is set and non-empty, off otherwise (`OTEL_EXPORTER_OTLP_ENDPOINT` unset). */
export function createConfiguredMetrics(
  config: Omit<OtelMetricsConfig, 'endpoint'> & { endpoint: string | undefined },
  deps: OtelMetricsDeps,
): MetricsHandle {
  const endpoint = config.endpoint?.trim() ?? ''
  if (endpoint === '') return { metrics: createNoopMetrics(), shutdown: async () => {} }
  return createOtelMetrics({ ...config, endpoint }, deps)
}

function toAttributes(labels: MetricLabels): Attributes {
  // `pr` as a string: `claude` copies OTEL_RESOURCE_ATTRIBUTES (`pr=5`) onto its
  // points as strings, and a label must have one type for `pr="5"` to match both.
  return { repo: labels.repo, pr: String(labels.pr), model: labels.model }
}

function parseEndpoint(text: string): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw appError('invalid', 'OTEL_EXPORTER_OTLP_ENDPOINT is not a URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw appError('invalid', 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL')
  }
  return text
}

function reportFailures(exporter: PushMetricExporter, logger: Logger): PushMetricExporter {
  return {
    export(batch, resultCallback) {
      exporter.export(batch, (result) => {
        if (result.code !== exportSucceeded) logger.warn('metrics export failed', { error: result.error ?? 'unknown' })
        resultCallback(result)
      })
    },
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
    ...(exporter.selectAggregationTemporality === undefined
      ? {}
      : { selectAggregationTemporality: exporter.selectAggregationTemporality.bind(exporter) }),
    ...(exporter.selectAggregation === undefined
      ? {}
      : { selectAggregation: exporter.selectAggregation.bind(exporter) }),
  }
}
