/**
 * The try-out page against the repo's labelled PRs (issue 20), in a real
 * browser against the real processes as bench.e2e.test.ts runs them: the
 * third "Run against" choice, each rule's reliability card in words, the
 * what-if slider judging the answers again in the page with no request,
 * and the words of a repo with no examples file. The card's screenshot for
 * the README goes to test/artifacts/ (copied to docs/ by hand, after a look).
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { cleanUp } from '../support/cleanup.ts'
import { attemptDone, loadRules, openTryOut } from '../support/try-out-page.ts'
import { type AnswerScript, DEFAULT_SCRIPT, startUiWorld, type UiWorld } from '../support/ui-world.ts'
import { expectNothingFor } from '../support/waits.ts'

setDefaultTimeout(240_000)

const ARTIFACTS = join(import.meta.dir, '../artifacts')
mkdirSync(ARTIFACTS, { recursive: true })

// datetime (positive, threshold 80) should say no-match on PR 2, and says match at 85: a false pass
// at 80 that a threshold over 85 leaves uncounted.
const EXAMPLES = `examples:
  - pr: 1
    expect:
      datetime: match
      no-ads: no-match
  - pr: 2
    expect:
      datetime: no-match
    note: Adds a naive datetime.
  - pr: 4
    expect:
      datetime: match
      no-ads: not-applicable
`

const SCRIPT: AnswerScript = (rule, description, pr) => {
  if (rule === 'datetime' && pr === 2) return { verdict: 'match', certainty: 85, reason: 'Looks zoned.' }
  return DEFAULT_SCRIPT(rule, description, pr)
}

let world: UiWorld

beforeAll(async () => {
  world = await startUiWorld({ examples: EXAMPLES })
  world.answer(SCRIPT)
})

afterAll(async () => {
  await cleanUp(world === undefined ? null : () => world.stop())
})

/** Every request the page sends to the try-out route, a POST or a GET. */
function tryOutRequests(page: Page): string[] {
  const seen: string[] = []
  page.on('request', (request) => {
    if (request.url().includes('/api/review-classifier/try-out')) seen.push(`${request.method()} ${request.url()}`)
  })
  return seen
}

async function scoreWidgets(page: Page) {
  await page.fill('#try-repo', 'acme/widgets')
  await loadRules(page)
  await page.check('#try-mode-examples')
  expect(await page.textContent('#try-run')).toBe('Score against the labelled PRs')
  await page.click('#try-run')
  return await attemptDone(page, 1)
}

describe("the try-out page against the repo's labelled PRs", () => {
  it('runs the third choice and shows one card per rule in words, and one line per labelled PR', async () => {
    const { page, errors } = await openTryOut(world, 1280, 900)
    const requests = tryOutRequests(page)
    const attempt = await scoreWidgets(page)
    const post = requests.find((request) => request.startsWith('POST'))
    expect(post).toBeDefined()
    expect(await attempt.locator('.attempt-status').textContent()).toContain(
      'Scored on 3 labelled PRs; 1 rule with a false pass.',
    )
    const datetime = attempt.locator('.reliability-card[data-rule="datetime"]')
    expect(await datetime.locator('.card-verdict').textContent()).toBe(
      '1 false pass at threshold 80: 2 of 3 answers on 3 labelled PRs agree with the label.',
    )
    const counts = await datetime.locator('.card-count').allTextContents()
    expect(counts).toEqual([
      'Agree2',
      'Disagree1',
      'Abstain0',
      'False passes1',
      'False blocks0',
      'Flips0 of 3 PRs changed outcome between repeats',
      'Margin5 (the closest counted answer is 5 over the threshold)',
      'Suggested threshold86',
    ])
    expect(await datetime.locator('.card-disagreed li').allTextContents()).toEqual([
      '#2 Change 2: timestamps in module 2: labelled no match, answered match 85, a false pass',
    ])
    const noAds = attempt.locator('.reliability-card[data-rule="no-ads"]')
    expect(await noAds.locator('.card-verdict').textContent()).toStartWith('No false pass at threshold 90')
    const lines = attempt.locator('table.examples-lines tbody tr')
    expect(await lines.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-pr')))).toEqual(['1', '2', '4'])
    expect(await lines.locator('.examples-status').allTextContents()).toEqual(['done', 'done', 'done'])
    expect(await lines.nth(1).locator('li').textContent()).toBe('datetime: labelled no match; answered match 85')
    expect(errors).toEqual([])
    await page.close()
  })

  it('judges the card again at a what-if threshold in the page, with no request to the try-out route', async () => {
    const { page, errors } = await openTryOut(world, 1280, 900)
    const attempt = await scoreWidgets(page)
    const requests = tryOutRequests(page)
    const datetime = attempt.locator('.reliability-card[data-rule="datetime"]')
    const slider = datetime.getByLabel('What-if threshold')
    expect(await slider.getAttribute('type')).toBe('range')
    expect(await slider.inputValue()).toBe('80')
    await slider.fill('90')
    expect(await datetime.locator('.what-if-value').textContent()).toBe('90')
    expect(await datetime.locator('.card-verdict').textContent()).toBe(
      'No false pass at threshold 90 (what-if; its own is 80): 2 of 3 answers on 3 labelled PRs agree with the label.',
    )
    expect(await datetime.locator('.card-count--abstain dd').textContent()).toBe('1')
    expect(await datetime.locator('.card-agreed').textContent()).toBe('Disagreed on no labelled PR.')
    expect(await slider.getAttribute('aria-valuetext')).toBe('90: 2 agree, 0 disagree, 1 abstain, 0 false passes')
    // The keyboard moves it too: down from 90 past 85 brings the false pass back at 85.
    await slider.focus()
    for (let i = 0; i < 5; i += 1) await page.keyboard.press('ArrowLeft')
    expect(await datetime.locator('.what-if-value').textContent()).toBe('85')
    expect(await datetime.locator('.card-count--false-pass dd').textContent()).toBe('1')
    expect(await page.evaluate('document.activeElement.type')).toBe('range')
    await expectNothingFor(() => requests.length > 0, 'a request to the try-out route', 300)
    expect(requests).toEqual([])
    expect(errors).toEqual([])
    await page.close()
  })

  it('takes the README screenshot of a card at laptop width, light', async () => {
    const { page, errors } = await openTryOut(world, 1280, 900)
    await page.emulateMedia({ colorScheme: 'light' })
    const attempt = await scoreWidgets(page)
    const cards = attempt.locator('.reliability-cards')
    await cards.scrollIntoViewIfNeeded()
    await cards.screenshot({ path: join(ARTIFACTS, 'docs-ui-reliability-card.png') })
    expect(errors).toEqual([])
    await page.close()
  })

  it("says the 404's words for a repo with no examples file, and starts nothing", async () => {
    const { page, errors } = await openTryOut(world, 1280, 900)
    await page.fill('#try-repo', 'acme/widgets')
    await page.click('#load-rules')
    await page.locator('#rules-status .ok').waitFor()
    await page.fill('#try-repo', 'acme/gadgets')
    await page.check('#try-mode-examples')
    await page.click('#try-run')
    const note = page.locator('#try-action-status')
    await note.getByText('has no examples file').waitFor()
    expect(await note.textContent()).toContain('The try-out was not started.')
    expect(await note.textContent()).toContain(
      'acme/gadgets has no examples file on its default branch main: add .hyperhive/review-classifier.examples.yml',
    )
    expect(await page.locator('.attempt').count()).toBe(0)
    // The browser logs the refused POST itself; nothing else went wrong.
    expect(errors).toEqual(['console: Failed to load resource: the server responded with a status of 404 (Not Found)'])
    await page.close()
  })
})
