/**
 * Scoped and advisory rules end to end (issue 31): the controller and the
 * classifier as processes on the scripted model. A rule no changed file is
 * in scope of is never asked (no question reaches the model); a PR that
 * leaves every rule out of scope is approved with no model call at all; an
 * advisory rule's failure is shown, listed and never requests changes.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { RULES_YML_PATH } from '../../core/repo-files/rules-file.ts'
import { aNumberedPull, headOf } from '../support/builders.ts'
import { cleanUp } from '../support/cleanup.ts'
import type { Asked, ModelReply } from '../support/scripted-model.ts'
import { type ServiceWorld, startServiceWorld } from '../support/service-world.ts'

setDefaultTimeout(120_000)

const REPO = { owner: 'acme', name: 'scoped' }

const RULES = `classifications:
  - name: python
    description: All datetimes carry time zone information.
    polarity: positive
    threshold: 80
    paths: ["*.py", "!vendor/**"]
  - name: migrations
    description: Every new migration has a working down step.
    polarity: positive
    threshold: 80
    paths: ["db/migrations/**"]
  - name: style
    description: The change reads well.
    polarity: positive
    threshold: 80
    paths: ["*.py", "!vendor/"]
    mode: advisory
`

function fileDiff(path: string): string {
  return `diff --git a/${path} b/${path}\nindex 1111111..2222222 100644\n--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-a\n+b\n`
}

/** `style` fails, the others match. */
const SCRIPT = (asked: Asked): ModelReply =>
  asked.rule === 'style'
    ? { verdict: 'no-match', certainty: 90, reason: 'The names are unclear.' }
    : { verdict: 'match', certainty: 95, reason: 'It holds.' }

let world: ServiceWorld

beforeAll(async () => {
  world = await startServiceWorld({
    swarm: 'e2e-scope',
    repos: [
      {
        ...REPO,
        files: { [RULES_YML_PATH]: RULES },
        pulls: [
          aNumberedPull(1, { diff: fileDiff('app.py') }),
          aNumberedPull(2, { diff: fileDiff('README.md') + fileDiff('vendor/lib.py') }),
        ],
        collaborators: { 'review-classifier': 'write' },
      },
    ],
    controllerEnv: { RUN_TIMEOUT_S: '30' },
  })
  world.model.script(SCRIPT)
  await world.controller.waitForLine('review classifier service account token minted')
})

afterAll(async () => {
  await cleanUp(world === undefined ? null : () => world.stop())
})

describe('scoped and advisory rules in a review', () => {
  it('asks only the rules in scope; an advisory failure approves, listed under the table', async () => {
    await world.deliver(1, { repo: REPO.name })
    const [review] = await world.reviewsOf(1, { repo: REPO.name })
    expect(
      world.model.asked
        .filter((asked) => asked.pr === 1)
        .map((asked) => asked.rule)
        .sort(),
    ).toEqual(['python', 'style'])
    expect(world.model.asked.find((asked) => asked.rule === 'python')?.question).toContain('- "app.py"')
    expect(review).toMatchObject({ state: 'APPROVED', commitId: headOf(1) })
    expect(review?.body).toContain(
      '| migrations | positive | not applicable | — | 80 | no | No changed file matches its paths. |',
    )
    expect(review?.body).toContain('| style | positive, advisory | no match | 90 | 80 | yes 🟡 advisory |')
    expect(review?.body).toContain("advisory rules don't block")
    expect(review?.body).toContain('- style: The names are unclear.')
    const last = () => world.forge.statuses(REPO, headOf(1)).at(-1)
    await world.waitFor(() => last()?.state === 'success', 'the verdict status')
    expect([last()?.state, last()?.description]).toEqual([
      'success',
      "Approve: 1 advisory rule fails, advisory rules don't block (2 of 3 counted)",
    ])
    // The rows carry mode, in_scope and blocks in the run store (the runs API) and the log event alike.
    const wanted = [
      expect.objectContaining({ name: 'python', in_scope: true, mode: 'blocking', blocks: false }),
      expect.objectContaining({
        name: 'migrations',
        in_scope: false,
        mode: 'blocking',
        blocks: false,
        certainty: null,
      }),
      expect.objectContaining({ name: 'style', in_scope: true, mode: 'advisory', fails: true, blocks: false }),
    ]
    await world.runOf(1, { repo: REPO.name })
    const listed = (await (await fetch(`${world.base}/api/review-classifier/runs`)).json()) as Array<{
      pr: number
      repo: string
      rows?: unknown[]
    }>
    expect(listed.find((run) => run.pr === 1 && run.repo === 'acme/scoped')?.rows).toEqual(wanted)
    await world.waitFor(() => world.logged('review classifier run finished').some((entry) => entry.pr === 1), 'the log')
    const [finished] = world.logged('review classifier run finished').filter((entry) => entry.pr === 1)
    expect(JSON.parse(String(finished?.rows))).toEqual(wanted)
  })

  it('approves a PR that leaves every rule out of scope with no model call', async () => {
    const before = world.model.asked.length
    await world.deliver(2, { repo: REPO.name })
    const [review] = await world.reviewsOf(2, { repo: REPO.name })
    expect(world.model.asked.length).toBe(before)
    expect(review).toMatchObject({ state: 'APPROVED', commitId: headOf(2) })
    for (const rule of ['python', 'migrations', 'style']) {
      expect(review?.body).toContain(`| ${rule} |`)
    }
    expect(review?.body.match(/No changed file matches its paths\./g)).toHaveLength(3)
    expect((await world.runOf(2, { repo: REPO.name })).outcome).toBe('approved')
  })
})
