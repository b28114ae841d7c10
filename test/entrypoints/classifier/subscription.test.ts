/**
 * The subscription runtime end to end: the real pinned `claude` on a Claude
 * subscription's OAuth token, against the fake Anthropic API on loopback.
 * What the provider receives (a bearer token, the OAuth beta, no API key),
 * what the process's environment holds (one credential, never both), and a
 * run whose token is missing (no verdict naming the secret, no call).
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createClaudeRuntime } from '../../../adapters/claude/runtime.ts'
import { createFixedClock } from '../../../adapters/memory/clock.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../../../adapters/memory/metrics.ts'
import { createScriptedModelRuntime, failed } from '../../../adapters/memory/model-runtime.ts'
import { createInlineRedactor } from '../../../adapters/memory/redactor.ts'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { RUNTIME_KEY_SECRETS } from '../../../core/settings/service-account.ts'
import type { RunReply } from '../../../core/wire/types.ts'
import { createClassifier } from '../../../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../../../entrypoints/classifier/session-limiter.ts'
import type { ModelRuntime, SessionSpec } from '../../../ports/model-runtime.ts'
import { aWorkDir, CLAUDE_BIN, startedPids } from '../../adapters/claude/support.ts'
import { aClassification, aRunRequest } from '../../support/builders.ts'
import { type FakeAnthropic, startFakeAnthropic } from '../../support/fake-anthropic.ts'
import { ROOMY_DEADLINE_MS, waitFor } from '../../support/waits.ts'

// Each classification starts a real process; a loaded 2-core machine needs room.
setDefaultTimeout(180_000)

/** Looks like a real `claude setup-token` token, so a leak would show. */
const OAUTH_TOKEN = 'sk-ant-oat01-TESTONLY-subscription-3e9d'
const API_KEY = 'sk-ant-api03-TESTONLY-subscription-77c1'
const MATCH = '{"verdict":"match","certainty":90,"reason":"It holds."}'

let fake: FakeAnthropic
let work: { path: string; remove(): Promise<void> }

beforeAll(async () => {
  fake = startFakeAnthropic({ text: MATCH })
  work = await aWorkDir()
})

afterAll(async () => {
  await fake.stop()
  await work.remove()
})

function claudeRuntime(credential: 'api-key' | 'oauth-token', logger = createRecordingLogger()): ModelRuntime {
  return createClaudeRuntime(
    { claudeBin: CLAUDE_BIN, credential, workDir: work.path, passEnv: { ANTHROPIC_BASE_URL: fake.url } },
    logger,
  )
}

function classifierWith(secrets: Record<string, Record<string, string>>) {
  const unused = createScriptedModelRuntime(() => failed('runtime', 'not this runtime'))
  return createClassifier({
    runtimes: { 'api-key': unused, acp: unused, subscription: claudeRuntime('oauth-token') },
    secrets: createMemorySecretStore(secrets),
    metrics: createRecordingMetrics(),
    logger: createRecordingLogger(),
    clock: createFixedClock(),
    limiter: createSessionLimiter(8),
    classificationTimeoutMs: ROOMY_DEADLINE_MS,
    contextBudgetBytes: 600_000,
    redactor: createInlineRedactor(),
  })
}

function subscriptionRun(): string {
  return JSON.stringify(aRunRequest({ runtime: 'subscription', classifications: [aClassification({ name: 'holds' })] }))
}

/** Whether `pid` runs claude now (its command line has claude's flags), not the process it was forked from. */
function execed(pid: number | undefined): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--print')
  } catch {
    return false
  }
}

/** A started session's environment, read from /proc while it waits on its stdin. */
async function environmentOf(runtime: ModelRuntime, logger: ReturnType<typeof createRecordingLogger>, key: string) {
  const spec: SessionSpec = {
    runId: 'env-run',
    system: 'system',
    model: 'haiku',
    effort: null,
    maxOutputTokens: 1024,
    acp: null,
    apiKey: key,
    labels: { repo: 'acme/widgets', pr: 7 },
  }
  const session = runtime.open(spec)
  try {
    await waitFor(() => startedPids(logger).length > 0, 'the claude session to start', ROOMY_DEADLINE_MS)
    const [pid] = startedPids(logger)
    // Until the exec, /proc shows the forked test process's own environment: wait for claude's command line.
    await waitFor(() => execed(pid), 'the claude process to exec', ROOMY_DEADLINE_MS)
    const raw = await readFile(`/proc/${pid}/environ`, 'utf8')
    return new Map(
      raw
        .split('\0')
        .filter((entry) => entry !== '')
        .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
    )
  } finally {
    await session.close()
  }
}

describe('the subscription runtime with the real claude', () => {
  it('answers a run on the OAuth token: a bearer token and the OAuth beta reach the provider, no API key', async () => {
    fake.reset()
    const classifier = classifierWith({ [RUNTIME_KEY_SECRETS.subscription.path]: { oauth_token: OAUTH_TOKEN } })
    const reply: RunReply = await classifier.handle(subscriptionRun())
    expect(reply).toMatchObject({ ok: true, overall: 'approve' })
    const calls = fake.requests().filter((request) => request.path === '/v1/messages')
    expect(calls).toHaveLength(1)
    const headers = calls[0]?.headers ?? {}
    expect(headers.authorization).toBe(`Bearer ${OAUTH_TOKEN}`)
    expect((headers['anthropic-beta'] ?? '').split(',')).toContain('oauth-2025-04-20')
    expect(headers['x-api-key']).toBeUndefined()
  })

  it('fails a run without the token before any process or provider call, naming the secret only', async () => {
    fake.reset()
    const classifier = classifierWith({ [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: API_KEY } })
    const reply = await classifier.handle(subscriptionRun())
    expect(reply.ok).toBe(false)
    expect(reply.overall).toBe('no-verdict')
    expect(reply.error).toBe(
      'no OAuth token for the subscription runtime: secret/swarm/services/review-classifier/claude-subscription has no oauth_token',
    )
    expect(reply.error).not.toContain(API_KEY)
    expect(fake.requests()).toHaveLength(0)
  })

  it('gives the process CLAUDE_CODE_OAUTH_TOKEN and no ANTHROPIC_API_KEY, whatever the parent holds', async () => {
    const before = process.env.ANTHROPIC_API_KEY
    process.env.ANTHROPIC_API_KEY = API_KEY
    try {
      const logger = createRecordingLogger()
      const env = await environmentOf(claudeRuntime('oauth-token', logger), logger, OAUTH_TOKEN)
      expect(env.get('CLAUDE_CODE_OAUTH_TOKEN')).toBe(OAUTH_TOKEN)
      expect(env.has('ANTHROPIC_API_KEY')).toBe(false)
      expect([...env.values()]).not.toContain(API_KEY)
    } finally {
      if (before === undefined) delete process.env.ANTHROPIC_API_KEY
      else process.env.ANTHROPIC_API_KEY = before
    }
  })

  it('gives the API key runtime ANTHROPIC_API_KEY and never CLAUDE_CODE_OAUTH_TOKEN', async () => {
    const logger = createRecordingLogger()
    const env = await environmentOf(claudeRuntime('api-key', logger), logger, API_KEY)
    expect(env.get('ANTHROPIC_API_KEY')).toBe(API_KEY)
    expect(env.has('CLAUDE_CODE_OAUTH_TOKEN')).toBe(false)
  })
})
