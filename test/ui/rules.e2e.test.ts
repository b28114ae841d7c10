/**
 * The Rules page in a real browser, against the controller and classifier
 * as processes (ui-world.ts): a week of reviews, waivers and fixes written
 * to the rule health bucket on the world's NATS with the test's clock (the
 * six days before today and today), one real review on top, and what the
 * page shows of it: counts, a bar per day, the flags in words, the links,
 * a rule no longer in the file, and, for a noisy blocking rule, the PR that
 * makes it advisory. Screenshots for the docs go to test/artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { createFixedClock } from '../../adapters/memory/clock.ts'
import { createRecordingLogger } from '../../adapters/memory/logger.ts'
import { connectNats, type NatsClient } from '../../adapters/nats/connection.ts'
import { createNatsKvBuckets } from '../../adapters/nats/kv.ts'
import type { RulesHealthView } from '../../core/review/rule-health-view.ts'
import type { RunRecord } from '../../core/run/run-record.ts'
import { createRuleHealthStore } from '../../entrypoints/controller/usecases/review/rule-health.ts'
import { aRow, aRunRecord } from '../support/builders.ts'
import { cleanUp } from '../support/cleanup.ts'
import { LOW_CONTRAST } from '../support/contrast.ts'
import { painted } from '../support/try-out-page.ts'
import { startUiWorld, type UiWorld } from '../support/ui-world.ts'

setDefaultTimeout(240_000)

const ARTIFACTS = join(import.meta.dir, '../artifacts')
mkdirSync(ARTIFACTS, { recursive: true })
const DAY_MS = 86_400_000

let world: UiWorld
let nats: NatsClient | undefined

const pass = (name: string) => aRow({ name, verdict: name === 'no-ads' ? 'no-match' : 'match', certainty: 95 })
const fail = (name: string) =>
  aRow({ name, verdict: name === 'no-ads' ? 'match' : 'no-match', certainty: 97, fails: true })

/**
 * Six days ago to yesterday: PRs 1–20, each reviewed once, `datetime` always holding; `no-ads`
 * violated on PRs 1–9, four of them waived, and PRs 1–2 fixed on a later head; `legacy`, since
 * dropped from the file, asked on the first day's PRs.
 */
async function writeWeek(): Promise<void> {
  nats = await connectNats({
    url: world.natsUrl,
    name: 'rules-e2e',
    firstConnectTimeoutMs: 10_000,
    logger: createRecordingLogger(),
  })
  const clock = createFixedClock(Date.now() - 6 * DAY_MS)
  const store = createRuleHealthStore({ buckets: createNatsKvBuckets(nats), clock, logger: createRecordingLogger() })
  const review = (id: string, pr: number, head: string, rows: RunRecord['rows']) =>
    store.recordRun(aRunRecord({ id, repo: 'acme/widgets', pr, head_sha: head, rows }))
  for (let day = 0; day < 6; day += 1) {
    for (let k = 0; k < 4 && day * 4 + k < 20; k += 1) {
      const pr = day * 4 + k + 1
      const rows = [pass('datetime'), pr <= 9 ? fail('no-ads') : pass('no-ads'), ...(day === 0 ? [pass('legacy')] : [])]
      await review(`week-${pr}`, pr, `head-${pr}`, rows)
    }
    if (day === 2) {
      for (const pr of [1, 2]) await review(`fix-${pr}`, pr, `fixed-${pr}`, [pass('datetime'), pass('no-ads')])
      for (const pr of [1, 3, 5, 7]) await store.recordWaiver({ repo: 'acme/widgets', rule: 'no-ads', pr })
    }
    clock.advance(DAY_MS)
  }
}

beforeAll(async () => {
  world = await startUiWorld()
  await writeWeek()
  // And one real review today, by the controller itself: both rules hold on PR 1.
  expect((await world.deliverReviewRequest(1)).status).toBe(202)
  const deadline = Date.now() + 60_000
  for (;;) {
    const runs = (await (await fetch(`${world.url}/api/review-classifier/runs`)).json()) as RunRecord[]
    if (runs.some((run) => run.trigger === 'review' && run.rows !== undefined)) break
    if (Date.now() > deadline) throw new Error('the review was never recorded')
    await Bun.sleep(100)
  }
})

afterAll(async () => {
  await cleanUp(nats === undefined ? null : () => nats?.close(1000), world === undefined ? null : () => world.stop())
})

async function openRules(width = 1280, height = 800): Promise<{ page: Page; errors: string[] }> {
  const opened = await world.newPage(width, height)
  await opened.page.goto(`${world.url}/ui/#rules?repo=acme/widgets`)
  await opened.page.locator('.rule-health[data-rule="no-ads"]').waitFor()
  return opened
}

const card = (page: Page, rule: string) => page.locator(`.rule-health[data-rule="${rule}"]`)

describe('the Rules page', () => {
  it("shows each rule's week: counts, a bar per day, flags in words, links, and a rule no longer in the file", async () => {
    const { page, errors } = await openRules()
    expect(await page.title()).toBe('Rules · review-classifier')
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe('Rules')
    expect(
      await page.locator('.rule-health').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-rule'))),
    ).toEqual(['datetime', 'no-ads', 'legacy'])
    const counts = (rule: string) =>
      card(page, rule)
        .locator('.health-count')
        .evaluateAll((nodes) =>
          nodes.map((n) => `${n.querySelector('dt')?.textContent} ${n.querySelector('dd')?.textContent}`),
        )
    expect(await counts('no-ads')).toEqual([
      'asked 23',
      'failed 9',
      'passed 14',
      'uncounted 0',
      'unanswered 0',
      'waived 4',
      'fixed 2',
    ])
    expect(await counts('datetime')).toEqual([
      'asked 23',
      'failed 0',
      'passed 23',
      'uncounted 0',
      'unanswered 0',
      'waived 0',
      'fixed 0',
    ])
    expect(await card(page, 'no-ads').locator('.health-flag').allTextContents()).toEqual([
      'Noisy: waived on 4 of 9 failures: consider making it advisory',
    ])
    expect(await card(page, 'datetime').locator('.health-flag').allTextContents()).toEqual([
      'Silent: asked on 20 PRs and never failed: check that it still asks something',
    ])
    expect(await card(page, 'legacy').locator('.badge').allTextContents()).toEqual(['no longer in the file'])
    expect(await card(page, 'legacy').locator('.health-flags-none').textContent()).toBe('No flags.')
    // Every rule in the file is blocking and asked about every file until rules say otherwise.
    expect(await card(page, 'no-ads').locator('.badge').allTextContents()).toEqual(['blocking', 'every file'])
    expect(await card(page, 'no-ads').locator('.day-bar').count()).toBe(30)
    const heights = await card(page, 'no-ads')
      .locator('.day-bar-asked')
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('style')))
    expect(heights.slice(-7)).toEqual(
      ['67%', '67%', '100%', '67%', '67%', '0%', '17%'].map((height) => `height: ${height};`),
    )
    // Its failing runs link to the runs page, newest first; the bench opens with the rule.
    const links = card(page, 'no-ads').locator('.rule-health-links a')
    expect(await links.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('href')))).toEqual([
      '#runs/week-9',
      '#runs/week-8',
      '#runs/week-7',
      '#runs/week-6',
      '#runs/week-5',
      '#try-out?repo=acme%2Fwidgets&rules=no-ads',
    ])
    expect(await card(page, 'no-ads').locator('.rule-health-links').textContent()).toContain('and 4 more')
    // Noisy, and blocking as a rule without a mode is: it is offered the switch to advisory.
    expect(await card(page, 'no-ads').locator('.make-advisory').count()).toBe(1)
    expect(await page.locator('#rules-health-status').textContent()).toContain(
      '2 rules in .hyperhive/review-classifier.yml on main, and 1 rule counted that is no longer in it; 2 flagged. Counts of the last 30 days (UTC)',
    )
    await card(page, 'no-ads').getByRole('link', { name: 'Try it out on the bench' }).click()
    await page.locator('.entry').first().waitFor()
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe('Try-out')
    expect(errors).toEqual([])
    await page.close()
  })

  it('says what is wrong with a repo it cannot show', async () => {
    const { page, errors } = await world.newPage(1280, 800)
    await page.goto(`${world.url}/ui/#rules?repo=acme/nope`)
    const alert = page.locator('.notice--error')
    await alert.waitFor()
    expect(await alert.textContent()).toContain('acme/nope has no rules this page can read.')
    await page.fill('#rules-repo', 'not a repo')
    await page.click('#rules-show')
    await page.locator('.notice--error', { hasText: 'That is not a repo as owner/name.' }).waitFor()
    expect(errors.filter((e) => !e.includes('404') && !e.includes('400'))).toEqual([])
    await page.close()
  })

  it('offers a noisy blocking rule a PR that makes it advisory, through the open-a-PR route', async () => {
    const { page, errors } = await world.newPage(1280, 800)
    // The world's rules file gives no mode or paths: the answer is the controller's, with them added.
    await page.route('**/api/review-classifier/rules/health?*', async (route) => {
      const answer = await route.fetch()
      const view = (await answer.json()) as RulesHealthView
      for (const rule of view.rules) {
        if (rule.name === 'no-ads') Object.assign(rule, { mode: 'blocking', paths: ['src/**', 'docs/**'] })
        if (rule.name === 'datetime') Object.assign(rule, { mode: 'advisory' })
      }
      await route.fulfill({ response: answer, json: view })
    })
    const sent: unknown[] = []
    await page.route('**/api/review-classifier/open-pr', async (route) => {
      sent.push(route.request().postDataJSON())
      await route.fulfill({
        json: {
          branch: 'review-classifier/ann-0a1b2c3d',
          path: '.hyperhive/review-classifier.yml',
          compare_url: `${world.url}/compare`,
        },
      })
    })
    await page.goto(`${world.url}/ui/#rules?repo=acme/widgets`)
    await card(page, 'no-ads').waitFor()
    expect(await card(page, 'no-ads').locator('.badge').allTextContents()).toEqual([
      'blocking',
      'paths src/**, docs/**',
    ])
    expect(await card(page, 'datetime').locator('.badge').allTextContents()).toEqual(['advisory', 'every file'])
    expect(await card(page, 'datetime').locator('.make-advisory').count()).toBe(0)
    await card(page, 'no-ads').locator('.make-advisory').click()
    await card(page, 'no-ads').getByText('The branch changes only no-ads').waitFor()
    expect(sent).toEqual([])
    await card(page, 'no-ads').getByRole('button', { name: 'Push the branch' }).click()
    await card(page, 'no-ads').getByText('Branch pushed.').waitFor()
    expect(sent).toEqual([
      {
        repo: 'acme/widgets',
        classifications: [
          {
            name: 'no-ads',
            description: 'A commit message advertises an AI model.',
            threshold: 90,
            polarity: 'negative',
            paths: ['src/**', 'docs/**'],
            mode: 'advisory',
          },
        ],
      },
    ])
    expect(errors).toEqual([])
    await page.close()
  })

  it("keeps the runs page's status line to the runs its filters show", async () => {
    const { page, errors } = await world.newPage(1280, 800)
    await page.goto(`${world.url}/ui/#runs?outcome=changes-requested`)
    const status = page.locator('#runs-status')
    // A locator waits in the page without eval, which the page's CSP forbids.
    await page.locator('#runs-status', { hasText: /^None of/ }).waitFor()
    expect(await status.textContent()).toBe(
      'None of 1 run shown: the filters hide them all. The list refreshes every 5 s.',
    )
    await page.selectOption('#runs-outcome', 'approved')
    await page.locator('#runs-status', { hasText: /^1 run,/ }).waitFor()
    expect(await status.textContent()).toBe(
      '1 run, newest first. The newest is acme/widgets #1. The list refreshes every 5 s.',
    )
    expect(errors).toEqual([])
    await page.close()
  })

  it('meets WCAG AA contrast in light and dark, and takes the pictures: laptop and phone', async () => {
    const { page, errors } = await openRules()
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await page.setViewportSize({ width: 1280, height: 800 })
      await page.evaluate('window.scrollTo(0, 0)')
      await painted(page)
      expect({ scheme, low: await page.evaluate(LOW_CONTRAST) }).toEqual({ scheme, low: [] })
      await page.screenshot({ path: join(ARTIFACTS, `docs-rules-${scheme}-laptop.png`) })
      await page.setViewportSize({ width: 390, height: 844 })
      await page.evaluate('window.scrollTo(0, 0)')
      await painted(page)
      await page.screenshot({ path: join(ARTIFACTS, `docs-rules-${scheme}-phone.png`) })
    }
    expect(errors).toEqual([])
    await page.close()
  })
})
