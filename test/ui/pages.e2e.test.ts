/**
 * The operator's pages in a real browser (Debian's chromium, driven by
 * playwright-core) against the controller and the classifier as real
 * processes, real NATS, the classifier's model scripted by the test, and a fake
 * Forgejo, reached through the launcher's identity proxy: every request
 * stays on 127.0.0.1. Screenshots of each page go to test/artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { createFixedClock } from '../../adapters/memory/clock.ts'
import { createMemoryForge } from '../../adapters/memory/forge.ts'
import { createSequenceIds } from '../../adapters/memory/ids.ts'
import { createMemoryKv } from '../../adapters/memory/kv.ts'
import { createRecordingLogger } from '../../adapters/memory/logger.ts'
import { createMemoryQueue } from '../../adapters/memory/queue.ts'
import { createMemorySecretStore } from '../../adapters/memory/secret-store.ts'
import type { RunRecord } from '../../core/run/run-record.ts'
import { createController } from '../../entrypoints/controller/service.ts'
import { cleanUp } from '../support/cleanup.ts'
import {
  attemptDone as attemptEnded,
  fillPull,
  loadRules,
  openTryOut as openBench,
  painted,
  replayWidgets,
} from '../support/try-out-page.ts'
import { type AnswerScript, DEFAULT_SCRIPT, startUiWorld, type UiWorld } from '../support/ui-world.ts'
import { expectNothingFor, ROOMY_DEADLINE_MS } from '../support/waits.ts'

setDefaultTimeout(240_000)

const ARTIFACTS = join(import.meta.dir, '../artifacts')
mkdirSync(ARTIFACTS, { recursive: true })

/** A model reason written to be rendered as markup, links, mentions and script if it ever were. */
const HOSTILE_REASON =
  '**bold** _it_ <script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> ' +
  '[[x|https://evil.example/]] [click](https://evil.example/) @alice @all see #12'

let flakyCalls = 0
const SCRIPT: AnswerScript = (rule, description, pr) => {
  if (rule === 'hostile') return { verdict: 'match', certainty: 88, reason: HOSTILE_REASON }
  if (rule === 'flaky') {
    flakyCalls += 1
    return flakyCalls % 2 === 1
      ? { verdict: 'match', certainty: 70, reason: 'It seems to hold.' }
      : { verdict: 'no-match', certainty: 65, reason: 'It seems not to hold.' }
  }
  if (rule === 'stable') return { verdict: 'match', certainty: 90, reason: 'It holds.' }
  if (description.startsWith('Strictly')) return { verdict: 'no-match', certainty: 60, reason: 'Not strictly.' }
  return DEFAULT_SCRIPT(rule, description, pr)
}

let world: UiWorld
let hostileId = ''

async function runs(base: string): Promise<RunRecord[]> {
  return (await (await fetch(`${base}/api/review-classifier/runs`)).json()) as RunRecord[]
}

async function untilRecorded(id: string): Promise<void> {
  const deadline = Date.now() + 60_000
  while (!(await runs(world.url)).some((run) => run.id === id)) {
    if (Date.now() > deadline) throw new Error(`run ${id} was never recorded`)
    await Bun.sleep(100)
  }
}

/** What a person reading the page sees nowhere: token counts, cache counts, cost. */
async function expectNoUsageShown(page: Page): Promise<void> {
  const text = String(await page.evaluate('document.body.innerText'))
  expect(text).not.toMatch(/\btokens?\b|\bcache\b|\bcost\b|\$\s?\d|usd/i)
}

async function shot(page: Page, name: string): Promise<void> {
  await painted(page)
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true })
}

/**
 * A smaller view for the README (copied from test/artifacts/ to docs/ by hand): 1200 wide, the whole page
 * with `selector` null, else 760 high from `selector` down.
 */
async function docShot(page: Page, name: string, selector: string | null): Promise<void> {
  const size = page.viewportSize()
  await page.setViewportSize({ width: 1200, height: 760 })
  if (selector !== null) {
    await page.evaluate(`document.querySelector(${JSON.stringify(selector)}).scrollIntoView({ block: 'start' })`)
  }
  await painted(page)
  await page.screenshot({ path: join(ARTIFACTS, `docs-${name}.png`), fullPage: selector === null })
  if (size !== null) await page.setViewportSize(size)
}

beforeAll(async () => {
  world = await startUiWorld()
  world.answer(SCRIPT)
  expect((await world.deliverReviewRequest(1)).status).toBe(202)
  hostileId = await world.postTryOut({
    repo: 'acme/widgets',
    pr: 2,
    classifications: [
      { name: 'hostile', description: 'The PR is fine.', threshold: 80, polarity: 'positive' },
      { name: 'no-ads', description: 'A commit message advertises an AI model.', threshold: 90, polarity: 'negative' },
    ],
  })
  await untilRecorded(hostileId)
  const deadline = Date.now() + 60_000
  while (!(await runs(world.url)).some((run) => run.trigger === 'review' && run.review_url !== undefined)) {
    if (Date.now() > deadline) throw new Error('the review run was never recorded')
    await Bun.sleep(100)
  }
})

afterAll(async () => {
  await cleanUp(world === undefined ? null : () => world.stop())
})

describe('recent runs', () => {
  it('loads from / with no console or page error, one card per run newest first, with the listed fields', async () => {
    const { page, errors } = await world.newPage()
    await page.goto(`${world.url}/`)
    expect(new URL(page.url()).pathname).toBe('/ui/')
    await page.waitForSelector('.card')
    const recorded = await runs(world.url)
    const ids = await page.$$eval('.card', (cards) => cards.map((card) => card.getAttribute('data-run-id')))
    expect(ids).toEqual(recorded.map((run) => run.id))

    const review = recorded.find((run) => run.trigger === 'review')
    const card = page.locator(`.card[data-run-id="${review?.id}"]`)
    const text = await card.textContent()
    for (const part of ['acme/widgets #1', 'approved', 'review request', 'Classifications', '2', 'alice', '0101010']) {
      expect(text).toContain(part)
    }
    expect(await card.locator('a', { hasText: 'the posted review' }).getAttribute('href')).toBe(
      review?.review_url ?? '',
    )
    expect(await card.locator('a', { hasText: '#1 on the forge' }).getAttribute('href')).toBe(
      `${world.forge.url}/acme/widgets/pulls/1`,
    )
    const tryOut = await page.locator(`.card[data-run-id="${hostileId}"]`).textContent()
    for (const part of ['acme/widgets #2', 'try-out done', 'try-out', 'ann', '0202020']) expect(tryOut).toContain(part)
    await expectNoUsageShown(page)
    await shot(page, 'runs-wide')
    await page.setViewportSize({ width: 390, height: 844 })
    await shot(page, 'runs-narrow')
    expect(errors).toEqual([])
    await page.close()
  })

  it('expands a card to its rows and folds it again from the keyboard', async () => {
    const { page, errors } = await world.newPage()
    await page.goto(`${world.url}/ui/`)
    const review = (await runs(world.url)).find((run) => run.trigger === 'review')
    const card = page.locator(`.card[data-run-id="${review?.id}"]`)
    const toggle = card.locator('.card-toggle')
    await toggle.focus()
    await page.keyboard.press('Enter')
    expect(await toggle.getAttribute('aria-expanded')).toBe('true')
    const rows = card.locator('table.rows tbody tr')
    await rows.first().waitFor()
    expect(await card.locator('table.rows thead th').allTextContents()).toEqual([
      'Classification',
      'Polarity',
      'Verdict',
      'Certainty',
      'Threshold',
      'Counted',
      'Reason',
    ])
    expect(await rows.count()).toBe(2)
    const first = await rows.nth(0).locator('th, td').allTextContents()
    expect(first).toEqual([
      'datetime',
      'positive',
      'match',
      '95',
      '80',
      'yes, passes',
      'Every timestamp the PR adds carries a zone.',
    ])
    expect(await rows.nth(1).locator('th, td').allTextContents()).toEqual([
      'no-ads',
      'negative',
      'no match',
      '97',
      '90',
      'yes, passes',
      'No commit message advertises anything.',
    ])
    await shot(page, 'runs-expanded')
    await docShot(page, 'runs', null)
    await page.keyboard.press('Space')
    expect(await toggle.getAttribute('aria-expanded')).toBe('false')
    expect(await card.locator('.card-rows').isHidden()).toBe(true)
    expect(errors).toEqual([])
    await page.close()
  })

  it('shows a reason full of markdown, script, links and mentions as literal text, and runs none of it', async () => {
    const { page, errors } = await world.newPage()
    await page.goto(`${world.url}/ui/`)
    const stored = (await runs(world.url)).find((run) => run.id === hostileId)?.rows?.[0]?.reason ?? ''
    expect(stored).toContain('<script>')
    const card = page.locator(`.card[data-run-id="${hostileId}"]`)
    await card.locator('.card-toggle').click()
    const reason = card.locator('td.reason').first()
    expect(await reason.textContent()).toBe(stored)
    expect(await reason.evaluate((cell) => cell.children.length)).toBe(0)
    expect(await page.evaluate('window.__pwned')).toBeUndefined()
    expect(await page.locator('main script, main img, main strong:has-text("bold")').count()).toBe(0)
    expect(await page.locator('a[href*="evil.example"]').count()).toBe(0)
    expect(errors).toEqual([])
    await page.close()
  })

  it('shows a new run without a reload', async () => {
    const { page, errors } = await world.newPage()
    await page.goto(`${world.url}/ui/`)
    await page.waitForSelector('.card')
    // A mark in the page's own state: a reload would lose it.
    await page.evaluate('window.__same = true')
    const id = await world.postTryOut({
      repo: 'acme/widgets',
      pr: 6,
      classifications: [
        { name: 'datetime', description: 'All datetimes carry zones.', threshold: 80, polarity: 'positive' },
      ],
    })
    await page.waitForSelector(`.card[data-run-id="${id}"]`, { timeout: ROOMY_DEADLINE_MS })
    expect(await page.$eval('.card', (card) => card.getAttribute('data-run-id'))).toBe(id)
    expect(await page.locator(`.card[data-run-id="${id}"] .badge--new`).count()).toBe(1)
    expect(await page.evaluate('window.__same')).toBe(true)
    expect(errors).toEqual([])
    await page.close()
  })

  it('filters by repo and outcome, and says when nothing matches', async () => {
    const { page, errors } = await world.newPage()
    await page.goto(`${world.url}/ui/`)
    await page.waitForSelector('.card')
    await page.selectOption('#runs-outcome', 'approved')
    const shown = page.locator('.card:visible')
    expect(await shown.count()).toBeGreaterThan(0)
    for (const badge of await shown.locator('.card-toggle .badge:not(.badge--new)').allTextContents()) {
      expect(badge).toBe('approved')
    }
    await page.selectOption('#runs-repo', 'acme/widgets')
    await page.selectOption('#runs-outcome', 'queue-full')
    await page.getByText('No run matches these filters.').waitFor()
    expect(await page.locator('.card:visible').count()).toBe(0)
    await page.getByRole('button', { name: 'Show every run' }).click()
    expect(await page.locator('.card:visible').count()).toBe((await runs(world.url)).length)
    expect(errors).toEqual([])
    await page.close()
  })

  it('says what is going on with no queue (the route’s 503 detail) and with no run yet', async () => {
    const servers: Array<ReturnType<typeof Bun.serve>> = []
    try {
      for (const connected of [false, true]) {
        const made = createController({
          forge: { api: createMemoryForge(), webUrl: 'https://forge.example', noreplyDomain: 'forge.example' },
          queue: { link: { connected: () => connected }, runQueue: createMemoryQueue(), buckets: createMemoryKv() },
          secrets: createMemorySecretStore(),
          clock: createFixedClock(),
          ids: createSequenceIds(),
          logger: createRecordingLogger(),
          webhookSecret: null,
          runTimeoutMs: 5_000,
          drainTimeoutMs: 1_000,
        })
        servers.push(Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => made.app.handle(request) }))
      }
      const [down, empty] = servers
      const { page } = await world.newPage()
      await page.goto(`http://127.0.0.1:${down?.port}/ui/`)
      const alert = page.getByRole('alert')
      await alert.waitFor()
      expect(await alert.textContent()).toContain('the swarm queue is not connected')
      await shot(page, 'runs-no-queue')
      await page.goto(`http://127.0.0.1:${empty?.port}/ui/`)
      await page.getByText('No runs yet.').waitFor()
      expect(await page.locator('.notice-slot .notice').textContent()).toContain(
        'requests review-classifier as a reviewer',
      )
      expect(await page.locator('.notice-slot a', { hasText: 'run a try-out' }).getAttribute('href')).toBe('#try-out')
      await page.close()
    } finally {
      await cleanUp(...servers.map((server) => () => server.stop(true)))
    }
  })
})

describe('try-out', () => {
  function openTryOut(width = 1440, height = 900) {
    return openBench(world, width, height)
  }

  /** The latest attempt once it has ended. */
  function attemptDone(page: Page, number: number) {
    return attemptEnded(page, number, true)
  }

  it('loads with no console or page error and suggests repos and PRs, still free text', async () => {
    const { page, errors } = await openTryOut()
    await waitForOptions(page, '#try-repo-list option', 2)
    expect(
      await page.$$eval('#try-repo-list option', (options) => options.map((o) => o.getAttribute('value'))),
    ).toEqual(['acme/gadgets', 'acme/widgets'])
    await page.fill('#try-repo', 'acme/widgets')
    await waitForOptions(page, '#try-pr-list option', 4)
    expect(await page.$$eval('#try-pr-list option', (options) => options.map((o) => o.getAttribute('value')))).toEqual([
      '6',
      '4',
      '2',
      '1',
    ])
    // The labels tie every field to its control.
    for (const id of [
      'try-repo',
      'try-pr',
      'try-repeat',
      'rule-1-name',
      'rule-1-description',
      'rule-1-threshold',
      'rule-1-polarity',
    ]) {
      expect(await page.locator(`label[for="${id}"]`).count()).toBe(1)
    }
    await expectNoUsageShown(page)
    expect(errors).toEqual([])
    await page.close()
  })

  it('shows the rules route’s 404 detail when the repo has no rules to load', async () => {
    const { page } = await openTryOut()
    await page.fill('#try-repo', 'acme/gadgets')
    await page.click('#load-rules')
    const refused = page.locator('#rules-status .notice--error')
    await refused.waitFor()
    expect(await refused.textContent()).toContain('No rules to load.')
    expect(await refused.textContent()).toContain('(404)')
    expect(await refused.textContent()).toContain('.hyperhive/review-classifier.yml')
    // The editor keeps what it had.
    expect(await page.locator('.entry').count()).toBe(1)
    await page.close()
  })

  it('says an answer out of the shape it reads is unreadable, and loads none of it', async () => {
    const { page, errors } = await openTryOut()
    // A controller of another build, as the page sees it: a 200 whose classifications aren't a list.
    await page.route('**/api/review-classifier/rules?*', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          path: '.hyperhive/review-classifier.yml',
          branch: 'main',
          commit: 'c0ffee',
          classifications: 'all',
        }),
      }),
    )
    await page.fill('#try-repo', 'acme/widgets')
    await page.click('#load-rules')
    const refused = page.locator('#rules-status .notice--error')
    await refused.waitFor()
    expect(await refused.textContent()).toContain("The rules can't be read.")
    expect(await refused.textContent()).toContain("isn't in the shape this page reads")
    expect(await page.locator('.entry').count()).toBe(1)
    expect(errors).toEqual([])
    await page.close()
  })

  it('runs the loaded rules on a PR and shows their rows; a second run keeps the first in the matrix, changes marked', async () => {
    const { page, errors } = await openTryOut()
    await fillPull(page, 5)
    await loadRules(page)
    expect(await page.locator('.entry').count()).toBe(2)
    await page.click('#try-run')
    const first = await attemptDone(page, 1)
    const rows = first.locator('table.rows tbody tr')
    expect(await rows.count()).toBe(2)
    expect(await rows.nth(0).locator('th').textContent()).toContain('datetime')
    expect(await rows.nth(0).locator('.verdict').textContent()).toBe('match')
    expect(await rows.nth(1).locator('.verdict').textContent()).toBe('no match')
    expect(await first.textContent()).toContain('Overall: would approve.')

    await page.locator('.entry .field--description textarea').first().fill('Strictly every datetime carries a zone.')
    await page.click('#try-run')
    const second = await attemptDone(page, 2)
    expect(await second.locator('table.rows tbody tr').nth(0).locator('.verdict').textContent()).toBe('no match')
    expect(await second.locator('.note--changed').allTextContents()).toEqual(['changed (was match)'])
    expect(await second.textContent()).toContain('Edited since attempt 1: datetime (description).')
    // The first attempt stays in view in the matrix of every attempt.
    const matrix = page.locator('.attempts-matrix tbody tr[data-rule="datetime"] td')
    expect(await matrix.allTextContents()).toEqual([
      'match 95, passespositive, threshold 80',
      expect.stringContaining('no match 60, uncounted'),
    ])
    await expectNoUsageShown(page)
    await shot(page, 'try-out-wide')
    await docShot(page, 'try-out', null)
    await page.setViewportSize({ width: 390, height: 844 })
    await shot(page, 'try-out-narrow')
    expect(errors).toEqual([])
    await page.close()
  })

  it('shows each row as soon as it has finished, the others still running', async () => {
    const { page, errors } = await openTryOut()
    await fillPull(page, 2)
    await loadRules(page)
    // One rule's answer is held until the page has shown the other's row, however fast or slow the
    // machine: the page must show a finished row while a classification is still running.
    const release = world.holdRule('no-ads')
    try {
      await page.click('#try-run')
      const attempt = page.locator('.attempt--latest[data-attempt="1"]')
      await attempt.locator('table.rows tbody tr:not(.row--pending)').first().waitFor({ timeout: ROOMY_DEADLINE_MS })
      expect(await attempt.locator('.row--pending').count()).toBe(1)
      expect(await attempt.locator('.status--running').textContent()).toContain('1 of 2 classifications finished')
      release()
      await attempt.locator('.status--done').waitFor({ timeout: ROOMY_DEADLINE_MS })
      expect(await attempt.locator('.row--pending').count()).toBe(0)
    } finally {
      release()
    }
    expect(errors).toEqual([])
    await page.close()
  })

  it('shows a threshold of 101, an empty name, a name used twice and an eleventh rule as errors, and sends nothing', async () => {
    const { page, errors } = await openTryOut()
    const posts: string[] = []
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url())
    })
    await fillPull(page, 4)
    await page.fill('#rule-1-name', 'datetime')
    await page.fill('#rule-1-description', 'All datetimes carry zones.')
    await page.fill('#rule-1-threshold', '101')
    await page.click('#try-run')
    const error = page.locator('#rule-1-threshold-error')
    expect(await error.textContent()).toBe('threshold must be a whole number 0–100, got 101 (a number)')
    expect(await page.getAttribute('#rule-1-threshold', 'aria-invalid')).toBe('true')
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('rule-1-threshold')
    expect(await page.locator('#try-action-status').textContent()).toContain('Nothing was sent')
    await expectNothingFor(() => posts.length > 0, 'a POST from the page', 300)

    await page.fill('#rule-1-threshold', '80')
    await page.click('#add-rule')
    await page.click('#try-run')
    expect(await page.locator('#rule-2-name-error').textContent()).toBe('name is empty')
    await page.fill('#rule-2-name', 'datetime')
    await page.fill('#rule-2-description', 'Again.')
    expect(await page.locator('#rule-2-name-error').textContent()).toBe(
      'the name is already used by classifications[0]; names must be unique',
    )
    for (let i = 0; i < 9; i += 1) await page.click('#add-rule')
    await page.click('#try-run')
    expect(await page.locator('#rules-list-error').textContent()).toContain(
      'has 11 classifications; at most 10 are allowed',
    )
    await page.click('#try-open-pr')
    await expectNothingFor(() => posts.length > 0, 'a POST from the page', 300)
    expect(posts).toEqual([])
    expect(errors).toEqual([])
    await page.close()
  })

  it('repeats each rule k times: a flip and "unstable" for the inconsistent rule, none for the stable one', async () => {
    const { page, errors } = await openTryOut()
    await fillPull(page, 4)
    await page.fill('#rule-1-name', 'flaky')
    await page.fill('#rule-1-description', 'The change is small.')
    // Its answers (match 70, no-match 65) count at 60, so they pass and fail the rule in turn: a flip of the
    // review. At the default 80 neither would count, and a verdict that changes uncounted is no flip.
    await page.fill('#rule-1-threshold', '60')
    await page.click('#add-rule')
    await page.fill('#rule-2-name', 'stable')
    await page.fill('#rule-2-description', 'The change has a commit message.')
    await page.fill('#try-repeat', '4')
    expect(await page.locator('#try-run').textContent()).toBe('Run 4 times')
    await page.click('#try-run')
    const attempt = await attemptDone(page, 1)
    const flaky = attempt.locator('tbody[data-rule="flaky"]')
    const stable = attempt.locator('tbody[data-rule="stable"]')
    expect(Number(await flaky.locator('td.flips').textContent())).toBeGreaterThan(0)
    expect(await flaky.locator('.badge--unstable').textContent()).toBe('unstable')
    expect(await flaky.textContent()).toMatch(/match ×2, no match ×2/)
    expect(await flaky.locator('.chips li').count()).toBe(4)
    expect(await flaky.textContent()).toContain('65 / 67.5 / 70')
    expect(await stable.locator('td.flips').textContent()).toBe('0')
    expect(await stable.locator('.badge--stable').textContent()).toBe('stable')
    expect(await stable.locator('.badge--unstable').count()).toBe(0)
    expect(await stable.textContent()).toContain('90 / 90 / 90')
    expect(await attempt.textContent()).toContain('1 rule unstable')
    await expectNoUsageShown(page)
    await shot(page, 'try-out-repeat')
    await docShot(page, 'try-out-repeat', '.actions')
    expect(errors).toEqual([])
    await page.close()
  })

  it('replays the rules on the repo’s last PRs: one line per open or merged PR, newest first', async () => {
    const { page, errors } = await openTryOut()
    const attempt = await replayWidgets(page, 10)
    expect(await page.locator('#try-run').textContent()).toBe('Replay the last 10 PRs')
    const lines = attempt.locator('table.grid tbody tr')
    // PR 3 was closed without merging; 5 was merged.
    expect(await lines.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-pr')))).toEqual([
      '6',
      '5',
      '4',
      '2',
      '1',
    ])
    expect(await attempt.locator('table.grid thead th').allTextContents()).toEqual([
      'Pull request',
      'datetime',
      'no-ads',
    ])
    const merged = lines.nth(1)
    expect(await merged.locator('a').getAttribute('href')).toBe(`${world.forge.url}/acme/widgets/pulls/5`)
    expect(await merged.textContent()).toContain('Change 5: merged last week')
    expect(await merged.locator('td').nth(0).textContent()).toContain('match 95')
    expect(await attempt.textContent()).toContain('5 PRs run.')
    await expectNoUsageShown(page)
    await shot(page, 'try-out-replay')
    await docShot(page, 'try-out-replay', '.actions')
    expect(errors).toEqual([])
    await page.close()
  })

  it('opens a PR with the editor’s classifications and shows the compare link, or what to do when refused', async () => {
    const { page } = await openTryOut()
    await page.fill('#try-repo', 'acme/widgets')
    await loadRules(page)
    // The rules as the repo holds them: nothing to add, which the route refuses (422) in words.
    await page.click('#try-open-pr')
    await page.click('#try-open-pr-push')
    const refused = page.locator('#open-pr-result .notice--error')
    await refused.waitFor()
    expect(await refused.textContent()).toContain("The repo's rules file can't take these classifications as they are.")
    expect(await refused.textContent()).toContain('(422)')

    await page
      .locator('.entry .field--description textarea')
      .first()
      .fill('Every datetime the PR adds carries time zone information.')
    await page.click('#try-open-pr')
    await page.click('#try-open-pr-push')
    const opened = page.locator('#open-pr-result .notice--ok')
    await opened.waitFor()
    const link = opened.locator('a')
    const href = (await link.getAttribute('href')) ?? ''
    expect(href).toStartWith(`${world.forge.url}/acme/widgets/compare/main...review-classifier/ann-`)
    expect(await link.textContent()).toBe(href)
    expect(await opened.textContent()).toContain('.hyperhive/review-classifier.yml')
    const pushed = world.forge.pushedCommits({ owner: 'acme', name: 'widgets' })
    expect(pushed.at(-1)?.author.name).toBe('Ann Operator')
    await shot(page, 'try-out-open-pr')
    await page.close()
  })
})

async function waitForOptions(page: Page, selector: string, count: number): Promise<void> {
  // Options of a datalist are never visible: wait for the last one to be in the page.
  await page
    .locator(selector)
    .nth(count - 1)
    .waitFor({ state: 'attached' })
}
