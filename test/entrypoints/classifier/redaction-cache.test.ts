/**
 * Redaction and the prompt cache (issue 19): a run of ten questions on a PR
 * that holds secrets, with the real `claude` against the fake provider. The
 * provider sees placeholders only, the same shared block in every question
 * (one redaction per run, so a secret keeps its number), and so the run
 * still reads its PR prefix from the cache: at least 0.8 of the most a
 * warm-first run can read, (N - 1) / N.
 */
import { afterEach, beforeEach, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createClaudeRuntime } from '../../../adapters/claude/runtime.ts'
import { createFixedClock } from '../../../adapters/memory/clock.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../../../adapters/memory/metrics.ts'
import { createScriptedModelRuntime, failed } from '../../../adapters/memory/model-runtime.ts'
import { createInlineRedactor } from '../../../adapters/memory/redactor.ts'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { RUNTIME_KEY_SECRETS } from '../../../core/settings/service-account.ts'
import { createClassifier } from '../../../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../../../entrypoints/classifier/session-limiter.ts'
import { aWorkDir, CLAUDE_BIN } from '../../adapters/claude/support.ts'
import { aClassification, aRunRequest } from '../../support/builders.ts'
import {
  asArray,
  estimateTokens,
  type FakeAnthropic,
  startFakeAnthropic,
  withoutMarker,
} from '../../support/fake-anthropic.ts'
import { aSecretPr, leaksSecret } from '../../support/secret-pr.ts'

setDefaultTimeout(180_000)

const API_KEY = 'sk-ant-redaction-cache-test-7e2c'
const MATCH = '{"verdict":"match","certainty":90,"reason":"It holds."}'
const N = 10

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

/** The text of the user message's first block: the shared context as the provider got it. */
function sharedBlock(body: unknown): string {
  const messages = isRecord(body) && Array.isArray(body.messages) ? body.messages : []
  const user: unknown = messages.find((message: unknown) => isRecord(message) && message.role === 'user')
  const content = isRecord(user) && Array.isArray(user.content) ? user.content : []
  const first: unknown = content[0]
  return isRecord(first) && typeof first.text === 'string' ? first.text : ''
}

/**
 * The tokens of the prefix every question shares, as the fake counts them:
 * the tools and the system blocks, then the user message's first block (the
 * PR, which holds the run's one breakpoint). The question and what the CLI
 * adds after it are never the same twice.
 */
function sharedTokens(body: unknown): number {
  if (!isRecord(body)) return 0
  let tokens = 0
  for (const tool of asArray(body.tools)) tokens += estimateTokens(JSON.stringify(tool))
  for (const block of asArray(body.system)) tokens += estimateTokens(withoutMarker(block))
  const user: unknown = asArray(body.messages).find((message: unknown) => isRecord(message) && message.role === 'user')
  const first: unknown = isRecord(user) ? asArray(user.content)[0] : undefined
  return tokens + estimateTokens(`user${withoutMarker(first)}`)
}

describe('a run of ten questions on a PR that holds secrets', () => {
  let fake: FakeAnthropic
  let work: Awaited<ReturnType<typeof aWorkDir>>
  beforeEach(async () => {
    fake = startFakeAnthropic({ text: MATCH })
    work = await aWorkDir()
  })
  afterEach(async () => {
    await fake.stop()
    await work.remove()
  })

  it('sends the same redacted shared block to every question, and reads it from the cache', async () => {
    const classifier = createClassifier({
      runtimes: {
        'api-key': createClaudeRuntime(
          { claudeBin: CLAUDE_BIN, workDir: work.path, passEnv: { ANTHROPIC_BASE_URL: fake.url } },
          createRecordingLogger(),
        ),
        acp: createScriptedModelRuntime(() => failed('runtime', 'not used')),
        subscription: createScriptedModelRuntime(() => failed('runtime', 'not used')),
      },
      secrets: createMemorySecretStore({ [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: API_KEY } }),
      metrics: createRecordingMetrics(),
      logger: createRecordingLogger(),
      clock: createFixedClock(),
      limiter: createSessionLimiter(N),
      classificationTimeoutMs: 60_000,
      contextBudgetBytes: 600_000,
      redactor: createInlineRedactor(),
    })
    const pr = aSecretPr()
    const classifications = Array.from({ length: N }, (_, i) => aClassification({ name: `rule-${i + 1}` }))
    const reply = await classifier.handle(JSON.stringify(aRunRequest({ ...pr, classifications })))

    expect(reply.ok).toBe(true)
    expect(reply.rows.every((row) => row.verdict === 'match')).toBe(true)
    expect(reply.redaction?.redacted).toBe(pr.distinct)
    const bodies = fake
      .requests()
      .filter((request) => request.method === 'POST' && request.path === '/v1/messages')
      .map((request) => request.body)
    expect(bodies).toHaveLength(N)
    for (const body of bodies) expect(leaksSecret(pr, JSON.stringify(body))).toBe(false)
    const blocks = new Set(bodies.map(sharedBlock))
    expect(blocks.size).toBe(1)
    const [block] = [...blocks]
    for (const n of [1, 2, 3, 4]) expect(block).toContain(` #${n}]`)

    // Of the shared prefix's tokens over the run, the share read from the cache; warm first reads it
    // in all but the first question, so at most (N - 1) / N.
    const usages = fake.stats().usages
    const shared = bodies.map(sharedTokens)
    const read = usages.reduce((sum, usage, i) => sum + Math.min(usage.cache_read_input_tokens, shared[i] ?? 0), 0)
    const prefix = shared.reduce((sum, tokens) => sum + tokens, 0)
    const limit = (N - 1) / N
    expect(read / prefix).toBeGreaterThanOrEqual(0.8 * limit)
  })
})
