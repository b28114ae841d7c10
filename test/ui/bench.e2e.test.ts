/**
 * The try-out bench, round two (issue 21), in a real browser against the
 * real processes as pages.e2e.test.ts runs them: the layout and the
 * keyboard, what survives a reload, the accessibility points, and the
 * marks and words an author reads. Screenshots for the README go to
 * test/artifacts/ (copied to docs/ by hand, after a look).
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { cleanUp } from '../support/cleanup.ts'
import { LOW_CONTRAST } from '../support/contrast.ts'
import {
  attemptDone,
  fillPull,
  loadRules,
  openTryOut as openBench,
  painted,
  postsOf,
  replayWidgets,
} from '../support/try-out-page.ts'
import { type AnswerScript, DEFAULT_SCRIPT, startUiWorld, type UiWorld } from '../support/ui-world.ts'
import { expectNothingFor, ROOMY_DEADLINE_MS } from '../support/waits.ts'

setDefaultTimeout(240_000)

const ARTIFACTS = join(import.meta.dir, '../artifacts')
mkdirSync(ARTIFACTS, { recursive: true })

const SCRIPT: AnswerScript = (rule, description, pr) => {
  // The certainty falls below datetime's threshold of 80 when the description says "Strictly".
  if (description.startsWith('Strictly')) return { verdict: 'match', certainty: 60, reason: 'Only loosely.' }
  return DEFAULT_SCRIPT(rule, description, pr)
}

let world: UiWorld

beforeAll(async () => {
  world = await startUiWorld()
  world.answer(SCRIPT)
})

afterAll(async () => {
  await cleanUp(world === undefined ? null : () => world.stop())
})

function openTryOut(width = 1280, height = 800) {
  return openBench(world, width, height)
}

describe('the bench at a laptop and on a phone', () => {
  it('puts the editor and the results side by side at 1280 px, and stacks them at phone width', async () => {
    const { page, errors } = await openTryOut(1280, 800)
    const form = (await page.locator('.try-form').boundingBox()) ?? { x: 0, y: 0, width: 0, height: 0 }
    const results = (await page.locator('.results').boundingBox()) ?? { x: 0, y: 0, width: 0, height: 0 }
    expect(results.x).toBeGreaterThanOrEqual(form.x + form.width)
    expect(Math.abs(results.y - form.y)).toBeLessThan(40)
    await page.setViewportSize({ width: 390, height: 844 })
    await painted(page)
    const narrowForm = (await page.locator('.try-form').boundingBox()) ?? { x: 0, y: 0, width: 0, height: 0 }
    const narrowResults = (await page.locator('.results').boundingBox()) ?? { x: 0, y: 0, width: 0, height: 0 }
    expect(narrowResults.y).toBeGreaterThanOrEqual(narrowForm.y + narrowForm.height)
    expect(errors).toEqual([])
    await page.close()
  })

  it('keeps the Run bar in view while the editor scrolls', async () => {
    const { page, errors } = await openTryOut(1280, 700)
    await page.fill('#try-repo', 'acme/widgets')
    await loadRules(page)
    for (let i = 0; i < 4; i += 1) await page.click('#add-rule')
    await page.evaluate('window.scrollTo(0, 0)')
    await painted(page)
    const run = (await page.locator('#try-run').boundingBox()) ?? { x: 0, y: 9999, width: 0, height: 0 }
    expect(run.y + run.height).toBeLessThanOrEqual(700)
    expect(run.y).toBeGreaterThanOrEqual(0)
    expect(errors).toEqual([])
    await page.close()
  })

  it('runs on Ctrl+Enter, and Enter in a name or threshold field sends nothing', async () => {
    const { page, errors } = await openTryOut()
    const posts = postsOf(page)
    await page.fill('#try-repo', 'acme/widgets')
    await page.fill('#try-pr', '4')
    await loadRules(page)
    for (const field of ['.field--name input', '.field--threshold input', '#try-pr', '#try-repeat']) {
      await page.locator(field).first().focus()
      await page.keyboard.press('Enter')
    }
    await expectNothingFor(() => posts.length > 0, 'a POST on a plain Enter', 500)
    expect(await page.locator('.attempt').count()).toBe(0)
    await page.locator('.entry .field--description textarea').first().focus()
    await page.keyboard.press('Control+Enter')
    await attemptDone(page, 1)
    expect(posts.filter((url) => url.endsWith('/api/review-classifier/try-out'))).toHaveLength(1)
    // A newline was not typed into the description by the shortcut.
    expect(await page.locator('.entry .field--description textarea').first().inputValue()).not.toContain('\n')
    expect(await page.getAttribute('#try-run', 'aria-keyshortcuts')).toContain('Control+Enter')
    expect(errors).toEqual([])
    await page.close()
  })
})

describe('accessibility', () => {
  it('says nothing new in the runs page’s status while the list refreshes unchanged', async () => {
    const id = await world.postTryOut({
      repo: 'acme/widgets',
      pr: 1,
      classifications: [
        { name: 'datetime', description: 'All datetimes carry zones.', threshold: 80, polarity: 'positive' },
      ],
    })
    const { page, errors } = await world.newPage()
    await page.goto(`${world.url}/ui/#runs`)
    await page.waitForSelector(`.card[data-run-id="${id}"]`, { timeout: ROOMY_DEADLINE_MS })
    await page.evaluate(`(() => {
      window.__said = []
      new MutationObserver(() => window.__said.push(document.getElementById('runs-status').textContent))
        .observe(document.getElementById('runs-status'), { childList: true, characterData: true, subtree: true })
    })()`)
    // Two refreshes of the list, each read and shown.
    for (let i = 0; i < 2; i += 1) {
      await page.waitForResponse((response) => response.url().endsWith('/api/review-classifier/runs'), {
        timeout: 30_000,
      })
      await painted(page)
    }
    expect(await page.evaluate('window.__said')).toEqual([])
    expect(await page.locator('#runs-status').textContent()).not.toContain('Updated')
    expect(errors).toEqual([])
    await page.close()
  })

  it('announces an attempt’s end once and keeps the focus inside an attempt patched while it runs', async () => {
    const { page, errors } = await openTryOut()
    await page.fill('#try-repo', 'acme/widgets')
    await page.fill('#try-pr', '2')
    await loadRules(page)
    await page.evaluate(`(() => {
      window.__announced = []
      new MutationObserver(() => window.__announced.push(document.getElementById('attempt-announcer').textContent))
        .observe(document.getElementById('attempt-announcer'), { childList: true, characterData: true, subtree: true })
    })()`)
    const release = world.holdRule('no-ads')
    try {
      await page.click('#try-run')
      const attempt = page.locator('.attempt[data-attempt="1"]')
      await attempt.locator('table.rows tbody tr:not(.row--pending)').first().waitFor({ timeout: ROOMY_DEADLINE_MS })
      const link = attempt.locator('.attempt-target a').first()
      await link.focus()
      await link.evaluate((node) => {
        Object.assign(node, { __mark: true })
      })
      release()
      await attempt.locator('.status--done').waitFor({ timeout: ROOMY_DEADLINE_MS })
    } finally {
      release()
    }
    expect(await page.evaluate('document.activeElement.__mark === true && document.activeElement.isConnected')).toBe(
      true,
    )
    expect(await page.evaluate('window.__announced')).toEqual(['Attempt 1 done: would approve.'])
    expect(await page.locator('.attempt [role="alert"], .attempt [role="status"]').count()).toBe(0)
    expect(errors).toEqual([])
    await page.close()
  })

  it('tabs from a description through its paths and mode to its Remove, and rings the focus in another colour than the warnings', async () => {
    const { page, errors } = await openTryOut()
    await page.locator('.entry .field--description textarea').first().focus()
    await page.keyboard.press('Tab')
    expect(await page.evaluate('document.activeElement.id')).toBe('rule-1-paths')
    await page.keyboard.press('Tab')
    expect(await page.evaluate('document.activeElement.id')).toBe('rule-1-mode')
    await page.keyboard.press('Tab')
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Remove')
    const colours = await page.evaluate(`(() => {
      const ring = getComputedStyle(document.activeElement).outlineColor
      const probe = document.createElement('span')
      probe.style.color = 'var(--warn)'
      document.body.append(probe)
      const warn = getComputedStyle(probe).color
      probe.remove()
      return { ring, warn }
    })()`)
    const { ring, warn } = colours as { ring: string; warn: string }
    expect(ring).not.toBe(warn)
    expect(ring).not.toBe('rgb(194, 65, 12)')
    expect(errors).toEqual([])
    await page.close()
  })
})

describe('keeping the work', () => {
  it('keeps the draft and the attempts across a reload', async () => {
    const { page, errors } = await openTryOut()
    await page.fill('#try-repo', 'acme/widgets')
    await page.fill('#try-pr', '4')
    await loadRules(page)
    await page.click('#try-run')
    await attemptDone(page, 1)
    await page.locator('.entry .field--description textarea').first().fill('Strictly every datetime carries a zone.')
    await page.reload()
    await page.locator('#try-repo').waitFor()
    expect(await page.inputValue('#try-repo')).toBe('acme/widgets')
    expect(await page.inputValue('#try-pr')).toBe('4')
    expect(await page.locator('.entry .field--description textarea').first().inputValue()).toBe(
      'Strictly every datetime carries a zone.',
    )
    expect(await page.locator('.entry').count()).toBe(2)
    const kept = page.locator('.attempt[data-attempt="1"]')
    await kept.locator('.status--done').waitFor()
    expect(await kept.locator('table.rows tbody tr').count()).toBe(2)
    // A kept attempt that had ended is not announced again.
    expect(await page.locator('#attempt-announcer').textContent()).toBe('')
    expect(errors).toEqual([])
    await page.close()
  })

  it("asks before the repo's rules replace a changed draft, and keeps it when told to", async () => {
    const { page, errors } = await openTryOut()
    await page.fill('#try-repo', 'acme/widgets')
    await loadRules(page)
    await page.locator('.entry .field--description textarea').first().fill('My own words.')
    const gets: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('/api/review-classifier/rules')) gets.push(request.url())
    })
    await page.click('#load-rules')
    const ask = page.getByRole('alertdialog')
    expect(await ask.textContent()).toContain('Your draft has changes.')
    expect(await page.evaluate('document.activeElement.id')).toBe('load-rules-keep')
    await page.keyboard.press('Enter')
    expect(await page.locator('.entry .field--description textarea').first().inputValue()).toBe('My own words.')
    expect(gets).toEqual([])
    await page.click('#load-rules')
    await page.click('#load-rules-replace')
    await page.locator('#rules-status .ok').waitFor()
    expect(await page.locator('.entry .field--description textarea').first().inputValue()).toBe(
      'All datetimes carry time zone information.',
    )
    expect(errors).toEqual([])
    await page.close()
  })

  it('shows the YAML the PR will write before pushing, and says the draft changed since its run', async () => {
    const { page, errors } = await openTryOut()
    const posts = postsOf(page)
    await page.fill('#try-repo', 'acme/widgets')
    await page.fill('#try-pr', '4')
    await loadRules(page)
    await page.click('#try-run')
    await attemptDone(page, 1)
    await page.locator('.entry .field--description textarea').nth(1).fill('A commit message: advertises an AI model.')
    await page.click('#try-open-pr')
    const preview = page.locator('.open-pr-preview')
    await preview.waitFor()
    const yaml = (await preview.locator('.yaml-preview').textContent()) ?? ''
    expect(yaml).toContain('classifications:\n  - name: datetime\n')
    expect(yaml).toContain('    description: "A commit message: advertises an AI model."\n')
    expect(await preview.textContent()).toContain('changes no-ads')
    expect(await preview.locator('#open-pr-stale').textContent()).toContain('changed since its last run (attempt 1)')
    expect(posts.filter((url) => url.endsWith('/open-pr'))).toEqual([])
    expect(await page.evaluate('document.activeElement.id')).toBe('try-open-pr-push')
    await page.click('#try-open-pr-cancel')
    expect(await page.locator('.open-pr-preview').count()).toBe(0)
    expect(errors).toEqual([])
    await page.close()
  })
})

describe('marks and words', () => {
  /** Tabs forward until the focus is on an element matching `selector`; fails after `limit` presses. */
  async function tabTo(page: Page, selector: string, limit = 120): Promise<void> {
    for (let i = 0; i < limit; i += 1) {
      await page.keyboard.press('Tab')
      if (await page.evaluate(`document.activeElement.matches(${JSON.stringify(selector)})`)) return
    }
    throw new Error(`no ${selector} reached from the keyboard`)
  }

  it('marks a certainty that crossed the threshold and the outcome it changed, not only a raw verdict', async () => {
    const { page, errors } = await openTryOut()
    await fillPull(page, 4)
    await loadRules(page)
    await page.click('#try-run')
    await attemptDone(page, 1)
    await page.locator('.entry .field--description textarea').first().fill('Strictly every datetime carries a zone.')
    await page.click('#try-run')
    const second = await attemptDone(page, 2)
    const datetime = second.locator('table.rows tbody tr').nth(0)
    expect(await datetime.locator('.note--crossed').textContent()).toBe('certainty 95 → 60 against 80')
    expect(await datetime.locator('.note--outcome').textContent()).toBe('outcome changed: passes → uncounted')
    // The verdict itself stayed "match": no raw change to mark.
    expect(await datetime.locator('.note--changed').count()).toBe(0)
    expect(await second.locator('table.rows tbody tr').nth(1).locator('.note').count()).toBe(0)
    expect(errors).toEqual([])
    await page.close()
  })

  it('puts a repeat’s reasons in the page, a keyboard away, with outcomes in words and a tally', async () => {
    const { page, errors } = await openTryOut()
    await fillPull(page, 4)
    await loadRules(page)
    await page.fill('#try-repeat', '3')
    await page.click('#try-run')
    const attempt = await attemptDone(page, 1)
    const datetime = attempt.locator('tbody[data-rule="datetime"]')
    expect(await datetime.locator('.tally').textContent()).toBe('0 of 3 fail')
    expect(await datetime.locator('.chips li').first().textContent()).toContain('match 95 · passes')
    await tabTo(page, '.attempt summary')
    await page.keyboard.press('Enter')
    const reasons = datetime.locator('.reasons li')
    await reasons.first().waitFor()
    expect(await reasons.count()).toBe(3)
    expect(await reasons.first().textContent()).toBe('match: Every timestamp the PR adds carries a zone.')
    expect(errors).toEqual([])
    await page.close()
  })

  it('puts a replay’s reasons in the page, a keyboard away, with a tally per rule and the PRs it skipped', async () => {
    const { page, errors } = await openTryOut()
    const attempt = await replayWidgets(page, 10)
    expect(await attempt.locator('tfoot td').allTextContents()).toEqual(['0 of 5 fail', '0 of 5 fail'])
    expect(await attempt.locator('tbody td').first().textContent()).toContain('passes')
    expect(await attempt.locator('.replay-skipped').textContent()).toContain(
      '5 PRs of the 10 asked for skipped: the repo has only 5 open or merged PRs',
    )
    await tabTo(page, '.attempt .grid summary')
    await page.keyboard.press('Enter')
    const reason = attempt.locator('.grid details[open] .reason')
    await reason.waitFor()
    expect(await reason.textContent()).toBe('Every timestamp the PR adds carries a zone.')
    expect(errors).toEqual([])
    await page.close()
  })
})

describe('every attempt', () => {
  it('lines up three attempts oldest first, diffs the description, and restores an attempt', async () => {
    const { page, errors } = await openTryOut()
    await page.fill('#try-repo', 'acme/widgets')
    await page.fill('#try-pr', '4')
    await loadRules(page)
    const description = page.locator('.entry .field--description textarea').first()
    await page.click('#try-run')
    await attemptDone(page, 1)
    await description.fill('Strictly every datetime carries a zone.')
    await page.click('#try-run')
    await attemptDone(page, 2)
    await description.fill('Strictly every datetime carries a time zone.')
    await page.locator('.field--threshold input').first().fill('50')
    await page.click('#try-run')
    await attemptDone(page, 3)
    const matrix = page.locator('.attempts-matrix')
    expect(
      await matrix
        .locator('thead th[data-attempt]')
        .evaluateAll((cells) => cells.map((c) => c.getAttribute('data-attempt'))),
    ).toEqual(['1', '2', '3'])
    expect(
      await matrix.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-rule'))),
    ).toEqual(['datetime', 'no-ads'])
    const datetime = matrix.locator('tbody tr[data-rule="datetime"] td')
    expect(await datetime.locator('.matrix-answer').allTextContents()).toEqual([
      'match 95, passes',
      'match 60, uncounted',
      'match 60, passes',
    ])
    expect(await datetime.nth(2).locator('.rule-terms').textContent()).toBe('positive, threshold 50 (was positive, 80)')
    expect(await datetime.nth(2).locator('ins').textContent()).toBe(' added: time ')
    expect(await datetime.nth(1).locator('del').first().textContent()).toContain('All')
    await page.click('button[data-restore="1"]')
    expect(await description.inputValue()).toBe('All datetimes carry time zone information.')
    expect(await page.locator('.field--threshold input').first().inputValue()).toBe('80')
    expect(await page.evaluate('document.activeElement.closest(".entry") !== null')).toBe(true)
    expect(errors).toEqual([])
    await page.close()
  })
})

describe('dark mode and the pictures', () => {
  async function shotFor(page: Page, name: string): Promise<void> {
    await painted(page)
    await page.screenshot({ path: join(ARTIFACTS, `docs-${name}.png`), fullPage: false })
  }

  it('meets the same contrast in dark mode as in light, on both pages, at a laptop and a phone', async () => {
    const { page, errors } = await openTryOut(1280, 800)
    await page.fill('#try-repo', 'acme/widgets')
    await page.fill('#try-pr', '4')
    await loadRules(page)
    await page.click('#try-run')
    await attemptDone(page, 1)
    await page.locator('.entry .field--description textarea').first().fill('Strictly every datetime carries a zone.')
    await page.click('#try-run')
    await attemptDone(page, 2)
    await page.locator('.attempt summary, .note').first().waitFor({ state: 'attached' })
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await page.setViewportSize({ width: 1280, height: 800 })
      await page.evaluate('window.scrollTo(0, 0)')
      expect({ scheme, page: 'try-out', low: await page.evaluate(LOW_CONTRAST) }).toEqual({
        scheme,
        page: 'try-out',
        low: [],
      })
      expect(
        await page.evaluate(
          `getComputedStyle(document.body).backgroundColor !== getComputedStyle(document.documentElement).color`,
        ),
      ).toBe(true)
      await shotFor(page, `try-out-${scheme}-laptop`)
      await page.setViewportSize({ width: 390, height: 844 })
      await page.locator('.attempt[data-attempt="2"]').scrollIntoViewIfNeeded()
      await shotFor(page, `try-out-${scheme}-phone`)
    }
    await page.goto(`${world.url}/ui/#runs`)
    await page.locator('.card').first().waitFor()
    await page.locator('.card-toggle').first().click()
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await page.setViewportSize({ width: 1280, height: 800 })
      await page.evaluate('window.scrollTo(0, 0)')
      expect({ scheme, page: 'runs', low: await page.evaluate(LOW_CONTRAST) }).toEqual({
        scheme,
        page: 'runs',
        low: [],
      })
      await shotFor(page, `runs-${scheme}-laptop`)
      await page.setViewportSize({ width: 390, height: 844 })
      await page.evaluate('window.scrollTo(0, 0)')
      await shotFor(page, `runs-${scheme}-phone`)
    }
    expect(errors).toEqual([])
    await page.close()
  })
})

describe('recent runs, denser', () => {
  it('answers more on a collapsed card, keeps filters in the URL, links one run, and opens it in try-out', async () => {
    const id = await world.postTryOut({
      repo: 'acme/widgets',
      pr: 6,
      classifications: [
        { name: 'ads-check', description: 'A commit message advertises.', threshold: 80, polarity: 'negative' },
        { name: 'datetime', description: 'Strictly zoned datetimes.', threshold: 80, polarity: 'positive' },
      ],
    })
    const { page, errors } = await world.newPage(1280, 800)
    await page.goto(`${world.url}/ui/`)
    await page.evaluate('localStorage.clear()')
    const card = page.locator(`.card[data-run-id="${id}"]`)
    await card.waitFor({ timeout: ROOMY_DEADLINE_MS })
    expect(await card.locator('.card-failing').textContent()).toBe(
      'Fails: ads-check. 1 rule not counted (open the rows for why).',
    )
    await card.locator('.card-pr-title').waitFor()
    expect(await card.locator('.card-pr-title').textContent()).toBe('Change 6: timestamps in module 6')
    const time = card.locator('time')
    expect(await time.textContent()).toMatch(/ago|now|second|minute/)
    expect(await time.getAttribute('title')).toMatch(/\d{4}.*(UTC|GMT|Coordinated|[A-Z]{3,4})/)
    const head = card.locator('.meta a:has(code)')
    expect(await head.getAttribute('href')).toStartWith(`${world.forge.url}/acme/widgets/commit/`)
    await card.locator('.card-toggle').click()
    expect(await card.locator('.counted').allTextContents()).toEqual(['yes, fails', 'no: 60 is under 80'])

    await page.selectOption('#runs-trigger', 'review')
    expect(new URL(page.url()).hash).toBe('#runs?trigger=review')
    expect(await card.isHidden()).toBe(true)
    await page.reload()
    await page.locator('.card').first().waitFor({ state: 'attached', timeout: ROOMY_DEADLINE_MS })
    expect(await page.inputValue('#runs-trigger')).toBe('review')
    expect(await page.locator(`.card[data-run-id="${id}"]`).isHidden()).toBe(true)

    await page.goto(`${world.url}/ui/#runs/${id}`)
    await page.reload()
    const linked = page.locator(`.card[data-run-id="${id}"]`)
    await linked.locator('.card-toggle[aria-expanded="true"]').waitFor({ timeout: ROOMY_DEADLINE_MS })
    expect(await page.evaluate('document.activeElement.closest(".card")?.getAttribute("data-run-id")')).toBe(id)
    expect(await linked.locator('.run-link').getAttribute('href')).toBe(`#runs/${id}`)

    await linked.locator('.open-try-out').click()
    await page.locator('#rules-status .ok').waitFor()
    expect(await page.inputValue('#try-repo')).toBe('acme/widgets')
    expect(await page.inputValue('#try-pr')).toBe('6')
    // Of the run's two rules the repo's file has one (datetime): that one is loaded, as the file holds it.
    expect(await page.locator('.entry').count()).toBe(1)
    expect(await page.locator('.field--name input').first().inputValue()).toBe('datetime')
    expect(errors).toEqual([])
    await page.close()
  })
})
