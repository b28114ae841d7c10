/**
 * The try-out routes beyond one run: the rows a GET shows while the run goes
 * (docs/decisions.md, "Run progress"), a repeat (k runs of one request, the
 * first alone), a replay (the repo's last PRs, each a run of its own), their
 * bounds as 400s and their shapes in the OpenAPI document.
 */
import { describe, expect, it } from 'bun:test'
import { appError } from '../../../../core/base/errors.ts'
import type { Row, RunReply, RunRequest, Verdict } from '../../../../core/wire/types.ts'
import type { RunTell } from '../../../../ports/queue.ts'
import { aClassification, aSeedPull, aSeedRepo } from '../../../support/builders.ts'
import { answeredRow, gate, REPO, until } from '../review-world.ts'
import {
  allClear,
  aTryOutBody,
  createTryOutWorld,
  postTryOut,
  readTryOut,
  startTryOut,
  type TryOutWorld,
} from '../try-out-world.ts'
import { aRequest, expectProblem } from './http-support.ts'

function replyOf(request: RunRequest, rows: Row[]): RunReply {
  return { id: request.id, ok: true, rows, overall: 'approve' }
}

/** A world whose repo has PRs 1–6, of which 3 was closed without merging and 5 merged. */
function historyWorld(): TryOutWorld {
  const pulls = [1, 2, 3, 4, 5, 6].map((number) =>
    aSeedPull({
      number,
      title: `Change ${number}`,
      headSha: String(number).repeat(40),
      diff: `diff --git a/f${number} b/f${number}\n`,
      ...(number === 3 ? { state: 'closed' as const } : {}),
      ...(number === 5 ? { state: 'closed' as const, merged: true } : {}),
    }),
  )
  return createTryOutWorld({ seed: { users: [{ login: 'alice' }], repos: [aSeedRepo({ pulls })] } })
}

/** A script counting the runs in hand at once; each run waits for a macrotask, so the ones started together overlap. */
function overlapCounter(answer: (request: RunRequest) => RunReply) {
  let now = 0
  let most = 0
  return {
    most: () => most,
    async script(request: RunRequest): Promise<RunReply> {
      now += 1
      most = Math.max(most, now)
      await new Promise((resolve) => setTimeout(resolve, 1))
      now -= 1
      return answer(request)
    },
  }
}

describe('GET /api/review-classifier/try-out/{id}: rows while the run goes', () => {
  it('shows each row the classifier finished, re-checked, and replaces them with the reply’s', async () => {
    const world = createTryOutWorld()
    const held = gate()
    let told: RunTell = () => undefined
    await world.serve(async (request, tell) => {
      told = tell
      tell({ kind: 'taken', id: request.id, total: 2 })
      // Claims counted and not failing at 10: the controller recomputes from the sent rule (threshold 90, negative).
      tell({
        kind: 'row',
        id: request.id,
        total: 2,
        row: answeredRow(request, 'no-ads', { verdict: 'match', certainty: 97, counted: false, fails: false }),
      })
      tell({ kind: 'row', id: request.id, total: 2, row: { ...answeredRow(request, 'no-ads'), name: 'not-sent' } })
      await held.wait
      return replyOf(request, [
        answeredRow(request, 'datetime'),
        answeredRow(request, 'no-ads', { verdict: 'no-match', certainty: 99, reason: 'The reply’s own.' }),
      ])
    })
    const id = await startTryOut(world)
    await until(() => world.tryOuts.get(id)?.rows !== null, 'the row heard before the reply')
    const running = await readTryOut(world, id)
    expect(running).toMatchObject({ status: 'running', overall: null })
    expect(running.rows).toEqual([
      {
        name: 'no-ads',
        polarity: 'negative',
        threshold: 90,
        verdict: 'match',
        certainty: 97,
        reason: 'It holds.',
        counted: true,
        fails: true,
        error: null,
        mode: 'blocking',
        in_scope: true,
        blocks: true,
      },
    ])
    held.open()
    await world.tryOuts.idle()
    const done = await readTryOut(world, id)
    expect(done).toMatchObject({ status: 'done', overall: 'approve' })
    expect(done.rows).toEqual([
      expect.objectContaining({ name: 'datetime', verdict: 'match' }),
      expect.objectContaining({ name: 'no-ads', verdict: 'no-match', certainty: 99, reason: 'The reply’s own.' }),
    ])
    // A row that crosses the reply (another subject) changes nothing once the reply is in.
    told({
      kind: 'row',
      id,
      total: 2,
      row: { ...answeredRow(world.requests[0] as RunRequest, 'datetime'), verdict: 'no-match' },
    })
    expect((await readTryOut(world, id)).rows).toEqual(done.rows)
    expect(JSON.stringify(done)).not.toContain('usage')
  })

  it('reads a progress row with an incomplete answer as a malformed one, and shows null before any row', async () => {
    const world = createTryOutWorld()
    const held = gate()
    const heard = gate()
    await world.serve(async (request, tell) => {
      await heard.wait
      tell({ kind: 'row', id: request.id, total: 2, row: answeredRow(request, 'datetime', { certainty: null }) })
      await held.wait
      return allClear(request)
    })
    const id = await startTryOut(world)
    expect((await readTryOut(world, id)).rows).toBeNull()
    heard.open()
    await until(() => world.tryOuts.get(id)?.rows !== null, 'the row heard before the reply')
    const rows = (await readTryOut(world, id)).rows
    expect(rows).toEqual([
      expect.objectContaining({
        name: 'datetime',
        verdict: null,
        error: expect.objectContaining({ kind: 'malformed-answer' }),
      }),
    ])
    held.open()
    await world.tryOuts.idle()
  })
})

describe('a repeated try-out', () => {
  it('asks the same request k times, the first alone, and shows each rule’s answers, flips and spread', async () => {
    const world = createTryOutWorld()
    const events: string[] = []
    const datetime: Verdict[] = ['match', 'no-match', 'match']
    let asked = 0
    await world.serve(async (request) => {
      const index = asked
      asked += 1
      events.push(`start ${request.id}`)
      await new Promise((resolve) => setTimeout(resolve, 1))
      events.push(`end ${request.id}`)
      return replyOf(request, [
        answeredRow(request, 'datetime', { verdict: datetime[index] ?? 'match', certainty: 60 + 10 * index }),
        answeredRow(request, 'no-ads', { verdict: 'no-match', certainty: 97 }),
      ])
    })
    const id = await startTryOut(world, aTryOutBody({ repeat: 3 }))
    await world.tryOuts.idle()

    expect(world.requests.map((request) => request.id).sort()).toEqual([id, `${id}-2`, `${id}-3`])
    // The first run ends before another starts, so the provider has the PR cached when the rest ask.
    expect(events.slice(0, 2)).toEqual([`start ${id}`, `end ${id}`])
    const [first, ...rest] = world.requests
    for (const request of rest) expect({ ...request, id: first?.id }).toEqual(first as RunRequest)
    // One read of the PR for all three runs.
    expect(world.forgeCalls.filter((call) => call === 'listPullCommits')).toHaveLength(1)

    const result = await readTryOut(world, id)
    expect(result).toMatchObject({ status: 'done', overall: 'approve', detail: null })
    expect(result.rows).toEqual([
      expect.objectContaining({ name: 'datetime', verdict: 'match', certainty: 60 }),
      expect.objectContaining({ name: 'no-ads', verdict: 'no-match' }),
    ])
    expect(result.repeat).toEqual({
      count: 3,
      classifications: [
        {
          name: 'datetime',
          answers: [expect.anything(), expect.anything(), expect.anything()],
          // Against its threshold of 80, match at 60 and no-match at 70 don't count and match at 80 passes:
          // the verdict changed twice, what the review would do once.
          flips: 1,
          verdict_flips: 2,
          verdicts: { match: 2, 'no-match': 1, 'not-applicable': 0, unanswered: 0 },
          certainty: { min: 60, median: 70, max: 80 },
        },
        {
          name: 'no-ads',
          answers: [expect.anything(), expect.anything(), expect.anything()],
          flips: 0,
          verdict_flips: 0,
          verdicts: { match: 0, 'no-match': 3, 'not-applicable': 0, unanswered: 0 },
          certainty: { min: 97, median: 97, max: 97 },
        },
      ],
    })
    // One try-out, one record: the first run's rows.
    expect(world.runs.records).toHaveLength(1)
    expect(world.runs.records[0]).toMatchObject({ id, outcome: 'done', overall: 'approve' })
    expect(world.forge.reviews(REPO, 42)).toEqual([])
  })

  it('keeps the runs started together within eight sessions: four of two rules, one of five', async () => {
    const two = createTryOutWorld()
    const counted = overlapCounter(allClear)
    await two.serve(counted.script)
    await startTryOut(two, aTryOutBody({ repeat: 10 }))
    await two.tryOuts.idle()
    expect(two.requests).toHaveLength(10)
    expect(counted.most()).toBe(4)

    const five = createTryOutWorld()
    const one = overlapCounter(allClear)
    await five.serve(one.script)
    const rules = ['a', 'b', 'c', 'd', 'e'].map((name) => aClassification({ name }))
    await startTryOut(five, aTryOutBody({ repeat: 4, classifications: rules }))
    await five.tryOuts.idle()
    expect(five.requests).toHaveLength(4)
    expect(one.most()).toBe(1)
  })

  it('asks nothing more when the first run fails, and names the run that failed', async () => {
    const world = createTryOutWorld()
    const id = await startTryOut(world, aTryOutBody({ repeat: 3 }))
    await world.tryOuts.idle()
    expect(await readTryOut(world, id)).toMatchObject({
      status: 'failed',
      detail: "run 1 of 3: the classifier isn't running (no responders)",
      repeat: { count: 3, classifications: [{ name: 'datetime', answers: [], flips: 0, certainty: null }, {}] },
    })
    expect(world.runs.records[0]).toMatchObject({ id, outcome: 'failed', detail: expect.stringMatching(/^run 1 of 3/) })
  })

  it('keeps the answers of the runs that answered when a later run fails', async () => {
    const world = createTryOutWorld()
    await world.serve((request) =>
      request.id.endsWith('-3')
        ? { id: request.id, ok: false, error: 'no key', rows: [], overall: 'no-verdict' }
        : allClear(request),
    )
    const id = await startTryOut(world, aTryOutBody({ repeat: 3 }))
    await world.tryOuts.idle()
    const result = await readTryOut(world, id)
    expect(result).toMatchObject({ status: 'failed', detail: 'run 3 of 3: the run failed: no key', overall: 'approve' })
    expect(result.repeat).toMatchObject({ classifications: [{ answers: [{}, {}], flips: 0 }, { answers: [{}, {}] }] })
  })
})

describe('a replayed try-out', () => {
  it('runs the classifications on the repo’s last open or merged PRs, newest first, each recorded apart', async () => {
    const world = historyWorld()
    await world.serve((request) =>
      replyOf(request, [
        answeredRow(request, 'datetime', { certainty: 80 + request.pr }),
        answeredRow(request, 'no-ads', { verdict: request.pr === 4 ? 'match' : 'no-match', certainty: 99 }),
      ]),
    )
    const body = { ...aTryOutBody({ replay: 4 }), pr: undefined }
    const id = await startTryOut(world, JSON.parse(JSON.stringify(body)))
    await world.tryOuts.idle()

    const result = await readTryOut(world, id)
    expect(result).toMatchObject({ status: 'done', repo: 'acme/widgets', pr: null, head_sha: null, rows: null })
    const replay = result.replay as { count: number; pulls: Array<Record<string, unknown>> }
    expect(replay.count).toBe(4)
    // 3 was closed without merging: skipped; 5 was merged: kept.
    expect(replay.pulls.map((line) => [line.pr, line.title, line.status, line.overall])).toEqual([
      [6, 'Change 6', 'done', 'approve'],
      [5, 'Change 5', 'done', 'approve'],
      [4, 'Change 4', 'done', 'request-changes'],
      [2, 'Change 2', 'done', 'approve'],
    ])
    expect(replay.pulls[0]).toMatchObject({
      head_sha: '6'.repeat(40),
      url: expect.stringMatching(/\/acme\/widgets\/pulls\/6$/),
    })
    expect(replay.pulls[2]?.rows).toEqual([
      expect.objectContaining({ name: 'datetime', certainty: 84 }),
      expect.objectContaining({ name: 'no-ads', verdict: 'match', counted: true, fails: true }),
    ])
    expect(world.requests.map((request) => [request.id, request.pr, request.diff]).sort()).toEqual(
      [6, 5, 4, 2].map((n) => [`${id}-pr${n}`, n, `diff --git a/f${n} b/f${n}\n`]).sort(),
    )
    expect(world.runs.records.map((record) => [record.id, record.pr, record.outcome]).sort()).toEqual(
      [6, 5, 4, 2].map((n) => [`${id}-pr${n}`, n, 'done']).sort(),
    )
    for (const n of [6, 5, 4, 2]) expect(world.forge.reviews(REPO, n)).toEqual([])
  })

  it('shows the error of a PR that can’t be read in its line, and still runs the others', async () => {
    const world = historyWorld()
    await world.serve(allClear)
    world.forgeHooks.onCall = (method, pr) => {
      if (method === 'getPullDiff' && pr === 4) throw appError('unavailable', 'the forge failed (502)')
    }
    const id = await startTryOut(world, { repo: 'acme/widgets', replay: 3, classifications: [aClassification()] })
    await world.tryOuts.idle()
    const result = await readTryOut(world, id)
    expect(result.status).toBe('done')
    const pulls = (result.replay as { pulls: Array<Record<string, unknown>> }).pulls
    expect(pulls.map((line) => [line.pr, line.status, line.detail])).toEqual([
      [6, 'done', null],
      [5, 'done', null],
      [4, 'failed', "the pull request couldn't be read: the forge failed (502)"],
    ])
    expect(world.runs.records.find((record) => record.pr === 4)).toMatchObject({ outcome: 'failed' })
  })

  it('runs a few PRs at a time, within eight sessions, and fails as a whole only when no PR ran', async () => {
    const world = historyWorld()
    const counted = overlapCounter(allClear)
    await world.serve(counted.script)
    await startTryOut(world, { repo: 'acme/widgets', replay: 20, classifications: [aClassification()] })
    await world.tryOuts.idle()
    // Five open or merged PRs, one rule each: all five may go at once.
    expect(world.requests).toHaveLength(5)
    expect(counted.most()).toBe(5)

    const alone = historyWorld()
    const id = await startTryOut(alone, { repo: 'acme/widgets', replay: 2, classifications: [aClassification()] })
    await alone.tryOuts.idle()
    expect(await readTryOut(alone, id)).toMatchObject({
      status: 'failed',
      detail: 'none of the 2 PRs could be run; each line says why',
    })
  })
})

describe('POST /api/review-classifier/try-out: repeat and replay refused', () => {
  it.each([
    ['a repeat of 0', { repeat: 0 }, 'repeat must be a whole number from 1 to 10'],
    ['a repeat of 11', { repeat: 11 }, 'repeat must be a whole number from 1 to 10'],
    ['a fractional repeat', { repeat: 1.5 }, 'repeat must be a whole number from 1 to 10'],
    ['a replay of 21', { pr: undefined, replay: 21 }, 'replay must be a whole number from 1 to 20'],
    ['a replay of 0', { pr: undefined, replay: 0 }, 'replay must be a whole number from 1 to 20'],
    ['pr and replay', { replay: 2 }, 'send pr (one PR) or replay (the last N PRs), not both'],
    ['repeat with replay', { pr: undefined, replay: 2, repeat: 2 }, 'repeat asks one PR several times'],
  ])('answers 400 for %s and starts nothing', async (_label, overrides, detail) => {
    const world = historyWorld()
    const body = JSON.parse(JSON.stringify(aTryOutBody(overrides)))
    await expectProblem(
      await world.app.handle(postTryOut(body)),
      400,
      new RegExp(`^${detail.replace(/[()]/g, '\\$&')}`),
    )
    expect(world.forgeCalls).toEqual([])
    expect(world.tryOuts.size()).toBe(0)
  })

  it('answers 404 for a replay of a repo the forge does not know, or one with nothing to replay', async () => {
    const world = createTryOutWorld({
      seed: {
        users: [{ login: 'alice' }],
        repos: [aSeedRepo({ name: 'abandoned', pulls: [aSeedPull({ number: 1, state: 'closed' })] })],
      },
    })
    const replay = (repo: string) => postTryOut({ repo, replay: 5, classifications: [aClassification()] })
    await expectProblem(
      await world.app.handle(replay('acme/nope')),
      404,
      'the forge has no repo acme/nope that this host can read',
    )
    await expectProblem(
      await world.app.handle(replay('acme/abandoned')),
      404,
      'acme/abandoned has no open or merged pull request to replay',
    )
  })
})

describe('the OpenAPI document: repeat and replay', () => {
  it('documents both fields with their bounds, and the result shapes', async () => {
    const world = createTryOutWorld()
    const document = (await (await world.app.handle(aRequest('/openapi/json'))).json()) as {
      components: { schemas: Record<string, unknown> }
      paths: Record<string, { get?: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }>
    }
    const request = JSON.stringify(document.components.schemas.TryOutRequest)
    expect(request).toContain('"repeat":{"minimum":1,"maximum":10')
    expect(request).toContain('"replay":{"minimum":1,"maximum":20')
    const view = JSON.stringify(document.paths['/api/review-classifier/try-out/{id}']?.get?.responses[200])
    for (const field of ['"repeat"', '"flips"', '"answers"', '"replay"', '"pulls"', '"waiting"']) {
      expect(view).toContain(field)
    }
  })
})
