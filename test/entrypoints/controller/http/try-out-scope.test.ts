/**
 * A try-out with rules out of the PR's scope (issue 31), through the
 * controller app: a run whose every rule is out of scope sends no run request
 * at all (so no model call), in one PR, a repeat and against the labelled
 * examples, where such a PR is the rule's not-applicable answer.
 */
import { describe, expect, it } from 'bun:test'
import { EXAMPLES_YML_PATH } from '../../../../core/repo-files/examples-file.ts'
import { RULES_YML_PATH } from '../../../../core/repo-files/rules-file.ts'
import type { RecordedRow, ReliabilityScore, RunRequest } from '../../../../core/wire/types.ts'
import { aClassification, aNumberedPull, aSeedRepo } from '../../../support/builders.ts'
import { answeredRow } from '../review-world.ts'
import { aTryOutBody, createTryOutWorld, readTryOut, startTryOut, type TryOutWorld } from '../try-out-world.ts'

const EXAMPLES = `examples:
  - pr: 12
    expect:
      docs: not-applicable
  - pr: 31
    expect:
      docs: match
`

function world(): TryOutWorld {
  const rules = aSeedRepo().files?.[RULES_YML_PATH] ?? ''
  return createTryOutWorld({
    seed: {
      users: [{ login: 'review-classifier' }],
      repos: [
        aSeedRepo({
          files: { [RULES_YML_PATH]: rules, [EXAMPLES_YML_PATH]: EXAMPLES },
          pulls: [aNumberedPull(12), aNumberedPull(31)],
        }),
      ],
    },
  })
}

const answerAll = (request: RunRequest) => ({
  id: request.id,
  ok: true,
  rows: request.classifications.map((rule) => answeredRow(request, rule.name)),
  overall: 'approve' as const,
})

/** A rule about the docs: the seeded PRs change app.py only. */
const DOCS = aClassification({ name: 'docs', description: 'The docs say what changed.', paths: ['docs/**', '*.md'] })

async function finished(w: TryOutWorld, body: unknown) {
  const id = await startTryOut(w, body)
  await w.tryOuts.idle()
  return readTryOut(w, id)
}

describe('a try-out with rules out of scope', () => {
  it('sends nothing for a PR with every rule out of scope, once, repeated or replayed, and shows the rows', async () => {
    const w = world()
    await w.serve(answerAll)
    const once = await finished(w, aTryOutBody({ pr: 12, classifications: [DOCS] }))
    expect(once).toMatchObject({ status: 'done', overall: 'approve' })
    expect(once.rows).toEqual([
      expect.objectContaining({ name: 'docs', verdict: 'not-applicable', certainty: null, in_scope: false }),
    ])
    const repeated = await finished(w, aTryOutBody({ pr: 12, classifications: [DOCS], repeat: 3 }))
    expect(repeated.status).toBe('done')
    const replayed = await finished(w, aTryOutBody({ pr: undefined, replay: 2, classifications: [DOCS] }))
    expect(replayed.status).toBe('done')
    const { replay } = replayed as { replay: { pulls: { status: string }[] } }
    expect(replay.pulls.map((line) => line.status)).toEqual(['done', 'done'])
    expect(w.requests).toEqual([])
  })

  it('sends only the rules in scope when some are', async () => {
    const w = world()
    await w.serve(answerAll)
    const result = await finished(w, aTryOutBody({ pr: 12, classifications: [aClassification(), DOCS] }))
    const rows = result.rows as RecordedRow[]
    expect(rows.map((row) => [row.name, row.in_scope])).toEqual([
      ['datetime', true],
      ['docs', false],
    ])
    expect(w.requests).toHaveLength(1)
  })

  it("scores a labelled PR out of the rule's scope as its not-applicable answer, with no model call", async () => {
    const w = world()
    await w.serve(answerAll)
    const result = await finished(w, aTryOutBody({ pr: undefined, examples: true, classifications: [DOCS] }))
    expect(w.requests).toEqual([])
    const { score } = result as { score: ReliabilityScore }
    expect(score.classifications[0]).toMatchObject({ name: 'docs', labelled: 2, answers: 2, abstain: 2, agree: 0 })
  })
})
