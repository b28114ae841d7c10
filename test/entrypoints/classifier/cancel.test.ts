/**
 * The classifier's side of a cancel (issue 28, item 3): the run with that
 * id stops its sessions at once and answers as cancelled; any other id is
 * ignored.
 */
import { describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../../adapters/memory/clock.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../../../adapters/memory/metrics.ts'
import { answered, createScriptedModelRuntime, hang } from '../../../adapters/memory/model-runtime.ts'
import { createInlineRedactor } from '../../../adapters/memory/redactor.ts'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { RUNTIME_KEY_SECRETS } from '../../../core/settings/service-account.ts'
import { CANCELLED_REASON, createClassifier } from '../../../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../../../entrypoints/classifier/session-limiter.ts'
import { aClassification, aRunRequest } from '../../support/builders.ts'
import { waitFor } from '../../support/waits.ts'

const MATCH = '{"verdict":"match","certainty":95,"reason":"It holds."}'

function aClassifier(script: Parameters<typeof createScriptedModelRuntime>[0]) {
  const runtime = createScriptedModelRuntime(script)
  const classifier = createClassifier({
    runtimes: { 'api-key': runtime, acp: runtime, subscription: runtime },
    secrets: createMemorySecretStore({ [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: 'sk-ant-cancel-unit' } }),
    metrics: createRecordingMetrics(),
    logger: createRecordingLogger(),
    clock: createFixedClock(),
    limiter: createSessionLimiter(8),
    classificationTimeoutMs: 600_000,
    contextBudgetBytes: 600_000,
    redactor: createInlineRedactor(),
  })
  return { runtime, classifier }
}

const TWO_RULES = [aClassification({ name: 'a' }), aClassification({ name: 'b' })]

describe('Classifier.cancel', () => {
  it('stops the run with that id at once: its sessions close, its run ends, and it answers as cancelled', async () => {
    const { runtime, classifier } = aClassifier(() => hang())
    const replying = classifier.handle(JSON.stringify(aRunRequest({ id: 'doomed', classifications: TWO_RULES })))
    await waitFor(() => runtime.calls.length === 1, 'the first question to be asked')
    classifier.cancel('doomed')
    const reply = await replying
    expect(reply).toMatchObject({ id: 'doomed', ok: false, error: CANCELLED_REASON, overall: 'no-verdict' })
    expect(reply.rows.map((row) => row.error?.kind)).toEqual(['runtime', 'runtime'])
    expect(runtime.openNow()).toBe(0)
    expect(runtime.endedRuns).toHaveLength(1)
  })

  it('ignores an id it does not hold, and a run that ended before its cancel', async () => {
    let release: () => void = () => undefined
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    const { runtime, classifier } = aClassifier(async () => {
      await released
      return answered(MATCH)
    })
    const replying = classifier.handle(JSON.stringify(aRunRequest({ id: 'kept', classifications: TWO_RULES })))
    await waitFor(() => runtime.calls.length === 1, 'the first question to be asked')
    classifier.cancel('another-run')
    release()
    expect(await replying).toMatchObject({ id: 'kept', ok: true, overall: 'approve' })
    classifier.cancel('kept')
    expect(runtime.endedRuns).toHaveLength(1)
  })
})
