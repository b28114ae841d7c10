/**
 * What the pages show of the PR-comment commands (docs/behaviour.md,
 * "Waivers and labels"), in a real browser against the real processes: a
 * waiver's run on the runs page, on the PR's card, saying who waived which
 * rule and why; and the labels given in comments on the try-out page's
 * replay cells, beside the examples file's, marked as not yet in the file,
 * and listed by "open a PR". Screenshots go to test/artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { cleanUp } from '../support/cleanup.ts'
import { signedCommentDelivery } from '../support/comment-webhook.ts'
import { passingVerdict } from '../support/scripted-model.ts'
import { WEBHOOK_SECRET } from '../support/service-world.ts'
import { openTryOut, painted, replayWidgets } from '../support/try-out-page.ts'
import { REPO, startUiWorld, type UiWorld } from '../support/ui-world.ts'
import { waitFor } from '../support/waits.ts'

setDefaultTimeout(240_000)

const ARTIFACTS = join(import.meta.dir, '../artifacts')
mkdirSync(ARTIFACTS, { recursive: true })

const EXAMPLES = `examples:
  - pr: 4
    expect:
      datetime: match
`

let world: UiWorld

beforeAll(async () => {
  world = await startUiWorld({ examples: EXAMPLES })
})

afterAll(async () => {
  await cleanUp(world === undefined ? null : () => world.stop())
})

/** A comment by alice (a write collaborator) on `pr`, delivered signed to `/webhook/forge`; waits for its +1. */
async function aliceSays(pr: number, body: string): Promise<void> {
  const id = world.forge.addComment(REPO, pr, 'alice', body)
  const request = signedCommentDelivery(
    { secret: WEBHOOK_SECRET, url: `${world.controllerUrl}/webhook/forge` },
    { pr, commenter: 'alice', body, commentId: id, forgeUrl: world.forge.url },
  )
  expect((await fetch(request)).status).toBe(202)
  const reacted = () =>
    world.forge
      .comments(REPO, pr)
      .find((c) => c.id === id)
      ?.reactions.some((r) => r.content === '+1') ?? false
  await waitFor(reacted, `the +1 on alice's comment on #${pr}`)
}

describe('the pages and the PR-comment commands', () => {
  it("shows a waiver's run on the PR's card: who waived which rule, why, and that no model was asked", async () => {
    world.answer((rule, _description, pr) =>
      rule === 'datetime' && pr === 1
        ? { verdict: 'no-match', certainty: 95, reason: 'A timestamp has no zone.' }
        : passingVerdict(rule),
    )
    expect((await world.deliverReviewRequest(1)).status).toBe(202)
    await waitFor(() => world.forge.reviews(REPO, 1).length === 1, 'the review of #1')
    await aliceSays(1, '@review-classifier waive datetime: these <b>timestamps</b> come from the log as they are')
    await waitFor(() => world.forge.reviews(REPO, 1).length === 2, 'the waiver of #1')
    world.answer((rule) => passingVerdict(rule))

    const { page, errors } = await world.newPage(1280, 900)
    await page.goto(`${world.url}/ui/#runs`)
    const card = page.locator('.card', { hasText: 'waiver (no model asked)' })
    await card.waitFor()
    const text = (await card.textContent()) ?? ''
    expect(text).toContain('acme/widgets #1')
    expect(text).toContain('No rule fails.')
    expect(text).toContain('datetime waived by @alice on')
    expect(text).toContain('these <b>timestamps</b> come from the log as they are')
    expect(await card.locator('.card-waived b').count()).toBe(0)
    expect(text).toContain('Waived by')
    await card.locator('.card-toggle').click()
    expect(await card.locator('.card-rows').textContent()).toContain('yes, fails: waived by @alice')
    await painted(page)
    await page.screenshot({ path: join(ARTIFACTS, 'runs-waiver.png') })
    expect(errors).toEqual([])
  })

  it("puts the labels from PR comments on the replay's cells, marked as not yet in the file", async () => {
    await aliceSays(2, '@review-classifier label datetime no-match')
    await aliceSays(4, '@review-classifier label datetime not-applicable')
    const { page, errors } = await openTryOut(world, 1440, 900)
    await replayWidgets(page, 5)
    const cell2 = page.locator('table.grid tbody tr[data-pr="2"] td[data-label="datetime"]')
    await cell2.locator('.label-comment').waitFor()
    expect(await page.getByLabel('Label of #2 for datetime', { exact: true }).inputValue()).toBe('no-match')
    expect(await cell2.locator('.label-comment').textContent()).toBe('@alice, not yet in the file')
    const cell4 = page.locator('table.grid tbody tr[data-pr="4"] td[data-label="datetime"]')
    expect(await page.getByLabel('Label of #4 for datetime', { exact: true }).inputValue()).toBe('not-applicable')
    expect(await cell4.locator('.label-was').textContent()).toBe('file: match')
    expect(await cell4.locator('.label-comment').textContent()).toBe('@alice, not yet in the file')
    await painted(page)
    await page.screenshot({ path: join(ARTIFACTS, 'try-out-comment-labels.png') })
    // "Open a PR" writes them into the examples file with the page's labels.
    await page.click('#try-open-pr')
    const preview = page.locator('.open-pr-preview')
    await preview.locator('.open-pr-label-list li').first().waitFor()
    expect(await preview.locator('.open-pr-label-list li').allTextContents()).toEqual([
      '#2 (a new entry): datetime no match',
      '#4: datetime n.a. (was match)',
    ])
    expect(errors).toEqual([])
  })
})
