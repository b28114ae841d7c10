/**
 * `GET /api/review-classifier/rules/health` in the controller app, on the
 * memory forge and KV: the file's rules with their counts, a removed rule,
 * and the refusals the `rules` route gives, plus the queue's 503.
 */
import { describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../../../adapters/memory/clock.ts'
import { createMemoryForge } from '../../../../adapters/memory/forge.ts'
import { createMemoryKv } from '../../../../adapters/memory/kv.ts'
import { appError } from '../../../../core/base/errors.ts'
import { RULES_JSON_PATH, RULES_YML_PATH } from '../../../../core/repo-files/rules-file.ts'
import { rulesHealthRoutes } from '../../../../entrypoints/controller/http/routes/rules-health.ts'
import { createRuleHealthStore } from '../../../../entrypoints/controller/usecases/review/rule-health.ts'
import type { QueueLink } from '../../../../ports/queue.ts'
import { aRow, aRunRecord, aSeedRepo, TWO_RULES_YAML } from '../../../support/builders.ts'
import { aRequest, aRouteApp, expectProblem } from './http-support.ts'

function aWorld(options: { forge?: boolean; connected?: boolean } = {}) {
  const forge = createMemoryForge({
    repos: [
      aSeedRepo({ files: { [RULES_YML_PATH]: TWO_RULES_YAML } }),
      aSeedRepo({ name: 'plain', files: { 'README.md': 'none' } }),
      aSeedRepo({ name: 'both', files: { [RULES_YML_PATH]: TWO_RULES_YAML, [RULES_JSON_PATH]: '{}' } }),
    ],
  })
  const buckets = createMemoryKv()
  const clock = createFixedClock(Date.parse('2026-12-03T12:00:00Z'))
  const health = createRuleHealthStore({ buckets, clock, logger: { debug() {}, info() {}, warn() {}, error() {} } })
  const queue: QueueLink = { connected: () => options.connected ?? true }
  const { app } = aRouteApp((logger) => [
    rulesHealthRoutes({ forge: options.forge === false ? null : forge, queue, health, clock, logger }),
  ])
  const get = (query: string) => app.handle(aRequest(`/api/review-classifier/rules/health${query}`))
  return { app, buckets, health, clock, get }
}

describe('GET /api/review-classifier/rules/health', () => {
  it("answers the file's rules in order with their counts and flags, then a rule no longer in the file", async () => {
    const { health, get } = aWorld()
    await health.recordRun(
      aRunRecord({
        id: 'r1',
        rows: [aRow({ name: 'no-ads', counted: true, fails: true }), aRow({ name: 'gone' })],
      }),
    )
    await health.recordWaiver({ repo: 'acme/widgets', rule: 'no-ads' })
    const response = await get('?repo=acme/widgets')
    expect(response.status).toBe(200)
    const body = (await response.json()) as { rules: Array<Record<string, unknown>> } & Record<string, unknown>
    expect(body).toMatchObject({ repo: 'acme/widgets', days: 30, since: '2026-11-04', until: '2026-12-03' })
    expect(body.rules.map((rule) => [rule.name, rule.asked, rule.failed, rule.waived, rule.removed])).toEqual([
      ['datetime', 0, 0, 0, undefined],
      ['no-ads', 1, 1, 1, undefined],
      ['gone', 1, 0, 0, true],
    ])
    expect(body.rules[1]).toMatchObject({
      flags: [],
      failing_runs: ['r1'],
      threshold: 90,
      polarity: 'negative',
      by_day: [{ day: '2026-12-03', asked: 1, failed: 1, waived: 1 }],
    })
  })

  it('refuses as the rules route does', async () => {
    const { get, buckets } = aWorld()
    await expectProblem(await get(''), 400, 'the query needs repo=owner/name')
    await expectProblem(await get('?repo=acme'), 400)
    await expectProblem(await get('?repo=acme/nope'), 404)
    await expectProblem(await get('?repo=acme/plain'), 404)
    await expectProblem(await get('?repo=acme/both'), 422)
    await expectProblem(await aWorld({ forge: false }).get('?repo=acme/widgets'), 503, /FORGE_URL/)
    await expectProblem(await aWorld({ connected: false }).get('?repo=acme/widgets'), 503, /queue/)
    buckets.simulateFailure(appError('unavailable', 'down'))
    await expectProblem(await get('?repo=acme/widgets'), 503, /rule health can't be read/)
  })
})
