/**
 * A try-out against the labelled examples (`examples: true`), through the
 * controller app: the memory forge with an examples file and its labelled
 * PRs, and a scripted classifier whose answers make each kind of agreement.
 */
import { describe, expect, it } from 'bun:test'
import { EXAMPLES_YML_PATH } from '../../../../core/repo-files/examples-file.ts'
import { RULES_YML_PATH } from '../../../../core/repo-files/rules-file.ts'
import type { ExamplesLine, ReliabilityScore, RunRequest, Verdict } from '../../../../core/wire/types.ts'
import { aClassification, aNumberedPull, aSeedRepo } from '../../../support/builders.ts'
import { answeredRow, REPO } from '../review-world.ts'
import {
  aTryOutBody,
  createTryOutWorld,
  postTryOut,
  readTryOut,
  startTryOut,
  type TryOutWorld,
} from '../try-out-world.ts'
import { expectProblem } from './http-support.ts'

const EXAMPLES = `examples:
  - pr: 12
    expect:
      datetime: no-match
      no-ads: not-applicable
      old-name: match
  - pr: 31
    expect:
      datetime: match
  - pr: 50
    expect:
      unrelated: match
`

function worldWith(files: Record<string, string>, pulls = [aNumberedPull(12), aNumberedPull(31)]): TryOutWorld {
  const rules = aSeedRepo().files?.[RULES_YML_PATH] ?? ''
  return createTryOutWorld({
    seed: {
      users: [{ login: 'review-classifier' }],
      repos: [aSeedRepo({ files: { [RULES_YML_PATH]: rules, ...files }, pulls })],
    },
  })
}

const examplesBody = (overrides: Record<string, unknown> = {}) =>
  aTryOutBody({ pr: undefined, examples: true, ...overrides })

/**
 * PR 12 (labelled datetime: no-match) gets datetime match at 95 every time: a false pass; PR 31 (labelled
 * match) gets match on its first run and no-match at 85 on its second: an agreement, then a false block.
 * no-ads never matches (a counted pass on PR 12, labelled not-applicable).
 */
function scripted(request: RunRequest) {
  const second = request.id.endsWith('-2')
  const verdictOf = (name: string): { verdict: Verdict; certainty: number } => {
    if (name === 'no-ads') return { verdict: 'no-match', certainty: 97 }
    if (request.pr === 31 && second) return { verdict: 'no-match', certainty: 85 }
    return { verdict: 'match', certainty: 95 }
  }
  return {
    id: request.id,
    ok: true,
    rows: request.classifications.map((rule) => answeredRow(request, rule.name, verdictOf(rule.name))),
    overall: 'approve' as const,
  }
}

async function finished(world: TryOutWorld, body: unknown) {
  const id = await startTryOut(world, body)
  await world.tryOuts.idle()
  return { id, result: await readTryOut(world, id) }
}

describe('POST /api/review-classifier/try-out with examples: true', () => {
  it('runs the posted classifications repeat times on every labelled PR, one line each, and scores them', async () => {
    const world = worldWith({ [EXAMPLES_YML_PATH]: EXAMPLES })
    await world.serve(scripted)
    const { id, result } = await finished(world, examplesBody({ repeat: 2 }))

    // PR 50 has no label for a classification posted, so it isn't run.
    expect(world.requests.map((request) => [request.pr, request.id]).sort()).toEqual([
      [12, `${id}-pr12`],
      [12, `${id}-pr12-2`],
      [31, `${id}-pr31`],
      [31, `${id}-pr31-2`],
    ])
    expect(result).toMatchObject({ id, status: 'done', repo: 'acme/widgets', pr: null, rows: null, detail: null })
    const { examples, score } = result as {
      examples: { repeat: number; pulls: ExamplesLine[] }
      score: ReliabilityScore
    }
    expect(examples.repeat).toBe(2)
    const pull12 = await world.forge.getPullRequest(REPO, 12)
    expect(examples.pulls.map(({ runs: _runs, ...line }) => line)).toEqual([
      {
        pr: 12,
        title: 'Change 12',
        url: pull12.htmlUrl,
        status: 'done',
        head_sha: pull12.headSha,
        expect: { datetime: 'no-match', 'no-ads': 'not-applicable' },
        detail: null,
      },
      expect.objectContaining({ pr: 31, status: 'done', expect: { datetime: 'match' } }),
    ])
    const pull31 = examples.pulls[1]
    expect(pull31?.runs.map((rows) => rows?.map((row) => [row.name, row.verdict, row.certainty]))).toEqual([
      [
        ['datetime', 'match', 95],
        ['no-ads', 'no-match', 97],
      ],
      [
        ['datetime', 'no-match', 85],
        ['no-ads', 'no-match', 97],
      ],
    ])

    expect(score.repeat).toBe(2)
    expect(score.unknown_labels).toEqual([
      { pr: 12, name: 'old-name' },
      { pr: 50, name: 'unrelated' },
    ])
    const [datetime, noAds] = score.classifications
    expect(datetime).toMatchObject({
      name: 'datetime',
      labelled: 2,
      answers: 4,
      agree: 1,
      disagree: 3,
      abstain: 0,
      false_pass: 2,
      false_block: 1,
      flips: 1,
      margin: 5,
    })
    expect(noAds).toMatchObject({ name: 'no-ads', labelled: 1, answers: 2, disagree: 2, false_pass: 0, false_block: 0 })

    // One record for the whole try-out, naming the labelled PRs it ran; nothing on the forge.
    expect(world.runs.records).toHaveLength(1)
    expect(world.runs.records[0]).toMatchObject({ id, trigger: 'try-out', outcome: 'done', labelled_prs: [12, 31] })
    expect(world.runs.records[0]?.pr).toBeUndefined()
    expect(world.forge.reviews(REPO, 12)).toEqual([])
  })

  it('shows no score while it runs, and scores a PR that could not be read as no answers', async () => {
    const world = worldWith({ [EXAMPLES_YML_PATH]: EXAMPLES.replace('pr: 31', 'pr: 99') })
    let release = (): void => undefined
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    await world.serve(async (request) => {
      await held
      return scripted(request)
    })
    const id = await startTryOut(world, examplesBody())
    const running = await readTryOut(world, id)
    expect(running).toMatchObject({ status: 'running', score: null })
    release()
    await world.tryOuts.idle()
    const result = await readTryOut(world, id)
    const { examples, score } = result as { examples: { pulls: ExamplesLine[] }; score: ReliabilityScore }
    expect(result.status).toBe('done')
    expect(examples.pulls[1]).toMatchObject({ pr: 99, status: 'failed', runs: [null], title: '' })
    expect(examples.pulls[1]?.detail).toContain("the pull request couldn't be read")
    expect(score.classifications[0]).toMatchObject({ labelled: 2, answers: 2, abstain: 1, false_pass: 1 })
  })

  it('answers 404 with no examples file and 422 for one that does not load or labels nothing posted', async () => {
    const none = worldWith({})
    await expectProblem(
      await none.app.handle(postTryOut(examplesBody())),
      404,
      /^acme\/widgets has no examples file on its default branch main: add /,
    )
    const broken = worldWith({ [EXAMPLES_YML_PATH]: EXAMPLES.replace('pr: 31', 'pr: 12') })
    const detail = await expectProblem(
      await broken.app.handle(postTryOut(examplesBody())),
      422,
      /^the examples file \.hyperhive\/review-classifier\.examples\.yml doesn't load: /,
    )
    expect(detail).toContain('PRs must be unique')
    const elsewhere = worldWith({ [EXAMPLES_YML_PATH]: EXAMPLES })
    await expectProblem(
      await elsewhere.app.handle(postTryOut(examplesBody({ classifications: [aClassification({ name: 'fresh' })] }))),
      422,
      /^no label in \.hyperhive\/review-classifier\.examples\.yml names a classification posted/,
    )
    for (const world of [none, broken, elsewhere]) {
      expect(world.requests).toEqual([])
      expect(world.runs.records).toEqual([])
    }
  })

  it('answers 400 for examples that is not true, or sent with pr', async () => {
    const world = worldWith({ [EXAMPLES_YML_PATH]: EXAMPLES })
    await expectProblem(await world.app.handle(postTryOut(examplesBody({ examples: 1 }))), 400, /examples must be true/)
    await expectProblem(
      await world.app.handle(postTryOut(examplesBody({ pr: 42 }))),
      400,
      /send one of pr \(one PR\), replay/,
    )
  })
})
