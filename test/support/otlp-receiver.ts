/**
 * A test OTLP/gRPC metrics receiver on 127.0.0.1, port 0: it implements
 * `opentelemetry.proto.collector.metrics.v1.MetricsService/Export` and keeps
 * every sum and gauge data point it is sent, flattened for assertions.
 */
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import { type Static, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

export type AttributeValue = string | number | boolean

export type ReceivedPoint = {
  /** The metric name, e.g. `hyperhive.review_classifier.cost.usage`. */
  name: string
  unit: string
  kind: 'sum' | 'gauge'
  /** For sums: `delta` or `cumulative`. */
  temporality: 'delta' | 'cumulative' | 'unspecified' | null
  /** Which OTLP value field carried the number. */
  valueType: 'double' | 'int'
  value: number
  attributes: Record<string, AttributeValue>
  resource: Record<string, AttributeValue>
  scope: string
}

export type OtlpReceiver = {
  /** `http://127.0.0.1:<port>`, for the exporter's `url`. */
  endpoint: string
  /** Every data point received so far, in arrival order. */
  received(): ReceivedPoint[]
  /** How many Export calls arrived. */
  exportCount(): number
  /** Resolves with the points once `predicate` holds for them; rejects after `timeoutMs`. */
  waitFor(predicate: (points: ReceivedPoint[]) => boolean, timeoutMs?: number): Promise<ReceivedPoint[]>
  /** Closes the port; calls in flight are cut. */
  stop(): Promise<void>
}

const protoPath = new URL('../fixtures/otlp/metrics_service.proto', import.meta.url).pathname
const serviceName = 'opentelemetry.proto.collector.metrics.v1.MetricsService'

const AnyValueShape = Type.Object({
  stringValue: Type.Optional(Type.String()),
  boolValue: Type.Optional(Type.Boolean()),
  intValue: Type.Optional(Type.Number()),
  doubleValue: Type.Optional(Type.Number()),
})
const KeyValueShape = Type.Object({ key: Type.String(), value: Type.Optional(AnyValueShape) })
const PointShape = Type.Object({
  attributes: Type.Array(KeyValueShape),
  asDouble: Type.Optional(Type.Number()),
  asInt: Type.Optional(Type.Number()),
})
const MetricShape = Type.Object({
  name: Type.String(),
  unit: Type.Optional(Type.String()),
  sum: Type.Optional(
    Type.Object({
      dataPoints: Type.Array(PointShape),
      aggregationTemporality: Type.Optional(Type.String()),
    }),
  ),
  gauge: Type.Optional(Type.Object({ dataPoints: Type.Array(PointShape) })),
})
const RequestShape = Type.Object({
  resourceMetrics: Type.Array(
    Type.Object({
      resource: Type.Optional(Type.Object({ attributes: Type.Array(KeyValueShape) })),
      scopeMetrics: Type.Array(
        Type.Object({
          scope: Type.Optional(Type.Object({ name: Type.Optional(Type.String()) })),
          metrics: Type.Array(MetricShape),
        }),
      ),
    }),
  ),
})

export type OtlpReceiverOptions = {
  /**
   * `ok` (the default) accepts every export; `never` records the points but
   * keeps each call open without answering, like a wedged collector.
   */
  respond?: 'ok' | 'never'
}

type Waiter = { predicate: (points: ReceivedPoint[]) => boolean; resolve: (points: ReceivedPoint[]) => void }

export async function startOtlpReceiver(options: OtlpReceiverOptions = {}): Promise<OtlpReceiver> {
  const respond = options.respond ?? 'ok'
  const definition = protoLoader.loadSync(protoPath, {
    keepCase: false,
    longs: Number,
    enums: String,
    defaults: false,
    arrays: true,
    oneofs: false,
  })
  const service = definition[serviceName]
  if (service === undefined || 'format' in service) throw new Error(`${serviceName} missing from ${protoPath}`)

  const points: ReceivedPoint[] = []
  const waiters = new Set<Waiter>()
  let exports = 0

  const server = new grpc.Server()
  server.addService(service, {
    Export(call: grpc.ServerUnaryCall<unknown, object>, callback: grpc.sendUnaryData<object>) {
      exports += 1
      if (!Value.Check(RequestShape, call.request)) {
        callback({ code: grpc.status.INVALID_ARGUMENT, details: 'request does not match the test receiver schema' })
        return
      }
      points.push(...flatten(call.request))
      if (respond === 'ok') callback(null, {})
      for (const waiter of waiters) {
        if (waiter.predicate(points)) {
          waiters.delete(waiter)
          waiter.resolve([...points])
        }
      }
    },
  })
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error === null ? resolve(bound) : reject(error),
    )
  })

  return {
    endpoint: `http://127.0.0.1:${port}`,
    received: () => [...points],
    exportCount: () => exports,
    waitFor(predicate, timeoutMs = 15_000) {
      if (predicate(points)) return Promise.resolve([...points])
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          predicate,
          resolve: (found) => {
            clearTimeout(timer)
            resolve(found)
          },
        }
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(
            new Error(`OTLP receiver: condition not met within ${timeoutMs} ms; received ${JSON.stringify(points)}`),
          )
        }, timeoutMs)
        waiters.add(waiter)
      })
    },
    stop() {
      return new Promise((resolve) => {
        // Graceful first; an exporter holding a call open must not hang the test's cleanup.
        const force = setTimeout(() => server.forceShutdown(), 2_000)
        server.tryShutdown(() => {
          clearTimeout(force)
          resolve()
        })
      })
    },
  } satisfies OtlpReceiver
}

function flatten(request: Static<typeof RequestShape>): ReceivedPoint[] {
  const out: ReceivedPoint[] = []
  for (const rm of request.resourceMetrics) {
    const resource = toAttributes(rm.resource?.attributes ?? [])
    for (const sm of rm.scopeMetrics) {
      for (const metric of sm.metrics) {
        const sum = metric.sum
        const series = sum
          ? { kind: 'sum' as const, dataPoints: sum.dataPoints, temporality: toTemporality(sum.aggregationTemporality) }
          : { kind: 'gauge' as const, dataPoints: metric.gauge?.dataPoints ?? [], temporality: null }
        for (const point of series.dataPoints) {
          out.push({
            name: metric.name,
            unit: metric.unit ?? '',
            kind: series.kind,
            temporality: series.temporality,
            valueType: point.asInt === undefined ? 'double' : 'int',
            value: point.asInt ?? point.asDouble ?? 0,
            attributes: toAttributes(point.attributes),
            resource,
            scope: sm.scope?.name ?? '',
          })
        }
      }
    }
  }
  return out
}

function toAttributes(list: Static<typeof KeyValueShape>[]): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {}
  for (const { key, value } of list) {
    const v = value?.stringValue ?? value?.intValue ?? value?.doubleValue ?? value?.boolValue
    if (v !== undefined) out[key] = v
  }
  return out
}

function toTemporality(text: string | undefined): ReceivedPoint['temporality'] {
  if (text === 'AGGREGATION_TEMPORALITY_DELTA') return 'delta'
  if (text === 'AGGREGATION_TEMPORALITY_CUMULATIVE') return 'cumulative'
  return 'unspecified'
}
