/**
 * The settings' repo_runtimes on a try-out: a repo sent to `none` gets a 403
 * problem+json saying so, before any forge read and with no run sent; any
 * other repo's runs (a repeat's and a replay's too) name the runtime the
 * policy resolved for it.
 */
import { describe, expect, it } from 'bun:test'
import { noRuntimeReason } from '../../../../core/settings/repo-runtimes.ts'
import { allClear, aTryOutBody, createTryOutWorld, postTryOut, startTryOut } from '../try-out-world.ts'
import { expectProblem } from './http-support.ts'

const ACP = { base_url: 'https://llm.example/v1', model: 'qwen3', prices: { input: 0, output: 0 } }

describe('POST /api/review-classifier/try-out under repo_runtimes', () => {
  it.each([
    ['a one-PR try-out', {}],
    ['a repeat', { repeat: 3 }],
    ['a replay', { pr: undefined, replay: 2 }],
  ])('answers 403 for %s on a repo sent to none, with no forge read and no run', async (_name, body) => {
    const world = createTryOutWorld({ settings: { repo_runtimes: { 'acme/widgets': 'none', '*/*': 'api-key' } } })
    await world.serve(allClear)
    const response = await world.app.handle(postTryOut(aTryOutBody(body)))
    await expectProblem(response, 403, noRuntimeReason('acme/widgets', 'acme/widgets'))
    expect(world.forgeCalls).toEqual([])
    await world.tryOuts.idle()
    expect(world.requests).toEqual([])
    expect(world.runs.records).toEqual([])
  })

  it('sends each run of a try-out on the runtime the policy resolved for the repo', async () => {
    const world = createTryOutWorld({
      settings: { runtime: 'api-key', acp: ACP, repo_runtimes: { 'acme/*': 'subscription', 'globex/*': 'acp' } },
    })
    await world.serve(allClear)
    await startTryOut(world, aTryOutBody({ repeat: 2 }))
    await startTryOut(world, aTryOutBody({ pr: undefined, replay: 1 }))
    await world.tryOuts.idle()
    expect(world.requests.map((request) => request.runtime)).toEqual(['subscription', 'subscription', 'subscription'])
  })
})
