/**
 * The classifier end to end: `bun run entrypoints/classifier.ts` as a real
 * process on a real nats-server, driving the real `claude` binary against a
 * fake Messages API on loopback. A run request goes in on the subject, the
 * run reply comes back.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRecordingLogger } from '../../adapters/memory/logger.ts'
import { connectNats, type NatsClient } from '../../adapters/nats/connection.ts'
import { createNatsRunQueue, runSubject } from '../../adapters/nats/queue.ts'
import { RUNTIME_KEY_SECRETS } from '../../core/service-account.ts'
import type { Classification, RunReply, RunRequest } from '../../core/types.ts'
import { decodeRunReply } from '../../core/wire-decode.ts'
import { aClassification, aRunRequest } from '../support/builders.ts'
import { cleanUp } from '../support/cleanup.ts'
import { type FakeAnthropic, startFakeAnthropic } from '../support/fake-anthropic.ts'
import { startFakeOpenAI } from '../support/fake-openai.ts'
import { type NatsServer, startNatsServer } from '../support/nats-server.ts'
import { startOtlpReceiver } from '../support/otlp-receiver.ts'
import { type ClassifierProcess, makeSecretsDir, startClassifierProcess } from '../support/service-process.ts'
import { waitFor } from '../support/waits.ts'

// Room for opencode's start (~3 CPU seconds) on a loaded 2-core machine.
setDefaultTimeout(240_000)

const API_KEY = 'sk-ant-e2e-secret-5c1d'
const SWARM = 'e2e'
const MATCH = '{"verdict":"match","certainty":93,"reason":"Every timestamp carries a zone."}'

let nats: NatsServer
let fake: FakeAnthropic
let secretsDir: string
let client: NatsClient
const started: ClassifierProcess[] = []

function rules(count: number): Classification[] {
  return Array.from({ length: count }, (_, i) =>
    aClassification({ name: `rule-${i + 1}`, description: `Rule number ${i + 1} holds.` }),
  )
}

function startClassifier(extra: Record<string, string> = {}): ClassifierProcess {
  const proc = startClassifierProcess({
    NATS_URL: nats.url,
    SWARM,
    SECRETS_DIR: secretsDir,
    ANTHROPIC_BASE_URL: fake.url,
    CLASSIFICATION_TIMEOUT_S: '20',
    LOG_LEVEL: 'info',
    ...extra,
  })
  started.push(proc)
  return proc
}

async function ask(request: RunRequest, timeoutMs = 60_000): Promise<RunReply> {
  const queue = createNatsRunQueue(client, { subject: runSubject(SWARM) })
  const decoded = decodeRunReply(await queue.request(request, timeoutMs))
  if (!decoded.ok) throw new Error(decoded.error)
  return decoded.value
}

beforeAll(async () => {
  nats = await startNatsServer()
  fake = startFakeAnthropic({ text: MATCH })
  secretsDir = makeSecretsDir({ [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: API_KEY } })
  client = await connectNats({
    url: nats.url,
    name: 'e2e-controller',
    firstConnectTimeoutMs: 5_000,
    reconnectTimeWaitMs: 100,
    logger: createRecordingLogger(),
  })
})

afterEach(async () => {
  for (const proc of started.splice(0)) {
    proc.kill('SIGKILL')
    await proc.exited
  }
  fake.setResponder(null)
  fake.setHold(null)
  fake.setMode({ mode: 'ok', text: MATCH, delayMs: 0 })
  fake.reset()
})

afterAll(async () => {
  await cleanUp(
    client === undefined ? null : () => client.close(),
    fake === undefined ? null : () => fake.stop(),
    nats === undefined ? null : () => nats.cleanup(),
    secretsDir === undefined ? null : () => rmSync(secretsDir, { recursive: true, force: true }),
  )
})

describe('classifier process', () => {
  it('answers a run request on the subject with the real claude binary', async () => {
    const proc = startClassifier()
    await proc.waitForLine('review classifier listening')
    fake.setResponder((body) =>
      JSON.stringify(body).includes('Rule number 2 holds')
        ? { text: '{"verdict":"no-match","certainty":88,"reason":"It does not."}' }
        : null,
    )
    const reply = await ask(aRunRequest({ id: 'e2e-1', classifications: rules(3) }))
    expect(reply).toMatchObject({ id: 'e2e-1', ok: true, overall: 'request-changes' })
    expect(reply.rows.map((r) => [r.name, r.verdict, r.certainty, r.counted, r.fails])).toEqual([
      ['rule-1', 'match', 93, true, false],
      ['rule-2', 'no-match', 88, true, true],
      ['rule-3', 'match', 93, true, false],
    ])
    // Warm first: the later questions read the PR block from the emulated cache.
    expect(reply.rows[2]?.usage?.cache_read).toBeGreaterThan(0)
    const line = await proc.waitForLine('review classifier run answered')
    expect(line).not.toContain(API_KEY)
    expect(line).not.toContain('now(UTC)')
  })

  it('with nine of ten classifications timing out, says so and never approves', async () => {
    // Long enough for the first answer (its claude's start, beside nine more starting) on a loaded
    // machine: 12 s was not, with two suites side by side. Ten places, so the nine that hang wait
    // out one deadline together rather than eight and then one.
    const proc = startClassifier({ CLASSIFICATION_TIMEOUT_S: '25', MAX_SESSIONS: '10' })
    await proc.waitForLine('review classifier listening')
    fake.setResponder((body) => (JSON.stringify(body).includes('Rule number 1 holds') ? null : { mode: 'hang' }))
    const reply = await ask(aRunRequest({ id: 'e2e-9', classifications: rules(10) }))
    // The run's error, when there is one, says why it failed as a whole.
    expect(reply.ok ? true : reply.error).toBe(true)
    expect(reply.overall).toBe('no-verdict')
    expect(reply.rows[0]?.verdict).toBe('match')
    expect(reply.rows.slice(1).map((r) => r.error?.kind)).toEqual(Array(9).fill('timeout'))
  })

  it('fails a run whose runtime has no key, naming the secret', async () => {
    const empty = makeSecretsDir({})
    const proc = startClassifier({ SECRETS_DIR: empty })
    await proc.waitForLine('review classifier listening')
    const reply = await ask(aRunRequest({ id: 'e2e-nokey' }))
    expect(reply).toMatchObject({ id: 'e2e-nokey', ok: false, overall: 'no-verdict' })
    expect(reply.error).toContain(RUNTIME_KEY_SECRETS['api-key'].path)
    rmSync(empty, { recursive: true, force: true })
  })

  it('runs a subscription run on the OAuth token alone, whatever API key its own environment holds', async () => {
    const token = 'sk-ant-oat01-e2e-subscription-8a4e'
    const tokenDir = makeSecretsDir({ [RUNTIME_KEY_SECRETS.subscription.path]: { oauth_token: token } })
    try {
      const proc = startClassifier({ SECRETS_DIR: tokenDir, ANTHROPIC_API_KEY: API_KEY })
      await proc.waitForLine('review classifier listening')
      const reply = await ask(aRunRequest({ id: 'e2e-sub', runtime: 'subscription', classifications: rules(1) }))
      expect(reply).toMatchObject({ id: 'e2e-sub', ok: true, overall: 'approve' })
      const calls = fake.requests().filter((request) => request.path === '/v1/messages')
      expect(calls.map((call) => [call.headers.authorization, call.headers['x-api-key']])).toEqual([
        [`Bearer ${token}`, undefined],
      ])
      expect(calls[0]?.headers['anthropic-beta']?.split(',')).toContain('oauth-2025-04-20')
      const line = await proc.waitForLine('review classifier run answered')
      expect(line).not.toContain(token)
    } finally {
      rmSync(tokenDir, { recursive: true, force: true })
    }
  })

  it('refuses to start on a WORK_DIR others can write, with one line naming it', async () => {
    const open = mkdtempSync(join(tmpdir(), 'rc-open-work-'))
    chmodSync(open, 0o777)
    try {
      const proc = startClassifier({ WORK_DIR: open })
      expect(await proc.exited).toBe(1)
      expect(proc.lines.filter((line) => line.trim() !== '')).toEqual([
        `classifier: configuration error: WORK_DIR ${open} is writable by group or others (mode 0777); chmod 700 it or set WORK_DIR to a private directory`,
      ])
    } finally {
      rmSync(open, { recursive: true, force: true })
    }
  })

  it('answers a bad request with ok false and keeps serving', async () => {
    const proc = startClassifier()
    await proc.waitForLine('review classifier listening')
    const bad = await ask({ ...aRunRequest({ id: 'e2e-bad' }), model: '-p' })
    expect(bad).toMatchObject({ id: 'e2e-bad', ok: false })
    expect(bad.error).toContain('model')
    const good = await ask(aRunRequest({ id: 'e2e-after' }))
    expect(good.ok).toBe(true)
  })

  it('on SIGTERM answers the run in hand, then exits 0', async () => {
    const proc = startClassifier()
    await proc.waitForLine('review classifier listening')
    // The answer is held until the classifier has begun its drain: the run is in hand at the SIGTERM.
    let release = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    fake.setHold(() => released)
    const pending = ask(aRunRequest({ id: 'e2e-drain' }))
    await waitFor(() => fake.stats().messages > 0, "the run's question at the provider", 60_000)
    proc.kill('SIGTERM')
    await proc.waitForLine('review classifier draining').finally(release)
    const reply = await pending.catch((error: unknown) => {
      throw new Error(`${String(error)}\n${proc.lines.join('\n')}`)
    })
    expect(reply).toMatchObject({ id: 'e2e-drain', ok: true, overall: 'approve' })
    expect(await proc.exited).toBe(0)
    // Once drained, nothing listens: the next request meets "no responders" at once.
    await expect(ask(aRunRequest({ id: 'e2e-none' }), 5_000)).rejects.toThrow('classifier not running')
  })

  it('a worker killed mid-run leaves the requester a timeout, and a new worker takes the next run', async () => {
    const proc = startClassifier()
    await proc.waitForLine('review classifier listening')
    fake.setMode({ mode: 'hang' })
    // Settled into a value at once: on a loaded machine the request may time out before claude's
    // question reaches the fake, and a rejection nobody holds yet fails the test on its own.
    const pending = ask(aRunRequest({ id: 'e2e-killed' }), 5_000).then(
      (reply) => ({ reply }),
      (error: unknown) => ({ error }),
    )
    // Mid-run: the worker took the run and its question is at the provider.
    await waitFor(() => fake.stats().messages > 0, "the run's question at the provider", 60_000)
    proc.kill('SIGKILL')
    expect(await pending).toMatchObject({ error: { code: 'timeout' } })
    fake.setMode({ mode: 'ok' })
    const next = startClassifier()
    await next.waitForLine('review classifier listening')
    expect((await ask(aRunRequest({ id: 'e2e-next' }))).ok).toBe(true)
  })

  it('keeps serving after NATS restarts mid-run', async () => {
    const proc = startClassifier()
    await proc.waitForLine('review classifier listening')
    fake.setMode({ delayMs: 2_000 })
    const pending = ask(aRunRequest({ id: 'e2e-restart' }), 15_000).then(
      (reply) => ({ reply }),
      (error: unknown) => ({ error }),
    )
    while (fake.stats().messages === 0) await Bun.sleep(50)
    await nats.restart()
    // The run in flight either gets its reply after both sides reconnect or
    // times out (core request/reply is at most once); it never hangs.
    const outcome = await pending
    if ('reply' in outcome) expect(outcome.reply.id).toBe('e2e-restart')
    fake.setMode({ delayMs: 0 })
    await proc.waitForLine('reconnected', 20_000)
    let after: RunReply | null = null
    for (let attempt = 0; attempt < 20 && after === null; attempt += 1) {
      try {
        after = await ask(aRunRequest({ id: 'e2e-after-restart' }), 20_000)
      } catch {
        await Bun.sleep(250)
      }
    }
    expect(after?.ok).toBe(true)
  })
})

describe('classifier process on the ACP runtime', () => {
  it('makes no provider call for a run whose acp.base_url is not in ACP_BASE_URLS, and says so', async () => {
    const provider = await startFakeOpenAI({ mode: { kind: 'answer', text: MATCH } })
    const acpSecrets = makeSecretsDir({ [RUNTIME_KEY_SECRETS.acp.path]: { api_key: 'acp-e2e-secret-4d2b' } })
    try {
      const proc = startClassifier({
        SECRETS_DIR: acpSecrets,
        NODE_EXTRA_CA_CERTS: provider.caFile,
        ACP_BASE_URLS: 'https://llm.example/v1',
      })
      await proc.waitForLine('review classifier listening')
      const acp = { base_url: provider.url, model: 'fake-model', prices: { input: 0.5, output: 2 } }
      const reply = await ask(aRunRequest({ id: 'e2e-acp-off-list', runtime: 'acp', acp, classifications: rules(2) }))
      expect(reply).toMatchObject({ id: 'e2e-acp-off-list', ok: false, overall: 'no-verdict', rows: [] })
      expect(reply.error).toBe(
        `the run's acp.base_url ${JSON.stringify(provider.url)} is not in the classifier's ACP_BASE_URLS, so no provider was called`,
      )
      expect(provider.requests()).toEqual([])
      expect(await proc.waitForLine('review classifier run failed')).not.toContain('acp-e2e-secret-4d2b')
    } finally {
      await provider.stop()
      rmSync(acpSecrets, { recursive: true, force: true })
    }
  })

  it('answers with the real opencode binary and exports cost and token counters', async () => {
    const provider = await startFakeOpenAI({
      mode: {
        kind: 'answer',
        text: MATCH,
        usage: { prompt: 2_000_000, completion: 1_000_000, cached: 0, reasoning: 0 },
      },
    })
    const receiver = await startOtlpReceiver()
    const acpSecrets = makeSecretsDir({ [RUNTIME_KEY_SECRETS.acp.path]: { api_key: 'acp-e2e-secret-77aa' } })
    try {
      const proc = startClassifier({
        SECRETS_DIR: acpSecrets,
        NODE_EXTRA_CA_CERTS: provider.caFile,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        CLASSIFICATION_TIMEOUT_S: '120',
        // The provider on the list, with a trailing slash the run's base URL doesn't have.
        ACP_BASE_URLS: `https://other.example/v1, ${provider.url}/`,
      })
      await proc.waitForLine('review classifier listening')
      const reply = await ask(
        aRunRequest({
          id: 'e2e-acp',
          runtime: 'acp',
          acp: { base_url: provider.url, model: 'fake-model', prices: { input: 0.5, output: 2 } },
          classifications: rules(2),
        }),
        180_000,
      )
      expect(reply).toMatchObject({ id: 'e2e-acp', ok: true, overall: 'approve' })
      expect(reply.rows.map((r) => r.verdict)).toEqual(['match', 'match'])
      const completions = provider.requests().filter((r) => r.path.endsWith('/chat/completions'))
      expect(completions).toHaveLength(2)
      expect(completions.every((r) => r.headers.authorization === 'Bearer acp-e2e-secret-77aa')).toBe(true)

      // The counters leave on the shutdown flush at the latest.
      proc.kill('SIGTERM')
      expect(await proc.exited).toBe(0)
      const cost = await receiver.waitFor((points) =>
        points.some((p) => p.name === 'hyperhive.review_classifier.cost.usage'),
      )
      const costPoints = cost.filter((p) => p.name === 'hyperhive.review_classifier.cost.usage')
      // 2M input at 0.5 + 1M output at 2 = 3 USD per classification, two classifications.
      expect(costPoints.reduce((sum, p) => sum + Number(p.value), 0)).toBeCloseTo(6, 6)
      expect(costPoints[0]?.attributes).toMatchObject({
        repo: 'acme/widgets',
        pr: '42',
        model: 'fake-model',
        currency: 'USD',
      })
      const output = cost.filter(
        (p) => p.name === 'hyperhive.review_classifier.token.usage' && p.attributes.type === 'output',
      )
      expect(output.reduce((sum, p) => sum + Number(p.value), 0)).toBe(2_000_000)
    } finally {
      await receiver.stop()
      await provider.stop()
      rmSync(acpSecrets, { recursive: true, force: true })
    }
  })
})
