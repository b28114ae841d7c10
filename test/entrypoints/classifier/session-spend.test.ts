/**
 * The classifier writes each session's cost to the daily budget's ledger
 * itself (docs/behaviour.md, "Daily budget"): what the runtime reported, or
 * for a session with no figure its input tokens at the input price, marked
 * estimated; whether or not the controller still waits for the run; and the
 * reply says how much it recorded, so the controller's settle adds nothing
 * twice. The in-memory model runtime answers, over the memory queue and KV.
 */
import { describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../../adapters/memory/clock.ts'
import { createMemoryKv } from '../../../adapters/memory/kv.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../../../adapters/memory/metrics.ts'
import { createScriptedModelRuntime, hang, type ModelScript } from '../../../adapters/memory/model-runtime.ts'
import { createMemoryQueue } from '../../../adapters/memory/queue.ts'
import { createInlineRedactor } from '../../../adapters/memory/redactor.ts'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { ok } from '../../../core/base/result.ts'
import { RUNTIME_KEY_SECRETS } from '../../../core/settings/service-account.ts'
import type { Classification } from '../../../core/wire/types.ts'
import { CANCELLED_REASON, createClassifier } from '../../../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../../../entrypoints/classifier/session-limiter.ts'
import { sendBudgetedRun } from '../../../entrypoints/controller/usecases/run/budgeted-run.ts'
import { createSpendLedger } from '../../../entrypoints/controller/usecases/settings/spend-ledger.ts'
import { aClassification, aRunRequest, aUsage } from '../../support/builders.ts'
import { waitFor } from '../../support/waits.ts'
import { createTestSettingsStore, gate } from '../controller/review-world.ts'

const MATCH = '{"verdict":"match","certainty":95,"reason":"It holds."}'

function rules(count: number): Classification[] {
  return Array.from({ length: count }, (_, i) => aClassification({ name: `rule-${i + 1}` }))
}

/** A classifier on the memory queue and KV, and the controller's ledger over the same KV. */
async function aWorld(script: ModelScript, timeoutMs = 2_000) {
  const buckets = createMemoryKv()
  const clock = createFixedClock(Date.parse('2026-12-01T12:00:00.000Z'))
  const logger = createRecordingLogger()
  const claude = createScriptedModelRuntime(script)
  const classifier = createClassifier({
    runtimes: { 'api-key': claude, acp: claude, subscription: claude },
    secrets: createMemorySecretStore({ [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: 'sk-ant-spend-test' } }),
    metrics: createRecordingMetrics(),
    logger,
    clock,
    limiter: createSessionLimiter(8),
    classificationTimeoutMs: timeoutMs,
    contextBudgetBytes: 600_000,
    redactor: createInlineRedactor(),
    buckets,
  })
  const queue = createMemoryQueue()
  // Runs the classifier replied to, whether or not anyone still waited for the reply.
  const replied = { count: 0 }
  await queue.serve(async (text, tell) => {
    const reply = await classifier.handle(text, tell)
    replied.count += 1
    return reply
  })
  const settings = createTestSettingsStore({ budget: { daily_usd: 100 } })
  const ledger = createSpendLedger({ buckets, settings, clock, logger, reservationTtlMs: 60_000 })
  return { classifier, claude, queue, ledger, logger, replied }
}

const priced = (usd: number): ReturnType<ModelScript> => ok({ text: MATCH, usage: aUsage(), costUsd: usd })

describe('the classifier’s own ledger writes', () => {
  it('records every session’s figure and a timed-out session’s estimate, and the settle counts nothing twice', async () => {
    const { queue, ledger } = await aWorld((_input, call) => (call === 3 ? hang() : priced(0.25)), 50)
    const request = aRunRequest({ id: 'run-a', classifications: rules(3) })
    const sent = await sendBudgetedRun({ queue, spend: ledger }, request, { runTimeoutMs: 5_000, replyMarginMs: 0 })
    if (sent.kind !== 'sent' || !sent.reply.ok) throw new Error('the run was not answered')
    const reply = JSON.parse(sent.reply.value)
    const view = await ledger.view()
    // Two quarters as reported, and the third session at its input tokens, marked estimated.
    expect(view.estimated_usd).toBeGreaterThan(0)
    expect(view.spent_usd).toBeCloseTo(0.5 + view.estimated_usd, 12)
    expect(reply.cost_usd).toBeCloseTo(view.spent_usd, 12)
    expect(reply.cost_recorded_usd).toBeCloseTo(view.spent_usd, 12)
    expect(view.reserved_usd).toBe(0)
    expect(view.by_repo).toEqual({ 'acme/widgets': view.spent_usd })
  })

  it('records what a run costs after the controller stopped waiting for it', async () => {
    const late = gate()
    const { queue, ledger, claude, replied } = await aWorld(async () => {
      await late.wait
      return priced(0.4)
    })
    const stop = new AbortController()
    const request = aRunRequest({ id: 'run-late', classifications: rules(1) })
    const waiting = sendBudgetedRun({ queue, spend: ledger }, request, {
      runTimeoutMs: 5_000,
      replyMarginMs: 0,
      signal: stop.signal,
    })
    await waitFor(() => claude.calls.length === 1, 'the session to be asked')
    stop.abort(new Error('the controller stopped waiting'))
    const sent = await waiting
    expect(sent.kind === 'sent' && !sent.reply.ok).toBe(true)
    // Unsettled, the run's reservation still holds while its classifier spends.
    expect((await ledger.view()).reserved_usd).toBeGreaterThan(0)
    late.open()
    // The classifier replies once the ledger has every session's cost.
    await waitFor(() => replied.count === 1, 'the late reply')
    const view = await ledger.view()
    expect(view.spent_usd).toBe(0.4)
    expect(view.estimated_usd).toBe(0)
  })

  it('records a cancelled run’s sessions before its cancelled reply, which keeps its cost fields', async () => {
    const { classifier, claude, ledger } = await aWorld((_input, call) => (call === 1 ? priced(0.25) : hang()), 600_000)
    const request = aRunRequest({ id: 'run-cancelled', classifications: rules(2) })
    // Reserved as the controller does, so the recorded costs count against it.
    const budget = await ledger.reserve(request)
    expect(budget.kind).toBe('granted')
    const replying = classifier.handle(JSON.stringify(request))
    await waitFor(() => claude.calls.length === 2, 'both sessions to be asked')
    classifier.cancel('run-cancelled')
    const reply = await replying
    expect(reply).toMatchObject({ id: 'run-cancelled', ok: false, error: CANCELLED_REASON })
    const view = await ledger.view()
    // The answered session's figure, and the cancelled one at its input tokens, marked estimated.
    expect(view.estimated_usd).toBeGreaterThan(0)
    expect(view.spent_usd).toBeCloseTo(0.25 + view.estimated_usd, 12)
    expect(reply.cost_usd).toBeCloseTo(view.spent_usd, 12)
    expect(reply.cost_recorded_usd).toBeCloseTo(view.spent_usd, 12)
  })
})
