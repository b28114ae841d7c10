import { describe, expect, it } from 'bun:test'
import { answered, createScriptedModelRuntime, failed, hang } from '../../../adapters/memory/model-runtime.ts'
import { modelRuntimeContract, type ProviderBehaviour } from '../../ports/model-runtime.contract.ts'
import { aClassifyInput, aUsage } from '../../support/builders.ts'
import { classifyOnce } from '../../support/classify-once.ts'

modelRuntimeContract(
  'scripted',
  async () => {
    let behaviour: ProviderBehaviour = { kind: 'hang' }
    const runtime = createScriptedModelRuntime(() => {
      if (behaviour.kind === 'answer') return answered(behaviour.text)
      if (behaviour.kind === 'hold') {
        const { text, until } = behaviour
        return until.then(() => answered(text))
      }
      if (behaviour.kind === 'refuse-key') return failed('runtime', 'API error 401: invalid x-api-key')
      return hang()
    })
    return {
      runtime,
      behave: async (next) => {
        behaviour = next
      },
      providerCalls: () => runtime.calls.length,
      cleanup: async () => undefined,
    }
  },
  { deadlineMs: 100 },
)

describe('createScriptedModelRuntime', () => {
  it('records every call and answers by call number', async () => {
    const runtime = createScriptedModelRuntime((input, call) => answered(`${call}:${input.question}`, aUsage()))
    const results = await Promise.all(['a', 'b'].map((question) => classifyOnce(runtime, aClassifyInput({ question }))))
    expect(results.map((r) => (r.ok ? r.value.text : r.error.detail))).toEqual(['1:a', '2:b'])
    expect(results[0]?.ok ? results[0].value.usage : null).toEqual(aUsage())
    expect(runtime.calls.map((c) => c.question)).toEqual(['a', 'b'])
  })

  it('records every ended run, in order', async () => {
    const runtime = createScriptedModelRuntime(() => answered('ok'))
    await runtime.endRun('r-1')
    await runtime.endRun('r-2')
    expect(runtime.endedRuns).toEqual(['r-1', 'r-2'])
  })

  it('tracks how many sessions ran at once', async () => {
    let release = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const runtime = createScriptedModelRuntime(async () => {
      await gate
      return answered('ok')
    })
    const pending = [1, 2, 3].map(() => classifyOnce(runtime, aClassifyInput()))
    expect(runtime.inFlight()).toBe(3)
    release()
    await Promise.all(pending)
    expect([runtime.inFlight(), runtime.maxInFlight()]).toEqual([0, 3])
  })

  it('turns a script that throws into a runtime failure instead of rejecting', async () => {
    const runtime = createScriptedModelRuntime(() => {
      throw new Error('spawn failed')
    })
    expect(await classifyOnce(runtime, aClassifyInput())).toEqual(failed('runtime', 'spawn failed'))
  })

  it('fails at once for a signal that is already aborted', async () => {
    const runtime = createScriptedModelRuntime(() => hang())
    expect(await classifyOnce(runtime, aClassifyInput({ signal: AbortSignal.abort(), deadlineMs: 60_000 }))).toEqual(
      failed('runtime', 'cancelled'),
    )
  })
})
