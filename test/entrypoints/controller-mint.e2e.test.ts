/**
 * A review requested while the service account's token is being minted, end
 * to end (test/support/service-world.ts, the classifier on the scripted
 * model): the fake forge holds the first provisioning pass's mint until the
 * test lets it go, a review is requested in that window, and it is posted
 * once the token arrives, pending before its verdict, with each rule asked
 * once. Then a mint the forge refuses: the review is recorded `post-failed`
 * and the log names the PR it left pending.
 */

import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { RULES_YML_PATH } from '../../core/repo-files/rules-file.ts'
import { RUN_FINISHED_MESSAGE } from '../../core/run/run-record.ts'
import { SERVICE_TOKEN } from '../../core/settings/service-account.ts'
import { LEFT_PENDING_MESSAGE } from '../../entrypoints/controller/usecases/review/review-run.ts'
import { PROVISION_MESSAGES } from '../../entrypoints/controller/usecases/settings/service-account.ts'
import { TOKEN_MINTING_DETAIL } from '../../entrypoints/controller/usecases/settings/service-token.ts'
import { aNumberedPull, headOf, TWO_RULES_YAML } from '../support/builders.ts'
import { cleanUp } from '../support/cleanup.ts'
import type { FakeForgejo, FakeHold } from '../support/fake-forgejo.ts'
import { type ServiceWorld, startServiceWorld } from '../support/service-world.ts'

setDefaultTimeout(120_000)

const REPO = { owner: 'acme', name: 'widgets' }
/** Forgejo below 16 mints a user's token over Basic auth at this route (docs/forgejo.md §3.14). */
const MINT_ROUTE = '/users/{username}/tokens'
const RULE_NAMES = ['datetime', 'no-ads'] as const
const PASS_FAILED = PROVISION_MESSAGES.passFailed

let world: ServiceWorld
let forge: FakeForgejo
let firstMint: FakeHold | undefined
let base = ''

const deliver = (pr: number) => world.deliver(pr)
const logged = (msg: string) => world.logged(msg)

/** How many times the model was asked `rule` for `pr`. */
function askedFor(pr: number, rule: string): number {
  return world.model.asked.filter((asked) => asked.pr === pr && asked.rule === rule).length
}

/** The run of `pr` as the controller logged it finished (the record's fields). */
async function recordedRun(pr: number): Promise<Record<string, unknown> | undefined> {
  const finished = () => logged(RUN_FINISHED_MESSAGE).find((entry) => entry.pr === pr)
  await world.waitFor(() => finished() !== undefined, `PR ${pr}'s run finished`, 60_000)
  return finished()
}

beforeAll(async () => {
  world = await startServiceWorld({
    swarm: 'e2e-mint',
    repos: [
      {
        ...REPO,
        files: { [RULES_YML_PATH]: TWO_RULES_YAML },
        pulls: [aNumberedPull(1), aNumberedPull(2)],
        collaborators: { 'review-classifier': 'write', alice: 'write' },
      },
    ],
    // The first provisioning pass creates the account, then waits at its mint until a test lets it go.
    beforeController: (fake) => {
      firstMint = fake.holdNext('POST', MINT_ROUTE)
    },
    controllerEnv: { RUN_TIMEOUT_S: '30' },
  })
  forge = world.forge
  base = world.base
})

afterAll(async () => {
  firstMint?.release()
  await cleanUp(world === undefined ? null : () => world.stop())
})

const tokenFile = () => join(world.secretsDir, SERVICE_TOKEN.secret.path, SERVICE_TOKEN.secret.field)

describe("a review requested while the service account's token is being minted", () => {
  it('runs at once and is posted once the token arrives, pending before success, each rule asked once', async () => {
    if (firstMint === undefined) throw new Error('the first mint was never held')
    await firstMint.reached
    expect(existsSync(tokenFile())).toBe(false)
    expect((await deliver(1)).status).toBe(202)
    // The run reads the PR and asks the model without the token; the classifier answers it.
    await world.waitFor(() => RULE_NAMES.every((rule) => askedFor(1, rule) >= 1), 'both rules of PR 1 asked', 60_000)
    await world.classifier?.waitForLine('review classifier run answered', 60_000)
    // Open-a-PR meanwhile answers 503 at once, saying when to try again.
    const openPr = await fetch(`${base}/api/review-classifier/open-pr`, {
      method: 'POST',
      headers: { 'Remote-User': 'alice', 'content-type': 'application/json' },
      body: JSON.stringify({
        repo: 'acme/widgets',
        classifications: [
          {
            name: 'changelog',
            description: 'The PR adds a line to CHANGELOG.md.',
            threshold: 60,
            polarity: 'positive',
          },
        ],
      }),
    })
    expect(openPr.status).toBe(503)
    expect(((await openPr.json()) as { detail: string }).detail).toBe(TOKEN_MINTING_DETAIL)
    // Nothing can be done as the account yet.
    expect(forge.reviews(REPO, 1)).toEqual([])
    expect(forge.statuses(REPO, headOf(1))).toEqual([])

    firstMint.release()
    const run = await recordedRun(1)
    const [review, ...more] = forge.reviews(REPO, 1)
    expect(more).toEqual([])
    expect(review).toMatchObject({ user: 'review-classifier', state: 'APPROVED', commitId: headOf(1) })
    expect(run).toMatchObject({ outcome: 'approved', review_url: review?.htmlUrl })
    expect(forge.statuses(REPO, headOf(1)).map((s) => [s.state, s.targetUrl])).toEqual([
      ['pending', `${forge.url}/acme/widgets/pulls/1`],
      ['success', review?.htmlUrl ?? 'no review'],
    ])
    expect(RULE_NAMES.map((rule) => askedFor(1, rule))).toEqual([1, 1])
    expect(logged(LEFT_PENDING_MESSAGE)).toEqual([])
  })

  it('records post-failed when the forge refuses the mint, and names the PR it left pending', async () => {
    // The token is lost from the store, and the forge will refuse the next mint.
    rmSync(tokenFile())
    forge.failNext('POST', MINT_ROUTE, { status: 403, body: { message: 'token creation refused' } })
    const minted = logged(PASS_FAILED).length
    expect((await deliver(2)).status).toBe(202)
    const run = await recordedRun(2)

    expect(run?.outcome).toBe('post-failed')
    expect(String(run?.detail)).toStartWith(
      "the review couldn't be posted: the service account's token couldn't be minted: the provisioning pass failed at mint-token",
    )
    expect(forge.reviews(REPO, 2)).toEqual([])
    expect(forge.statuses(REPO, headOf(2))).toEqual([])
    // The review's wait started one pass, and one only.
    expect(logged(PASS_FAILED).length - minted).toBe(1)
    expect(RULE_NAMES.map((rule) => askedFor(2, rule))).toEqual([1, 1])
    expect(logged(LEFT_PENDING_MESSAGE)).toEqual([
      expect.objectContaining({
        level: 'warn',
        repo: 'acme/widgets',
        pr: 2,
        head_sha: headOf(2),
        error: expect.stringContaining("the service account's token couldn't be minted"),
      }),
    ])
  })
})
