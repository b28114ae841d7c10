/**
 * One review end to end on each runtime, with the real binaries: a signed
 * webhook into the controller process, the run through a real nats-server
 * to the classifier process, the real `claude` (on an API key, then on a
 * subscription's token) against a fake Anthropic API and the real
 * `opencode acp` against a fake OpenAI-compatible provider on loopback TLS,
 * and the review posted on the fake forge. Every other end-to-end test runs
 * the classifier on the scripted model (test/support/scripted-model.ts);
 * these three are what proves the real runtimes answer a review, what each
 * sends its provider, and what each costs.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { RULES_YML_PATH } from '../../core/repo-files/rules-file.ts'
import { aNumberedPull, headOf, TWO_RULES_YAML } from '../support/builders.ts'
import { cleanUp } from '../support/cleanup.ts'
import { type FakeAnthropic, startFakeAnthropic } from '../support/fake-anthropic.ts'
import { type FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.ts'
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts'
import { RUNTIME_KEYS, type ServiceWorld, startServiceWorld } from '../support/service-world.ts'

// Room for opencode's start (several CPU seconds) on a loaded 2-core machine.
setDefaultTimeout(240_000)

const MATCH = '{"verdict":"match","certainty":95,"reason":"The rule holds."}'
const NO_ADS = '{"verdict":"no-match","certainty":97,"reason":"No commit advertises anything."}'
const NO_ADS_RULE = 'A commit message advertises an AI model.'
const ACP_MODEL = 'fake-model'
/** An API key in the classifier's own environment, which no runtime may use. */
const STRAY_KEY = 'sk-ant-stray-environment-key-09d1'

let ai: FakeAnthropic
let provider: FakeOpenAI
let receiver: OtlpReceiver
let world: ServiceWorld

beforeAll(async () => {
  ai = startFakeAnthropic({
    text: MATCH,
    responder: (body) => (JSON.stringify(body).includes('Name: no-ads') ? { text: NO_ADS } : null),
  })
  provider = await startFakeOpenAI({
    mode: {
      kind: 'answer',
      text: MATCH,
      usage: { prompt: 2_000_000, completion: 1_000_000, cached: 0, reasoning: 0 },
    },
  })
  // The ACP answers: MATCH for datetime, NO_ADS for no-ads, told apart by the question.
  provider.onRequest((request) => {
    const asksNoAds = JSON.stringify(request.body).includes(NO_ADS_RULE)
    provider.setMode({
      kind: 'answer',
      text: asksNoAds ? NO_ADS : MATCH,
      usage: { prompt: 2_000_000, completion: 1_000_000, cached: 0, reasoning: 0 },
    })
  })
  receiver = await startOtlpReceiver()
  world = await startServiceWorld({
    swarm: 'e2e-runtimes',
    classifier: 'real',
    classifierEnv: {
      ANTHROPIC_BASE_URL: ai.url,
      NODE_EXTRA_CA_CERTS: provider.caFile,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      ACP_BASE_URLS: provider.url,
      LOG_LEVEL: 'info',
      // Never passed on: each runtime's key comes from the secret store alone.
      ANTHROPIC_API_KEY: STRAY_KEY,
    },
    repos: [
      {
        owner: 'acme',
        name: 'widgets',
        files: { [RULES_YML_PATH]: TWO_RULES_YAML },
        pulls: [1, 2, 3].map((pr) => aNumberedPull(pr)),
        collaborators: { 'review-classifier': 'write', alice: 'write' },
      },
    ],
    controllerEnv: { RUN_TIMEOUT_S: '180' },
  })
  await world.controller.waitForLine('review classifier service account token minted')
})

afterAll(async () => {
  await cleanUp(
    world === undefined ? null : () => world.stop(),
    receiver === undefined ? null : () => receiver.stop(),
    provider === undefined ? null : () => provider.stop(),
    ai === undefined ? null : () => ai.stop(),
  )
})

/** The review of `pr` once posted: approved as the service account on the head it read, with both rows. */
async function approvedReview(pr: number) {
  const [review, ...more] = await world.reviewsOf(pr, { timeoutMs: 180_000 })
  expect(more).toEqual([])
  expect(review).toMatchObject({ user: 'review-classifier', state: 'APPROVED', commitId: headOf(pr), official: true })
  expect(review?.body).toContain('| datetime | positive | match | 95 | 80 | yes ✅ |')
  expect(review?.body).toContain('| no-ads | negative | no match | 97 | 90 | yes ✅ |')
  expect(await world.runOf(pr)).toMatchObject({ trigger: 'review', outcome: 'approved', review_url: review?.htmlUrl })
}

describe('a review on each runtime, with the real binaries', () => {
  it("on the API key runtime: claude on the key, the PR block read from the cache, and claude's cost counted", async () => {
    expect((await world.deliver(1)).status).toBe(202)
    await approvedReview(1)
    const calls = ai.requests().filter((request) => request.path === '/v1/messages')
    expect(calls).toHaveLength(2)
    for (const call of calls) {
      expect(call.headers['x-api-key']).toBe(RUNTIME_KEYS['api-key'])
      expect(call.headers.authorization).toBeUndefined()
    }
    // Warm first: the second question read the PR block the first one wrote.
    expect(ai.stats().usages.map((usage) => usage.cache_read_input_tokens > 0)).toEqual([false, true])
    // The controller counts what claude itself reported it cost (total_cost_usd), for the daily budget.
    const spend = (await (await fetch(`${world.base}/api/review-classifier/spend`)).json()) as {
      by_repo: Record<string, number>
    }
    expect(spend.by_repo['acme/widgets']).toBeGreaterThan(0)
    const line = await world.classifier?.waitForLine('review classifier run answered')
    expect(line).not.toContain(RUNTIME_KEYS['api-key'])
    expect(line).not.toContain('now(UTC)')
  })

  it('on the subscription runtime: claude on the OAuth token alone', async () => {
    expect((await world.putSettings({ runtime: 'subscription' })).status).toBe(200)
    ai.reset()
    expect((await world.deliver(2)).status).toBe(202)
    await approvedReview(2)
    const calls = ai.requests().filter((request) => request.path === '/v1/messages')
    expect(calls.map((call) => [call.headers.authorization, call.headers['x-api-key']])).toEqual([
      [`Bearer ${RUNTIME_KEYS.subscription}`, undefined],
      [`Bearer ${RUNTIME_KEYS.subscription}`, undefined],
    ])
    expect(calls[0]?.headers['anthropic-beta']?.split(',')).toContain('oauth-2025-04-20')
    expect(JSON.stringify(ai.requests())).not.toContain(STRAY_KEY)
  })

  it('on the ACP runtime: opencode on the ACP key, its cost and tokens exported as counters', async () => {
    const acp = { base_url: provider.url, model: ACP_MODEL, prices: { input: 0.5, output: 2 } }
    expect((await world.putSettings({ runtime: 'acp', acp })).status).toBe(200)
    expect((await world.deliver(3)).status).toBe(202)
    await approvedReview(3)
    const completions = provider.requests().filter((request) => request.path.endsWith('/chat/completions'))
    expect(completions).toHaveLength(2)
    expect(completions.every((request) => request.headers.authorization === `Bearer ${RUNTIME_KEYS.acp}`)).toBe(true)

    // The counters leave on the shutdown flush at the latest.
    const classifier = world.classifier
    classifier?.kill('SIGTERM')
    expect(await classifier?.exited).toBe(0)
    const points = await receiver.waitFor((all) => all.some((p) => p.name === 'hyperhive.review_classifier.cost.usage'))
    const cost = points.filter((p) => p.name === 'hyperhive.review_classifier.cost.usage')
    // 2M input at 0.5 + 1M output at 2 = 3 USD per classification, two classifications.
    expect(cost.reduce((sum, p) => sum + Number(p.value), 0)).toBeCloseTo(6, 6)
    expect(cost[0]?.attributes).toMatchObject({ repo: 'acme/widgets', pr: '3', model: ACP_MODEL, currency: 'USD' })
    const output = points.filter(
      (p) => p.name === 'hyperhive.review_classifier.token.usage' && p.attributes.type === 'output',
    )
    expect(output.reduce((sum, p) => sum + Number(p.value), 0)).toBe(2_000_000)
  })
})
