/**
 * With a collector configured, the real `claude` exports its token metrics
 * over OTLP/gRPC, labelled with the repo and PR, so cost reads by PR. The
 * receiver keeps the raw protobuf; the assertions look for the encoded
 * attribute bytes rather than decoding the whole message.
 */
import { afterEach, beforeEach, describe, expect, it, setDefaultTimeout } from 'bun:test'
import * as grpc from '@grpc/grpc-js'
import { createClaudeRuntime } from '../../../adapters/claude/runtime.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { aClassifyInput } from '../../support/builders.ts'
import { classifyOnce } from '../../support/classify-once.ts'
import { type FakeAnthropic, startFakeAnthropic } from '../../support/fake-anthropic.ts'
import { ROOMY_DEADLINE_MS } from '../../support/waits.ts'
import { aWorkDir, CLAUDE_BIN } from './support.ts'

setDefaultTimeout(180_000)

const passThrough = (bytes: Buffer) => bytes

const metricsService = {
  Export: {
    path: '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export',
    requestStream: false,
    responseStream: false,
    requestSerialize: passThrough,
    requestDeserialize: passThrough,
    responseSerialize: passThrough,
    responseDeserialize: passThrough,
  },
} satisfies grpc.ServiceDefinition

/** A protobuf `KeyValue` whose value is a string: the bytes OTLP uses for an attribute. */
function encodedAttribute(key: string, value: string): Buffer {
  const anyValue = Buffer.concat([Buffer.from([0x0a, value.length]), Buffer.from(value)])
  return Buffer.concat([
    Buffer.from([0x0a, key.length]),
    Buffer.from(key),
    Buffer.from([0x12, anyValue.length]),
    anyValue,
  ])
}

describe('createClaudeRuntime telemetry', () => {
  let fake: FakeAnthropic
  let collector: grpc.Server
  let port: number
  const exports: Buffer[] = []
  beforeEach(async () => {
    exports.length = 0
    fake = startFakeAnthropic({ text: 'YES' })
    collector = new grpc.Server()
    const exportMetrics: grpc.handleUnaryCall<Buffer, Buffer> = (call, callback) => {
      exports.push(call.request)
      callback(null, Buffer.alloc(0)) // an empty ExportMetricsServiceResponse
    }
    collector.addService(metricsService, { Export: exportMetrics })
    port = await new Promise<number>((resolve, reject) => {
      collector.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      )
    })
  })
  afterEach(async () => {
    collector.forceShutdown()
    await fake.stop()
  })

  it('exports token usage labelled with the repo and the PR to the collector', async () => {
    const work = await aWorkDir()
    try {
      const runtime = createClaudeRuntime(
        {
          claudeBin: CLAUDE_BIN,
          workDir: work.path,
          passEnv: { ANTHROPIC_BASE_URL: fake.url },
          otlpEndpoint: `http://127.0.0.1:${port}`,
        },
        createRecordingLogger(),
      )
      const result = await classifyOnce(
        runtime,
        aClassifyInput({ deadlineMs: ROOMY_DEADLINE_MS, labels: { repo: 'acme/widgets', pr: 42 } }),
      )
      expect(result.ok).toBe(true)
    } finally {
      await work.remove()
    }
    const exported = Buffer.concat(exports)
    expect(exported.includes('claude_code.token.usage')).toBe(true)
    expect(exported.includes(encodedAttribute('type', 'cacheCreation'))).toBe(true)
    expect(exported.includes(encodedAttribute('repo', 'acme/widgets'))).toBe(true)
    expect(exported.includes(encodedAttribute('pr', '42'))).toBe(true)
  })
})
