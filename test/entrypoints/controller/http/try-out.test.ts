import { describe, expect, it } from 'bun:test'
import { createSequenceIds } from '../../../../adapters/memory/ids.ts'
import { createMemoryQueue } from '../../../../adapters/memory/queue.ts'
import { appError } from '../../../../core/base/errors.ts'
import type { RunRecord } from '../../../../core/run/run-record.ts'
import type { RunRequest } from '../../../../core/wire/types.ts'
import { PROBLEM_CONTENT_TYPE } from '../../../../entrypoints/controller/http/problem.ts'
import { createReviewPipeline } from '../../../../entrypoints/controller/usecases/review/review-pipeline.ts'
import { createTryOuts, TRY_OUT_KEEP_MS } from '../../../../entrypoints/controller/usecases/try-out/try-outs.ts'
import { aClassification, aSeedPull, aSeedRepo } from '../../../support/builders.ts'
import { answeredRow, gate, REPO, until } from '../review-world.ts'
import {
  allClear,
  aTryOutBody,
  createTryOutWorld,
  getTryOut,
  postTryOut,
  readTryOut,
  startTryOut,
  type TryOutWorld,
} from '../try-out-world.ts'
import { aRequest, expectProblem } from './http-support.ts'

const HEAD = (await createTryOutWorld().forge.getPullRequest(REPO, 42)).headSha

function onlyRecord(world: TryOutWorld): RunRecord {
  expect(world.runs.records).toHaveLength(1)
  const [record] = world.runs.records
  if (record === undefined) throw new Error('no record')
  return record
}

function onlyRequest(world: TryOutWorld): RunRequest {
  expect(world.requests).toHaveLength(1)
  const [request] = world.requests
  if (request === undefined) throw new Error('no run request')
  return request
}

/** Nothing the try-out did wrote to the forge: no review, no commit, and only the three reads were called. */
function expectForgeUntouched(world: TryOutWorld): void {
  expect(world.forge.reviews(REPO, 42)).toEqual([])
  expect(world.forge.pushedCommits(REPO)).toEqual([])
  expect(new Set(world.forgeCalls)).toEqual(new Set(['getPullRequest', 'listPullCommits', 'getPullDiff']))
}

async function finishedTryOut(world: TryOutWorld, body: unknown = aTryOutBody()) {
  const id = await startTryOut(world, body)
  await world.tryOuts.idle()
  return { id, result: await readTryOut(world, id) }
}

describe('POST /api/review-classifier/try-out: accepted', () => {
  it('answers 202 with an id, runs the posted classifications on the PR and shows the result', async () => {
    const world = createTryOutWorld({ settings: { model: 'sonnet', effort: 'high' } })
    await world.serve((request) => {
      world.clock.advance(30_000)
      return {
        id: request.id,
        ok: true,
        rows: [
          answeredRow(request, 'datetime'),
          answeredRow(request, 'no-ads', { verdict: 'no-match', certainty: 97 }),
        ],
        overall: 'approve',
      }
    })
    const startedMs = world.clock.nowMs()
    const response = await world.app.handle(postTryOut(aTryOutBody(), { 'remote-user': 'ann' }))
    expect(response.status).toBe(202)
    expect(await response.json()).toEqual({ id: 'try-1' })
    // The settings in force at the POST are the ones the run gets.
    world.settings.set({ model: 'opus', effort: null })
    await world.tryOuts.idle()

    const sent = onlyRequest(world)
    expect(sent).toEqual({
      id: 'try-1',
      trigger: 'try-out',
      repo: 'acme/widgets',
      pr: 42,
      title: 'Add timezone to timestamps',
      commits: [{ message: 'Add timezone to timestamps' }],
      diff: aSeedPull().diff ?? '',
      classifications: [
        aClassification(),
        aClassification({
          name: 'no-ads',
          description: 'A commit advertises an AI model.',
          polarity: 'negative',
          threshold: 90,
        }),
      ],
      runtime: 'api-key',
      model: 'sonnet',
      effort: 'high',
      acp: null,
      max_output_tokens: 1024,
    })

    const result = await readTryOut(world, 'try-1')
    expect(result).toMatchObject({
      id: 'try-1',
      status: 'done',
      repo: 'acme/widgets',
      pr: 42,
      head_sha: HEAD,
      overall: 'approve',
      detail: null,
    })
    // A try-out shows no token count, and recomputes counted/fails itself.
    expect(JSON.stringify(result)).not.toContain('usage')
    expect(result.rows).toEqual([
      expect.objectContaining({
        name: 'datetime',
        verdict: 'match',
        certainty: 95,
        counted: true,
        fails: false,
        error: null,
      }),
      expect.objectContaining({
        name: 'no-ads',
        verdict: 'no-match',
        certainty: 97,
        counted: true,
        fails: false,
        error: null,
      }),
    ])

    const { rows: recordedRows, ...record } = onlyRecord(world)
    expect(result.rows).toEqual(recordedRows)
    expect(record).toEqual({
      id: 'try-1',
      trigger: 'try-out',
      repo: 'acme/widgets',
      pr: 42,
      requester: 'ann',
      head_sha: HEAD,
      started_unix: Math.floor(startedMs / 1000),
      finished_unix: Math.floor(startedMs / 1000) + 30,
      outcome: 'done',
      overall: 'approve',
    })
    expectForgeUntouched(world)
  })

  it('shows running with the head read at the POST until the classifier answers', async () => {
    const world = createTryOutWorld()
    const held = gate()
    await world.serve(async (request) => {
      await held.wait
      return allClear(request)
    })
    const id = await startTryOut(world)
    expect(await readTryOut(world, id)).toEqual({
      id,
      status: 'running',
      repo: 'acme/widgets',
      pr: 42,
      head_sha: HEAD,
      rows: null,
      overall: null,
      detail: null,
    })
    expect(world.runs.records).toEqual([])
    held.open()
    await world.tryOuts.idle()
    expect(await readTryOut(world, id)).toMatchObject({ status: 'done', overall: 'approve' })
    expect(onlyRecord(world).outcome).toBe('done')
  })

  it('runs on a closed PR, and answers request-changes when a negative rule matches', async () => {
    const world = createTryOutWorld({
      seed: {
        users: [{ login: 'alice' }],
        repos: [aSeedRepo({ pulls: [aSeedPull({ state: 'closed', merged: true })] })],
      },
    })
    await world.serve((request) => ({
      id: request.id,
      ok: true,
      rows: [answeredRow(request, 'datetime'), answeredRow(request, 'no-ads', { verdict: 'match', certainty: 99 })],
      overall: 'approve',
    }))
    const { result } = await finishedTryOut(world)
    // The reply's own overall is not trusted: the controller recomputes it.
    expect(result).toMatchObject({ status: 'done', overall: 'request-changes', detail: null })
    expect(onlyRecord(world)).toMatchObject({ outcome: 'done', overall: 'request-changes' })
    expect(onlyRecord(world).detail).toBeUndefined()
  })

  it('is done with no verdict when a row got no answer, the row saying why', async () => {
    const world = createTryOutWorld()
    await world.serve((request) => ({
      id: request.id,
      ok: true,
      rows: [
        answeredRow(request, 'datetime'),
        answeredRow(request, 'no-ads', {
          verdict: null,
          certainty: null,
          reason: null,
          counted: false,
          error: { kind: 'malformed-answer', detail: 'no verdict line' },
        }),
      ],
      overall: 'no-verdict',
    }))
    const { result } = await finishedTryOut(world)
    expect(result).toMatchObject({ status: 'done', overall: 'no-verdict', detail: null })
    expect(result.rows).toEqual([
      expect.objectContaining({ name: 'datetime', verdict: 'match' }),
      expect.objectContaining({
        name: 'no-ads',
        verdict: null,
        error: { kind: 'malformed-answer', detail: 'no verdict line' },
      }),
    ])
    expect(onlyRecord(world)).toMatchObject({ outcome: 'done', overall: 'no-verdict' })
    expectForgeUntouched(world)
  })

  it('reads the new head when a push lands while the run reads the PR', async () => {
    const world = createTryOutWorld()
    await world.serve(allClear)
    let pushed = false
    world.forgeHooks.onCall = (method) => {
      if (method !== 'listPullCommits' || pushed) return
      pushed = true
      world.forge.upsertPull(REPO, aSeedPull({ headSha: 'b'.repeat(40), diff: 'diff --git a/x b/x\n' }))
    }
    const id = await startTryOut(world)
    await world.tryOuts.idle()
    const result = await readTryOut(world, id)
    expect(result).toMatchObject({ status: 'done', head_sha: 'b'.repeat(40) })
    expect(onlyRequest(world).diff).toBe('diff --git a/x b/x\n')
    expect(onlyRecord(world).head_sha).toBe('b'.repeat(40))
  })
})

describe('try-outs that fail', () => {
  it('fails when no classifier is running', async () => {
    const world = createTryOutWorld()
    const { id, result } = await finishedTryOut(world)
    expect(result).toEqual({
      id,
      status: 'failed',
      repo: 'acme/widgets',
      pr: 42,
      head_sha: HEAD,
      rows: null,
      overall: null,
      detail: "the classifier isn't running (no responders)",
    })
    const record = onlyRecord(world)
    expect(record).toMatchObject({
      id,
      trigger: 'try-out',
      requester: 'ann',
      outcome: 'failed',
      detail: "the classifier isn't running (no responders)",
      head_sha: HEAD,
    })
    expect(record.rows).toBeUndefined()
    expect(record.overall).toBeUndefined()
    expectForgeUntouched(world)
  })

  it('fails when the classifier does not answer in time', async () => {
    const world = createTryOutWorld({ tryOuts: { exchange: { runTimeoutMs: 50, replyMarginMs: 0 } } })
    const never = gate()
    await world.serve(async (request) => {
      await never.wait
      return allClear(request)
    })
    const { result } = await finishedTryOut(world)
    expect(result).toMatchObject({ status: 'failed', rows: null, overall: null })
    expect(String(result.detail)).toMatch(/^the classifier didn't answer within \d+ s$/)
    expect(onlyRecord(world).outcome).toBe('failed')
    never.open()
  })

  it('fails with the reason and any rows when the run failed as a whole', async () => {
    const world = createTryOutWorld()
    await world.serve((request) => ({
      id: request.id,
      ok: false,
      error: 'no key for the api-key runtime',
      rows: [],
      overall: 'no-verdict',
    }))
    const { result } = await finishedTryOut(world)
    expect(result).toMatchObject({
      status: 'failed',
      rows: [],
      overall: 'no-verdict',
      detail: 'the run failed: no key for the api-key runtime',
    })
    expect(onlyRecord(world)).toMatchObject({
      outcome: 'failed',
      rows: [],
      overall: 'no-verdict',
      detail: 'the run failed: no key for the api-key runtime',
    })
  })

  it("fails when the reply's rows aren't the classifications sent, and still shows the rows", async () => {
    const world = createTryOutWorld()
    await world.serve((request) => ({
      id: request.id,
      ok: true,
      rows: [answeredRow(request, 'datetime'), { ...answeredRow(request, 'datetime'), name: 'something-else' }],
      overall: 'approve',
    }))
    const { result } = await finishedTryOut(world)
    expect(result).toMatchObject({ status: 'failed', overall: 'no-verdict' })
    expect(String(result.detail)).toBe(
      'The classifier answered 2 classifications for 2 sent (missing: "no-ads"; unexpected: "something-else").',
    )
    expect(result.rows).toEqual([
      expect.objectContaining({ name: 'datetime', verdict: 'match' }),
      expect.objectContaining({
        name: 'no-ads',
        verdict: null,
        error: { kind: 'runtime', detail: "missing from the classifier's reply" },
      }),
    ])
    expect(onlyRecord(world)).toMatchObject({ outcome: 'failed', overall: 'no-verdict' })
  })

  it('fails on a reply to another run and on a reply that is not a reply', async () => {
    const other = createTryOutWorld()
    await other.serve((request) => ({ ...allClear(request), id: 'someone-else' }))
    expect((await finishedTryOut(other)).result).toMatchObject({
      status: 'failed',
      rows: null,
      detail: 'the classifier answered another run (someone-else)',
    })

    const garbled = createTryOutWorld()
    // Not the wire shape: `rows` missing.
    await garbled.serve((request) =>
      Object.assign(allClear(request), { toJSON: () => ({ id: request.id, ok: true, overall: 'approve' }) }),
    )
    const { result } = await finishedTryOut(garbled)
    expect(result).toMatchObject({ status: 'failed', rows: null })
    expect(String(result.detail)).toStartWith("the classifier's reply can't be read")
  })

  it('fails when the PR is gone by the time the run reads it', async () => {
    const world = createTryOutWorld()
    await world.serve(allClear)
    world.forgeHooks.onCall = (method) => {
      if (method === 'listPullCommits')
        world.forge.simulateFailure(appError('unavailable', 'the forge at forge.example answered 502'))
    }
    const id = await startTryOut(world)
    await world.tryOuts.idle()
    const result = await readTryOut(world, id)
    expect(result).toMatchObject({ status: 'failed', rows: null, head_sha: HEAD })
    expect(String(result.detail)).toBe("the pull request couldn't be read: the forge at forge.example answered 502")
    expect(world.requests).toEqual([])
    expect(onlyRecord(world)).toMatchObject({ outcome: 'failed', head_sha: HEAD })
  })
})

describe('POST /api/review-classifier/try-out: refused', () => {
  it('answers 401 without a Remote-User, before reading the body', async () => {
    const world = createTryOutWorld()
    await expectProblem(
      await world.app.handle(postTryOut(aTryOutBody(), {})),
      401,
      'a try-out needs the Remote-User header the gateway sets',
    )
    await expectProblem(await world.app.handle(postTryOut('not json', { 'remote-user': '  ' })), 401)
    expect(world.forgeCalls).toEqual([])
  })

  it('answers 400 for a body that is not a JSON object', async () => {
    const world = createTryOutWorld()
    await expectProblem(await world.app.handle(postTryOut('{"repo":')), 400, /^the body isn't JSON/)
    await expectProblem(await world.app.handle(postTryOut('')), 400, /^the body isn't JSON/)
    await expectProblem(
      await world.app.handle(postTryOut([aTryOutBody()])),
      400,
      /^the body must be a JSON object .* got a list$/,
    )
  })

  it('ignores unknown fields (docs/decisions.md, wire formats) and answers 400 for a missing one', async () => {
    const world = createTryOutWorld()
    const extra = await world.app.handle(postTryOut(aTryOutBody({ head_sha: HEAD, model: 'opus' })))
    expect(extra.status).toBe(202)
    const { classifications: _, ...noRules } = aTryOutBody()
    await expectProblem(await world.app.handle(postTryOut(noRules)), 400, 'missing field "classifications"')
    await expectProblem(
      await world.app.handle(postTryOut({})),
      400,
      'missing fields "repo", "pr" (or "replay", or "examples": true), "classifications"',
    )
  })

  it('answers 400 for a repo that is not owner/name', async () => {
    const world = createTryOutWorld()
    for (const repo of ['acme', 'acme/widgets/extra', 'acme/../x', '/widgets', 'ac me/widgets', '', 7, null]) {
      await expectProblem(await world.app.handle(postTryOut(aTryOutBody({ repo }))), 400, /^repo must be owner\/name/)
    }
  })

  it('answers 400 for a pr that is not a positive whole number', async () => {
    const world = createTryOutWorld()
    for (const [pr, shown] of [
      [0, '0'],
      [-3, '-3'],
      [1.5, '1.5'],
      ['42', '"42" (a string)'],
      [null, 'null'],
      [2 ** 60, String(2 ** 60)],
    ] as const) {
      await expectProblem(
        await world.app.handle(postTryOut(aTryOutBody({ pr }))),
        400,
        `pr must be a positive whole number, got ${shown}`,
      )
    }
  })

  it("answers 400 with core's words for classifications that break a rule, naming the entry", async () => {
    const world = createTryOutWorld()
    await expectProblem(
      await world.app.handle(postTryOut(aTryOutBody({ classifications: [] }))),
      400,
      /classifications: is empty; it needs 1 to 10/,
    )
    const eleven = Array.from({ length: 11 }, (_, i) => aClassification({ name: `rule-${i}` }))
    await expectProblem(
      await world.app.handle(postTryOut(aTryOutBody({ classifications: eleven }))),
      400,
      /has 11 classifications; at most 10/,
    )
    const detail = await expectProblem(
      await world.app.handle(
        postTryOut(
          aTryOutBody({
            classifications: [
              aClassification(),
              aClassification({ name: 'loose', threshold: 101 }),
              { ...aClassification({ name: 'extra' }), colour: 'red' },
            ],
          }),
        ),
      ),
      400,
    )
    expect(detail).toContain(
      'the body: classifications[1] (name "loose"): threshold must be a whole number 0–100, got 101 (a number)',
    )
    expect(detail).toContain('the body: classifications[2] (name "extra"): unknown key "colour"')
    await expectProblem(
      await world.app.handle(postTryOut(aTryOutBody({ classifications: [aClassification(), aClassification()] }))),
      400,
      /classifications\[1\] \(name "datetime"\): the name is already used by classifications\[0\]/,
    )
  })

  it('answers 400 for a name with a control or format character or over 64 characters, and a long description', async () => {
    const world = createTryOutWorld()
    const post = (overrides: Record<string, unknown>) =>
      world.app.handle(postTryOut(aTryOutBody({ classifications: [aClassification(overrides)] })))
    await expectProblem(
      await post({ name: 'no-ads\u202e' }),
      400,
      'the body: classifications[0] (name "no-ads\\u202e"): name holds U+202E (a format character) at character 7; a name is one line of visible characters, with no control or format characters',
    )
    await expectProblem(await post({ name: 'a\nb' }), 400, /name holds U\+000A \(a control character\) at character 2/)
    await expectProblem(
      await post({ name: 'n'.repeat(65) }),
      400,
      /name is 65 characters long; at most 64 are allowed$/,
    )
    await expectProblem(
      await post({ description: 'd'.repeat(2001) }),
      400,
      /description is 2001 characters long; at most 2000 are allowed$/,
    )
    expect(world.forgeCalls).toEqual([])
  })

  it('names every problem of the body at once, and starts nothing for a refused body', async () => {
    const world = createTryOutWorld()
    await world.serve(allClear)
    const detail = await expectProblem(
      await world.app.handle(postTryOut({ repo: 'nope', pr: 0, classifications: 'all' })),
      400,
    )
    expect(detail.split('\n')).toEqual([
      expect.stringMatching(/^repo must be owner\/name/),
      'pr must be a positive whole number, got 0',
      expect.stringMatching(/^the body: classifications: must be a list of 1 to 10 classifications/),
    ])
    expect(world.forgeCalls).toEqual([])
    await world.tryOuts.idle()
    expect(world.requests).toEqual([])
    expect(world.runs.records).toEqual([])
  })

  it('answers 404 for a repo or a PR the forge does not know', async () => {
    const world = createTryOutWorld()
    await world.serve(allClear)
    await expectProblem(
      await world.app.handle(postTryOut(aTryOutBody({ repo: 'acme/nope' }))),
      404,
      /^the forge has no pull request acme\/nope#42/,
    )
    await expectProblem(
      await world.app.handle(postTryOut(aTryOutBody({ pr: 99 }))),
      404,
      /^the forge has no pull request acme\/widgets#99/,
    )
    await world.tryOuts.idle()
    expect(world.requests).toEqual([])
    expect(world.runs.records).toEqual([])
    expect(world.tryOuts.size()).toBe(0)
  })

  it('answers 503 without a swarm queue, or with it down', async () => {
    await expectProblem(
      await createTryOutWorld({ queue: null }).app.handle(postTryOut(aTryOutBody())),
      503,
      'this host has no swarm queue',
    )
    const down = createTryOutWorld()
    down.link.up = false
    await expectProblem(await down.app.handle(postTryOut(aTryOutBody())), 503, 'the swarm queue is not connected')
  })

  it('answers 503 or 500 as the settings route does when the settings cannot be read', async () => {
    const slow = createTryOutWorld()
    slow.settings.fail(appError('timeout', 'kv get of review-classifier-settings/all: no answer'))
    await expectProblem(
      await slow.app.handle(postTryOut(aTryOutBody())),
      503,
      "the settings can't be read: kv get of review-classifier-settings/all: no answer",
    )
    const refused = createTryOutWorld()
    refused.settings.fail(appError('forbidden', 'permissions violation for the bucket'))
    await expectProblem(
      await refused.app.handle(postTryOut(aTryOutBody())),
      500,
      "the settings can't be read: permissions violation for the bucket",
    )
    expect(refused.forgeCalls).toEqual([])
  })

  it('answers 503 with no forge, no forge token yet, the forge down or slow', async () => {
    await expectProblem(
      await createTryOutWorld({ forge: null }).app.handle(postTryOut(aTryOutBody())),
      503,
      'this host has no forge: FORGE_URL is not set',
    )
    for (const [error, detail] of [
      [
        appError('unavailable', 'no forge token yet: the controller has no site-admin token for the forge'),
        /no forge token yet/,
      ],
      [
        appError('unavailable', 'the forge at forge.example answered GET pull request with 502'),
        /answered GET pull request with 502/,
      ],
      [appError('timeout', 'the forge at forge.example did not answer within 120000 ms'), /did not answer within/],
      [appError('unauthorized', 'the forge answered with 401: token is invalid'), /token is invalid/],
    ] as const) {
      const world = createTryOutWorld()
      world.forge.simulateFailure(error)
      const text = await expectProblem(await world.app.handle(postTryOut(aTryOutBody())), 503, detail)
      expect(text).toStartWith("the pull request acme/widgets#42 can't be read from the forge: ")
      expect(world.tryOuts.size()).toBe(0)
    }
  })
})

describe('GET /api/review-classifier/try-out/{id}', () => {
  it('answers 404 for an id it never gave', async () => {
    const world = createTryOutWorld()
    await expectProblem(
      await world.app.handle(getTryOut('try-404')),
      404,
      'no try-out "try-404": unknown, or finished more than an hour ago',
    )
  })

  it('keeps a result for an hour after it finishes, then answers 404', async () => {
    const world = createTryOutWorld()
    await world.serve(allClear)
    const { id } = await finishedTryOut(world)
    world.clock.advance(TRY_OUT_KEEP_MS - 1)
    expect((await readTryOut(world, id)).status).toBe('done')
    world.clock.advance(1)
    await expectProblem(await world.app.handle(getTryOut(id)), 404, /unknown, or finished more than an hour ago/)
    expect(world.tryOuts.size()).toBe(0)
    // The run store keeps it: only the in-memory result expires.
    expect(onlyRecord(world).id).toBe(id)
  })

  it('never expires a try-out that is still running', async () => {
    const world = createTryOutWorld()
    const held = gate()
    await world.serve(async (request) => {
      await held.wait
      return allClear(request)
    })
    const id = await startTryOut(world)
    world.clock.advance(3 * TRY_OUT_KEEP_MS)
    expect((await readTryOut(world, id)).status).toBe('running')
    held.open()
    await world.tryOuts.idle()
    world.clock.advance(TRY_OUT_KEEP_MS - 1)
    expect((await readTryOut(world, id)).status).toBe('done')
  })
})

describe('createTryOuts: bounded memory', () => {
  it('evicts the oldest finished result first, and the oldest running one only when none has finished', async () => {
    const world = createTryOutWorld({ tryOuts: { maxKept: 2 } })
    const held = gate()
    await world.serve(async (request) => {
      if (request.classifications[0]?.name === 'slow') await held.wait
      return allClear(request)
    })
    const slow = { ...aTryOutBody(), classifications: [aClassification({ name: 'slow' })] }
    const first = await startTryOut(world, slow)
    const second = await startTryOut(world)
    // `first` is still running; `second` has finished.
    await until(() => world.runs.records.length === 1, 'the second try-out to finish')
    const third = await startTryOut(world, slow)
    expect(world.tryOuts.size()).toBe(2)
    expect((await readTryOut(world, first)).status).toBe('running')
    await expectProblem(await world.app.handle(getTryOut(second)), 404)

    // Both held are running now: the oldest goes, and still ends in the run store.
    const fourth = await startTryOut(world, slow)
    await expectProblem(await world.app.handle(getTryOut(first)), 404)
    expect(world.logger.withMessage('review classifier try-out evicted while running')).toHaveLength(1)
    held.open()
    await world.tryOuts.idle()
    expect(world.tryOuts.size()).toBe(2)
    expect((await readTryOut(world, third)).status).toBe('done')
    expect((await readTryOut(world, fourth)).status).toBe('done')
    expect(world.runs.records.map((record) => record.id).sort()).toEqual([first, second, third, fourth].sort())
  })
})

describe('try-outs and review places', () => {
  it('run while every review place and every waiting place is taken', async () => {
    const world = createTryOutWorld({ settings: { max_concurrent_reviews: 1 } })
    const reviewsHeld = gate()
    await world.serve(async (request) => {
      if (request.trigger === 'review') await reviewsHeld.wait
      return allClear(request)
    })
    const pipeline = createReviewPipeline(world.deps)
    for (let i = 0; i < 9; i += 1) {
      expect(pipeline.submit({ repo: REPO, pr: 42, headSha: `${i}`.repeat(40), requester: 'alice' })).not.toBe(
        'queue-full',
      )
    }
    await until(() => world.requests.some((request) => request.trigger === 'review'))
    expect(pipeline.counts()).toMatchObject({ running: 1, waiting: 8, limit: 1 })
    // Every place is taken: one more review is turned away.
    expect(pipeline.submit({ repo: REPO, pr: 42, headSha: 'f'.repeat(40), requester: 'alice' })).toBe('queue-full')
    await until(() => world.runs.records.length === 1, 'the queue-full comment to be recorded')

    const id = await startTryOut(world)
    await world.tryOuts.idle()
    expect(await readTryOut(world, id)).toMatchObject({ status: 'done', overall: 'approve' })
    expect(pipeline.counts()).toMatchObject({ running: 1, waiting: 8 })
    // The try-out is recorded; of the reviews, only the one turned away is.
    expect(world.runs.records.map((record) => `${record.trigger} ${record.outcome}`).sort()).toEqual([
      'review queue-full',
      'try-out done',
    ])

    reviewsHeld.open()
    await pipeline.idle()
    expect(world.runs.records.filter((record) => record.outcome === 'approved')).toHaveLength(9)
    expect(world.forge.reviews(REPO, 42).every((review) => review.user === 'review-classifier')).toBe(true)
  })
})

describe('the OpenAPI document', () => {
  it('lists both routes with their statuses, errors as problem+json', async () => {
    const world = createTryOutWorld()
    const document: unknown = await (await world.app.handle(aRequest('/openapi/json'))).json()
    const paths = typeof document === 'object' && document !== null && 'paths' in document ? document.paths : {}
    expect(paths).toMatchObject({
      '/api/review-classifier/try-out': {
        post: {
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/TryOutRequest' } } } },
          responses: {
            202: { content: { 'application/json': expect.anything() } },
            400: { content: { [PROBLEM_CONTENT_TYPE]: expect.anything() } },
            401: expect.anything(),
            404: expect.anything(),
            500: expect.anything(),
            503: expect.anything(),
          },
        },
      },
      '/api/review-classifier/try-out/{id}': {
        get: { responses: { 200: expect.anything(), 404: { content: { [PROBLEM_CONTENT_TYPE]: expect.anything() } } } },
      },
    })
  })
})

describe('createTryOuts', () => {
  it('keeps each result apart: ids from the Ids port, the queue and store given', async () => {
    const queue = createMemoryQueue()
    const world = createTryOutWorld()
    const tryOuts = createTryOuts({
      queue,
      runs: world.runs,
      clock: world.clock,
      ids: createSequenceIds('t-'),
      logger: world.logger,
      exchange: { runTimeoutMs: 1_000, replyMarginMs: 0 },
    })
    const forge = world.forge
    const input = {
      forge,
      repo: REPO,
      pr: 42,
      headSha: HEAD,
      classifications: [aClassification()],
      settings: await world.settings.read(),
      runtime: 'api-key' as const,
      requester: 'ann',
    }
    expect(tryOuts.start(input)).toBe('t-1')
    expect(tryOuts.start(input)).toBe('t-2')
    await tryOuts.idle()
    expect(tryOuts.get('t-1')).toMatchObject({
      status: 'failed',
      detail: "the classifier isn't running (no responders)",
    })
    expect(tryOuts.get('t-2')).toMatchObject({ status: 'failed' })
    expect(tryOuts.get('t-3')).toBeNull()
    // A copy: changing what `get` answered changes nothing held.
    const shown = tryOuts.get('t-1')
    if (shown !== null) shown.status = 'done'
    expect(tryOuts.get('t-1')?.status).toBe('failed')
  })
})
