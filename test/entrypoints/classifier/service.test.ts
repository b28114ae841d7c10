import { describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../../adapters/memory/clock.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../../../adapters/memory/metrics.ts'
import {
  answered,
  createScriptedModelRuntime,
  failed,
  hang,
  type ModelScript,
} from '../../../adapters/memory/model-runtime.ts'
import { createHeldRedactor, createInlineRedactor } from '../../../adapters/memory/redactor.ts'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { appError } from '../../../core/base/errors.ts'
import { RUNTIME_KEY_SECRETS } from '../../../core/settings/service-account.ts'
import type { AcpProvider, Classification, RunReply, RunRequest } from '../../../core/wire/types.ts'
import { createClassifier, type Schedule } from '../../../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../../../entrypoints/classifier/session-limiter.ts'
import type { ClassifyResult } from '../../../ports/model-runtime.ts'
import type { Redactor } from '../../../ports/redactor.ts'
import { aClassification, aRunRequest, aUsage } from '../../support/builders.ts'
import { waitFor } from '../../support/waits.ts'

const API_KEY = 'sk-ant-service-test-7f3e'
const ACP_KEY = 'acp-service-test-91bd'
const OAUTH_TOKEN = 'sk-ant-oat01-service-test-5c2a'
const MATCH = '{"verdict":"match","certainty":95,"reason":"It holds."}'
const NO_MATCH = '{"verdict":"no-match","certainty":95,"reason":"It does not hold."}'

const ACP: AcpProvider = {
  base_url: 'https://llm.example/v1',
  model: 'Qwen/Qwen3-35B',
  prices: { input: 0.5, output: 2 },
}

function rules(count: number): Classification[] {
  return Array.from({ length: count }, (_, i) => aClassification({ name: `rule-${i + 1}` }))
}

function setup(
  script: ModelScript,
  options: {
    maxSessions?: number
    timeoutMs?: number
    budget?: number
    keys?: boolean
    schedule?: Schedule
    redactor?: Redactor
  } = {},
) {
  const claude = createScriptedModelRuntime(script)
  const opencode = createScriptedModelRuntime(script)
  const subscription = createScriptedModelRuntime(script)
  const secrets = createMemorySecretStore(
    options.keys === false
      ? {}
      : {
          [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: API_KEY },
          [RUNTIME_KEY_SECRETS.acp.path]: { api_key: ACP_KEY },
          [RUNTIME_KEY_SECRETS.subscription.path]: { oauth_token: OAUTH_TOKEN },
        },
  )
  const metrics = createRecordingMetrics()
  const logger = createRecordingLogger()
  const limiter = createSessionLimiter(options.maxSessions ?? 8)
  const classifier = createClassifier({
    runtimes: { 'api-key': claude, acp: opencode, subscription },
    secrets,
    metrics,
    logger,
    clock: createFixedClock(),
    limiter,
    classificationTimeoutMs: options.timeoutMs ?? 2_000,
    contextBudgetBytes: options.budget ?? 600_000,
    redactor: options.redactor ?? createInlineRedactor(),
    ...(options.schedule === undefined ? {} : { schedule: options.schedule }),
  })
  const handle = (request: Partial<RunRequest> | string): Promise<RunReply> =>
    classifier.handle(typeof request === 'string' ? request : JSON.stringify(aRunRequest(request)))
  return { claude, opencode, subscription, secrets, metrics, logger, limiter, classifier, handle }
}

describe('createClassifier', () => {
  it('answers every classification in order and aggregates the verdict', async () => {
    const { handle, claude } = setup((input) => answered(input.question.includes('rule-2') ? NO_MATCH : MATCH))
    const reply = await handle({ id: 'r-1', classifications: rules(3) })
    expect(reply.ok).toBe(true)
    expect(reply.id).toBe('r-1')
    expect(reply.rows.map((r) => [r.name, r.verdict, r.counted, r.fails])).toEqual([
      ['rule-1', 'match', true, false],
      ['rule-2', 'no-match', true, true],
      ['rule-3', 'match', true, false],
    ])
    expect(reply.overall).toBe('request-changes')
    expect(claude.calls).toHaveLength(3)
  })

  it('sends the runtime the same shared context for every question, the key, model, effort, output cap and deadline', async () => {
    const { handle, claude } = setup(() => answered(MATCH), { timeoutMs: 1234 })
    await handle({ classifications: rules(3), model: 'sonnet', effort: 'high', max_output_tokens: 2048 })
    const contexts = new Set(claude.calls.map((c) => c.context))
    expect(contexts.size).toBe(1)
    expect(new Set(claude.calls.map((c) => c.question)).size).toBe(3)
    for (const call of claude.calls) {
      expect(call).toMatchObject({
        apiKey: API_KEY,
        model: 'sonnet',
        effort: 'high',
        maxOutputTokens: 2048,
        deadlineMs: 1234,
        labels: { repo: 'acme/widgets', pr: 42 },
      })
      expect(call.context).not.toContain('index 1111111..2222222')
    }
  })

  it('runs the first question alone, then the rest in parallel (warm first)', async () => {
    const startedWhileFirstRan: number[] = []
    let firstDone = false
    const { handle, claude } = setup(async (_input, call) => {
      if (call === 1) {
        await Bun.sleep(30)
        firstDone = true
        return answered(MATCH)
      }
      if (!firstDone) startedWhileFirstRan.push(call)
      await Bun.sleep(30)
      return answered(MATCH)
    })
    const reply = await handle({ classifications: rules(5) })
    expect(reply.ok).toBe(true)
    expect(startedWhileFirstRan).toEqual([])
    expect(claude.maxInFlight()).toBe(4)
  })

  it('opens the other sessions while the first is asked, and asks them only once its answer is in', async () => {
    const { handle, claude } = setup(() => answered(MATCH))
    const reply = await handle({ classifications: rules(4) })
    expect(reply.ok).toBe(true)
    const at = (event: string) => claude.events.indexOf(event)
    expect(claude.events.slice(0, 2)).toEqual(['open 1', 'ask 1'])
    for (const n of [2, 3, 4]) {
      expect(at(`open ${n}`)).toBeGreaterThan(at('ask 1'))
      expect(at(`open ${n}`)).toBeLessThan(at('answer 1'))
      expect(at(`ask ${n}`)).toBeGreaterThan(at('answer 1'))
    }
    expect(claude.opens).toHaveLength(4)
    expect(claude.openNow()).toBe(0)
  })

  it('opens sessions ahead only on free places, so the limit holds asked or not', async () => {
    const { handle, claude, limiter } = setup(() => answered(MATCH), { maxSessions: 2 })
    const reply = await handle({ classifications: rules(5) })
    expect(reply.ok).toBe(true)
    expect(claude.maxOpen()).toBe(2)
    // Only the second could start ahead; the others were opened once a place came free.
    const at = (event: string) => claude.events.indexOf(event)
    expect(at('open 2')).toBeLessThan(at('answer 1'))
    expect(at('open 3')).toBeGreaterThan(at('answer 1'))
    expect(limiter.active()).toBe(0)
  })

  it("takes a session started ahead back for another run's first question instead of making it wait", async () => {
    let releaseFirst = (): void => undefined
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve
    })
    const { handle, claude, limiter } = setup(
      async (input) => {
        if (input.runId.startsWith('a#') && input.question.includes('rule-1')) await firstHeld
        return answered(MATCH)
      },
      { maxSessions: 3 },
    )
    const a = handle({ id: 'a', classifications: rules(3) })
    await waitFor(() => claude.opens.length === 3, "run a's other sessions to start ahead")
    expect(limiter.spare()).toBe(2)
    const b = handle({ id: 'b', classifications: rules(1) })
    await waitFor(() => claude.calls.some((call) => call.runId.startsWith('b#')), "run b's question")
    // b's session is the fourth opened; a's newest session started ahead was closed for it, unasked.
    expect(claude.events.indexOf('close 3')).toBeLessThan(claude.events.indexOf('open 4'))
    expect(claude.events).not.toContain('ask 3')
    releaseFirst()
    const [replyA, replyB] = await Promise.all([a, b])
    expect([replyA.ok, replyB.ok]).toEqual([true, true])
    expect(claude.calls.filter((call) => call.runId.startsWith('a#')).map((call) => call.question)).toHaveLength(3)
    expect(claude.maxOpen()).toBe(3)
    expect([limiter.active(), limiter.spare()]).toEqual([0, 0])
  })

  it('starts no session and redacts nothing for a PR over the budget', async () => {
    const redactor = createHeldRedactor()
    const { handle, claude, limiter } = setup(() => answered(MATCH), { budget: 2_000, redactor })
    const diff = `diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +1 @@\n+${'x'.repeat(5_000)}\n`
    const reply = await handle({ diff, classifications: rules(3) })
    expect(reply).toMatchObject({ ok: false, overall: 'no-verdict' })
    expect(reply.error).toContain('over the 2 KB budget')
    // Refused on its unredacted size: the redaction (held here, never released) was never asked for.
    expect(redactor.inputs).toEqual([])
    expect(reply.redaction).toBeUndefined()
    expect(claude.events).toEqual([])
    expect(limiter.active()).toBe(0)
  })

  it('with the all-parallel schedule, starts every question before any has answered', async () => {
    let answeredSoFar = 0
    const startedBeforeAnyAnswer: number[] = []
    const { handle, claude } = setup(
      async (_input, call) => {
        if (answeredSoFar === 0) startedBeforeAnyAnswer.push(call)
        await Bun.sleep(30)
        answeredSoFar += 1
        return answered(MATCH)
      },
      { schedule: 'all-parallel' },
    )
    const reply = await handle({ classifications: rules(5) })
    expect(reply.ok).toBe(true)
    expect(reply.rows.map((r) => r.name)).toEqual(['rule-1', 'rule-2', 'rule-3', 'rule-4', 'rule-5'])
    expect(startedBeforeAnyAnswer).toEqual([1, 2, 3, 4, 5])
    expect(claude.maxInFlight()).toBe(5)
  })

  it('never runs more sessions at once than the limit, across concurrent runs', async () => {
    const { handle, claude } = setup(
      async () => {
        await Bun.sleep(10)
        return answered(MATCH)
      },
      { maxSessions: 3 },
    )
    const replies = await Promise.all([
      handle({ id: 'a', classifications: rules(10) }),
      handle({ id: 'b', classifications: rules(10) }),
      handle({ id: 'c', classifications: rules(4) }),
    ])
    expect(replies.map((r) => r.ok)).toEqual([true, true, true])
    expect(claude.calls).toHaveLength(24)
    expect(claude.maxInFlight()).toBe(3)
    expect(claude.maxOpen()).toBe(3)
  })

  it('with nine of ten classifications timed out, answers with the rows and never approves', async () => {
    const { handle } = setup((_input, call) => (call === 1 ? answered(MATCH) : hang()), { timeoutMs: 50 })
    const reply = await handle({ classifications: rules(10) })
    expect(reply.ok).toBe(true)
    expect(reply.overall).toBe('no-verdict')
    expect(reply.rows).toHaveLength(10)
    expect(reply.rows.filter((r) => r.error?.kind === 'timeout')).toHaveLength(9)
    expect(reply.rows[0]?.verdict).toBe('match')
  })

  it('fails the run as a whole when no classification got an answer', async () => {
    const { handle } = setup(() => failed('runtime', 'API status 500'))
    const reply = await handle({ classifications: rules(2) })
    expect(reply.ok).toBe(false)
    expect(reply.overall).toBe('no-verdict')
    expect(reply.error).toContain('no classification got an answer')
    expect(reply.rows.map((r) => r.error?.detail)).toEqual(['API status 500', 'API status 500'])
  })

  it('lists a malformed answer with its error and does not count it', async () => {
    const { handle } = setup((_input, call) => answered(call === 1 ? MATCH : 'Sure! {"verdict":"match"}'))
    const reply = await handle({ classifications: rules(2) })
    expect(reply.rows[1]).toMatchObject({ verdict: null, counted: false, error: { kind: 'malformed-answer' } })
    expect(reply.overall).toBe('no-verdict')
  })

  it('fails the run when its runtime has no key, without calling the model', async () => {
    const { handle, claude } = setup(() => answered(MATCH), { keys: false })
    const reply = await handle({})
    expect(reply.ok).toBe(false)
    expect(reply.error).toContain('no key for the api-key runtime')
    expect(reply.error).toContain(RUNTIME_KEY_SECRETS['api-key'].path)
    expect(claude.opens).toHaveLength(0)
  })

  it('fails the run with a clear error when the secret store is down', async () => {
    const { handle, secrets } = setup(() => answered(MATCH))
    secrets.simulateFailure(appError('unavailable', 'the secret store did not answer'))
    const reply = await handle({})
    expect(reply.ok).toBe(false)
    expect(reply.error).toContain('secret store')
  })

  it('fails a run whose shared context is over the budget, naming size and budget', async () => {
    const { handle, claude } = setup(() => answered(MATCH), { budget: 2_000 })
    const diff = `diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +1 @@\n+${'x'.repeat(5_000)}\n`
    const reply = await handle({ diff })
    expect(reply.ok).toBe(false)
    expect(reply.error).toContain('over the 2 KB budget')
    expect(claude.calls).toHaveLength(0)
  })

  it.each([
    ['not JSON', '{', 'not valid JSON', ''],
    ['a list', '[]', 'run request', ''],
    ['a missing diff', JSON.stringify({ ...aRunRequest({ id: 'x-1' }), diff: undefined }), 'diff', 'x-1'],
    [
      'a model that is an option',
      JSON.stringify(aRunRequest({ id: 'x-2', model: '--dangerously-skip-permissions' })),
      'model',
      'x-2',
    ],
    [
      'eleven classifications',
      JSON.stringify(aRunRequest({ id: 'x-3', classifications: rules(11) })),
      'classifications',
      'x-3',
    ],
    [
      'the acp runtime without a provider',
      JSON.stringify(aRunRequest({ id: 'x-4', runtime: 'acp', acp: null })),
      'acp',
      'x-4',
    ],
  ])('answers a bad request (%s) with ok false naming the problem', async (_label, text, expected, id) => {
    const { handle, claude } = setup(() => answered(MATCH))
    const reply = await handle(text)
    expect(reply).toMatchObject({ id, ok: false, rows: [], overall: 'no-verdict' })
    expect(reply.error).toContain('bad run request')
    expect(reply.error).toContain(expected)
    expect(claude.calls).toHaveLength(0)
  })

  it('runs a request from an older controller with no runtime or model on claude with haiku', async () => {
    const { handle, claude } = setup(() => answered(MATCH))
    const { runtime: _r, model: _m, effort: _e, acp: _a, ...old } = aRunRequest()
    const reply = await handle(JSON.stringify({ ...old, unknown_field: 1 }))
    expect(reply.ok).toBe(true)
    expect(claude.calls[0]?.model).toBe('haiku')
  })

  it('runs the acp runtime on the provider model with its own key, and counts cost and tokens', async () => {
    const usage = aUsage({ input: 1_000_000, output: 500_000, cache_read: 0, cache_write: 0 })
    const { handle, opencode, claude, metrics } = setup(() => answered(MATCH, usage))
    const reply = await handle({ runtime: 'acp', acp: ACP, classifications: rules(2) })
    expect(reply.ok).toBe(true)
    expect(claude.calls).toHaveLength(0)
    expect(opencode.calls.map((c) => [c.model, c.apiKey])).toEqual([
      [ACP.model, ACP_KEY],
      [ACP.model, ACP_KEY],
    ])
    // 1M input at 0.5 + 0.5M output at 2 = 1.5 USD per classification.
    expect(metrics.costTotal()).toBeCloseTo(3, 10)
    expect(metrics.costs[0]?.labels).toEqual({ repo: 'acme/widgets', pr: 42, model: ACP.model })
    expect(metrics.tokenTotal('input')).toBe(2_000_000)
    expect(metrics.tokenTotal('output')).toBe(1_000_000)
    expect(reply.rows[0]?.usage).toEqual(usage)
  })

  it('runs the subscription runtime on the claude model with the OAuth token, and counts no cost', async () => {
    const usage = aUsage({ input: 1_000_000, output: 500_000, cache_read: 0, cache_write: 0 })
    const { handle, subscription, claude, opencode, metrics } = setup(() => answered(MATCH, usage))
    const reply = await handle({ runtime: 'subscription', model: 'sonnet', acp: ACP, classifications: rules(2) })
    expect(reply.ok).toBe(true)
    expect(claude.calls).toHaveLength(0)
    expect(opencode.calls).toHaveLength(0)
    expect(subscription.calls.map((c) => [c.model, c.apiKey])).toEqual([
      ['sonnet', OAUTH_TOKEN],
      ['sonnet', OAUTH_TOKEN],
    ])
    expect(metrics.costs).toHaveLength(0)
  })

  it('fails a subscription run without its token, naming the secret and never another key', async () => {
    const { handle, subscription, claude, secrets } = setup(() => answered(MATCH))
    await secrets.write(RUNTIME_KEY_SECRETS.subscription.path, 'oauth_token', '')
    const reply = await handle({ runtime: 'subscription' })
    expect(reply.ok).toBe(false)
    expect(reply.error).toBe(
      'no OAuth token for the subscription runtime: secret/swarm/services/review-classifier/claude-subscription has no oauth_token',
    )
    expect(subscription.opens).toHaveLength(0)
    expect(claude.opens).toHaveLength(0)
  })

  it("sends the run's cost toward the budget: claude's own figure, or the priced acp tokens", async () => {
    const priced: ClassifyResult = { ok: true, value: { text: MATCH, usage: aUsage(), costUsd: 0.25 } }
    const claudeRun = setup(() => priced)
    expect((await claudeRun.handle({ classifications: rules(3) })).cost_usd).toBeCloseTo(0.75, 10)
    const usage = aUsage({ input: 1_000_000, output: 500_000, cache_read: 0, cache_write: 0 })
    const acpRun = setup(() => answered(MATCH, usage))
    expect((await acpRun.handle({ runtime: 'acp', acp: ACP, classifications: rules(2) })).cost_usd).toBeCloseTo(3, 10)
  })

  it('counts a classification without a cost figure at its input tokens at the input price, and logs it', async () => {
    const priced: ClassifyResult = { ok: true, value: { text: MATCH, usage: aUsage(), costUsd: 0.25 } }
    const { handle, logger } = setup((_i, call) => (call === 1 ? priced : hang()), { timeoutMs: 30 })
    const reply = await handle({ classifications: rules(2) })
    const [logged] = logger.withMessage(
      'review classifier classification has no cost figure; counted at its input tokens',
    )
    expect(logged?.fields).toMatchObject({ id: 'run-1', repo: 'acme/widgets', pr: 42, runtime: 'api-key' })
    expect(logged?.fields.classification).toBe('rule-2')
    const estimated = Number(logged?.fields.cost_usd)
    // Haiku's $1 per million input tokens, on a prompt of a few thousand tokens.
    expect(estimated).toBeGreaterThan(0)
    expect(estimated).toBeLessThan(0.01)
    expect(reply.cost_usd).toBeCloseTo(0.25 + estimated, 12)
    const keyless = setup(() => priced, { keys: false })
    expect((await keyless.handle({ classifications: rules(1) })).cost_usd).toBe(0)
  })

  it('adds no metrics for a timed-out acp classification or on the api-key runtime', async () => {
    const { handle, metrics } = setup((_i, call) => (call === 1 ? answered(MATCH, aUsage()) : hang()), {
      timeoutMs: 30,
    })
    await handle({ classifications: rules(2) })
    expect(metrics.costs).toHaveLength(0)
    const acp = setup((_i, call) => (call === 1 ? answered(MATCH, null) : hang()), { timeoutMs: 30 })
    await acp.handle({ runtime: 'acp', acp: ACP, classifications: rules(2) })
    expect(acp.metrics.costs).toHaveLength(0)
    expect(acp.metrics.tokens).toHaveLength(0)
  })

  it('on shutdown stops the sessions in hand and still answers their runs', async () => {
    const { handle, classifier, limiter, claude } = setup(() => hang(), { maxSessions: 1, timeoutMs: 60_000 })
    const pending = handle({ id: 'r-abort', classifications: rules(3) })
    await waitFor(() => claude.calls.length === 1, 'the first session to start')
    classifier.abortAll()
    const reply = await pending
    expect(reply.ok).toBe(false)
    expect(reply.rows.map((r) => r.error?.detail)).toEqual([
      'cancelled',
      expect.stringContaining('shutting down'),
      expect.stringContaining('shutting down'),
    ])
    expect(limiter.active()).toBe(0)
    expect(claude.endedRuns).toEqual([expect.stringMatching(/^r-abort#\d+$/)])
  })

  it('on shutdown also ends the sessions started ahead, and every one is closed', async () => {
    const { handle, classifier, limiter, claude } = setup(() => hang(), { timeoutMs: 60_000 })
    const pending = handle({ id: 'r-abort-ahead', classifications: rules(4) })
    await waitFor(() => claude.opens.length === 4, 'the sessions to start ahead')
    classifier.abortAll()
    const reply = await pending
    expect(reply.ok).toBe(false)
    expect(reply.rows.map((r) => r.error?.kind)).toEqual(['runtime', 'runtime', 'runtime', 'runtime'])
    expect(claude.openNow()).toBe(0)
    expect([limiter.active(), limiter.spare()]).toEqual([0, 0])
  })

  it("passes the run's id with every classification and ends the run once, after its last classification", async () => {
    let ended: string[] = []
    const { handle, opencode, claude } = setup(async (_input, call) => {
      await Bun.sleep(call * 5)
      // Read at each answer: the run must not have ended while a classification still ran.
      ended = [...opencode.endedRuns]
      return answered(MATCH)
    })
    const reply = await handle({ id: 'r-ends', runtime: 'acp', acp: ACP, classifications: rules(4) })
    expect(reply.ok).toBe(true)
    expect(new Set(opencode.calls.map((c) => c.runId)).size).toBe(1)
    expect(opencode.calls[0]?.runId).toMatch(/^r-ends#\d+$/)
    expect(opencode.endedRuns).toEqual([opencode.calls[0]?.runId ?? 'no call'])
    expect(ended).toEqual([])
    expect(opencode.endedRuns).toEqual([expect.stringMatching(/^r-ends#\d+$/)])
    expect(claude.endedRuns).toEqual([])
  })

  it('ends the run also when every classification failed or timed out', async () => {
    const failing = setup(() => failed('runtime', 'API status 500'))
    expect((await failing.handle({ id: 'r-failed', classifications: rules(2) })).ok).toBe(false)
    expect(failing.claude.endedRuns).toEqual([expect.stringMatching(/^r-failed#\d+$/)])
    const timing = setup(() => hang(), { timeoutMs: 30 })
    expect((await timing.handle({ id: 'r-timeout', classifications: rules(2) })).ok).toBe(false)
    expect(timing.claude.endedRuns).toEqual([expect.stringMatching(/^r-timeout#\d+$/)])
  })

  it('ends no run that never reached its runtime', async () => {
    const { handle, claude } = setup(() => answered(MATCH), { keys: false })
    await handle({ id: 'r-nokey' })
    await handle('{')
    expect(claude.endedRuns).toEqual([])
  })

  it('gives two requests that share an id separate runtime runs', async () => {
    const { handle, claude } = setup(() => answered(MATCH))
    await Promise.all([handle({ id: 'same' }), handle({ id: 'same' })])
    const keys = claude.calls.map((c) => c.runId)
    expect(new Set(keys).size).toBe(2)
    expect([...claude.endedRuns].sort()).toEqual([...keys].sort())
  })

  it('tells the run taken, then each question as it starts and each row as it ends, warm first included', async () => {
    const { classifier } = setup((input) => answered(input.question.includes('rule-2') ? NO_MATCH : MATCH))
    const events: string[] = []
    const reply = await classifier.handle(
      JSON.stringify(aRunRequest({ id: 'r-told', classifications: rules(3) })),
      (event) => {
        if (event.kind === 'taken') events.push(`taken ${event.id} of ${event.total}`)
        else if (event.kind === 'row') events.push(`row ${event.row.name} ${event.row.verdict} of ${event.total}`)
        else events.push(`start ${event.name}`)
      },
    )
    expect(reply.ok).toBe(true)
    expect(events.shift()).toBe('taken r-told of 3')
    // The first question ends before the others start; the order among the rest is theirs.
    expect(events.slice(0, 2)).toEqual(['start rule-1', 'row rule-1 match of 3'])
    expect(events.slice(2).sort()).toEqual([
      'row rule-2 no-match of 3',
      'row rule-3 match of 3',
      'start rule-2',
      'start rule-3',
    ])
  })

  it('tells a failed question as a row with its error, and runs on when a listener throws', async () => {
    const { classifier } = setup(() => failed('runtime', 'exit 1'))
    const rows: string[] = []
    const reply = await classifier.handle(JSON.stringify(aRunRequest({ classifications: rules(2) })), (event) => {
      if (event.kind === 'row') rows.push(`${event.row.name} ${event.row.error?.kind}`)
      throw new Error('a listener bug')
    })
    expect(reply.ok).toBe(false)
    expect(reply.rows).toHaveLength(2)
    expect(rows.sort()).toEqual(['rule-1 runtime', 'rule-2 runtime'])
  })

  it('logs one line per run with the result and no diff, commit text or key', async () => {
    const { handle, logger } = setup(() => answered(MATCH))
    await handle({ commits: [{ message: 'SECRET-COMMIT-TEXT' }], diff: 'diff --git a/x b/x\n+DIFF-CONTENT-MARKER\n' })
    await handle('{')
    const lines = logger.entries.map((e) => JSON.stringify(e))
    expect(logger.withMessage('review classifier run answered')).toHaveLength(1)
    expect(logger.withMessage('review classifier run failed')).toHaveLength(1)
    for (const line of lines) {
      expect(line).not.toContain('SECRET-COMMIT-TEXT')
      expect(line).not.toContain('DIFF-CONTENT-MARKER')
      expect(line).not.toContain(API_KEY)
    }
    expect(logger.withMessage('review classifier run answered')[0]?.fields).toMatchObject({
      overall: 'approve',
      repo: 'acme/widgets',
      pr: 42,
    })
  })
})

describe('createSessionLimiter', () => {
  it('lets a waiter leave the line when its signal aborts', async () => {
    const limiter = createSessionLimiter(1)
    const first = await limiter.acquire()
    const abort = new AbortController()
    const second = limiter.acquire(abort.signal)
    expect(limiter.waiting()).toBe(1)
    abort.abort(new Error('stop'))
    await expect(second).rejects.toThrow('stop')
    expect(limiter.waiting()).toBe(0)
    first.release()
    first.release()
    expect(limiter.active()).toBe(0)
  })

  it('serves waiters first come, first served', async () => {
    const limiter = createSessionLimiter(1)
    const held = await limiter.acquire()
    const order: string[] = []
    const waiters = ['a', 'b', 'c'].map((name) =>
      limiter.acquire().then((place) => {
        order.push(name)
        place.release()
      }),
    )
    held.release()
    await Promise.all(waiters)
    expect(order).toEqual(['a', 'b', 'c'])
    expect(limiter.active()).toBe(0)
  })

  it('gives a spare place only when one is free and nobody waits', async () => {
    const limiter = createSessionLimiter(2)
    const firm = await limiter.acquire()
    const spare = limiter.trySpare(() => undefined)
    expect(spare).not.toBeNull()
    expect(limiter.trySpare(() => undefined)).toBeNull()
    expect([limiter.active(), limiter.spare()]).toEqual([2, 1])
    spare?.release()
    firm.release()
    expect([limiter.active(), limiter.spare()]).toEqual([0, 0])
  })

  it('takes the newest spare place back for an acquirer instead of making it wait, and tells its holder', async () => {
    const limiter = createSessionLimiter(3)
    const firm = await limiter.acquire()
    const told: string[] = []
    const older = limiter.trySpare(() => told.push('older'))
    const newer = limiter.trySpare(() => told.push('newer'))
    const taker = await limiter.acquire()
    expect(told).toEqual(['newer'])
    expect(newer?.takenBack()).toBe(true)
    expect(newer?.keep()).toBe(false)
    expect(older?.keep()).toBe(true)
    // A kept place is a place like any other: never taken back.
    const waiting = limiter.acquire()
    expect(limiter.waiting()).toBe(1)
    expect(told).toEqual(['newer'])
    newer?.release()
    expect(limiter.waiting()).toBe(1)
    taker.release()
    ;(await waiting).release()
    older?.release()
    firm.release()
    expect([limiter.active(), limiter.spare(), limiter.waiting()]).toEqual([0, 0, 0])
  })

  it('refuses a limit below one', () => {
    expect(() => createSessionLimiter(0)).toThrow(RangeError)
  })
})
