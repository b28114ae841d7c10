/**
 * `ACP_BASE_URLS` in the classifier service: a run naming a base URL off the
 * list reads no key, opens no session and answers no verdict saying why; one
 * on it (after normalising) runs as before, and so does any without a list.
 */
import { describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../../adapters/memory/clock.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../../../adapters/memory/metrics.ts'
import { answered, createScriptedModelRuntime } from '../../../adapters/memory/model-runtime.ts'
import { createInlineRedactor } from '../../../adapters/memory/redactor.ts'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { RUNTIME_KEY_SECRETS } from '../../../core/settings/service-account.ts'
import type { AcpProvider, RunReply } from '../../../core/wire/types.ts'
import { createClassifier } from '../../../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../../../entrypoints/classifier/session-limiter.ts'
import type { SecretStore } from '../../../ports/secret-store.ts'
import { aRunRequest } from '../../support/builders.ts'

const MATCH = '{"verdict":"match","certainty":95,"reason":"It holds."}'
const LISTED = 'https://llm.example/v1'

function provider(baseUrl: string): AcpProvider {
  return { base_url: baseUrl, model: 'Qwen/Qwen3-35B', prices: { input: 0.5, output: 2 } }
}

function setup(acpBaseUrls: string[] | null) {
  const opencode = createScriptedModelRuntime(() => answered(MATCH))
  const claude = createScriptedModelRuntime(() => answered(MATCH))
  const store = createMemorySecretStore({
    [RUNTIME_KEY_SECRETS.acp.path]: { api_key: 'acp-key-3b1f' },
    [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: 'sk-ant-3b1f' },
  })
  const reads: string[] = []
  const secrets: SecretStore = {
    read(path, field) {
      reads.push(path)
      return store.read(path, field)
    },
    write: (path, field, value) => store.write(path, field, value),
  }
  const classifier = createClassifier({
    runtimes: { 'api-key': claude, acp: opencode, subscription: claude },
    secrets,
    metrics: createRecordingMetrics(),
    logger: createRecordingLogger(),
    clock: createFixedClock(),
    limiter: createSessionLimiter(8),
    classificationTimeoutMs: 2_000,
    contextBudgetBytes: 600_000,
    redactor: createInlineRedactor(),
    acpBaseUrls,
  })
  const acpRun = (baseUrl: string): Promise<RunReply> =>
    classifier.handle(JSON.stringify(aRunRequest({ id: 'acp-1', runtime: 'acp', acp: provider(baseUrl) })))
  return { classifier, opencode, claude, reads, acpRun }
}

describe('ACP_BASE_URLS in the classifier service', () => {
  it('fails a run naming a base URL off the list: no key read, no session, no verdict, saying why', async () => {
    const { acpRun, opencode, reads } = setup([LISTED])
    const reply = await acpRun('https://attacker.example/v1')
    expect(reply).toEqual({
      id: 'acp-1',
      ok: false,
      error:
        'the run\'s acp.base_url "https://attacker.example/v1" is not in the classifier\'s ACP_BASE_URLS, so no provider was called',
      rows: [],
      overall: 'no-verdict',
      // Every reply carries its cost toward the budget; a run that called no provider cost nothing.
      cost_usd: 0,
    })
    expect(reads).toEqual([])
    expect(opencode.opens).toEqual([])
  })

  it('runs one on the list, compared after normalising', async () => {
    const { acpRun, opencode, reads } = setup([LISTED])
    const reply = await acpRun('https://LLM.example:443/v1/')
    expect(reply).toMatchObject({ ok: true, overall: 'approve' })
    expect(reads).toEqual([RUNTIME_KEY_SECRETS.acp.path])
    expect(opencode.opens).toHaveLength(1)
  })

  it('allows any base URL without a list, and never checks the API key runtime', async () => {
    expect((await setup(null).acpRun('https://anywhere.example/v1')).ok).toBe(true)
    const { classifier, claude } = setup([LISTED])
    const reply = await classifier.handle(
      JSON.stringify(aRunRequest({ runtime: 'api-key', acp: provider('https://elsewhere.example') })),
    )
    expect(reply.ok).toBe(true)
    expect(claude.opens).toHaveLength(1)
  })
})
