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
import { type AnswerScript, DEFAULT_SCRIPT, startUiWorld, type UiWorld } from '../support/ui-world.ts'
import { expectNothingFor } from '../support/waits.ts'

setDefaultTimeout(120_000)

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

async function painted(page: Page): Promise<void> {
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))')
}

async function openTryOut(width = 1280, height = 800) {
  const opened = await world.newPage(width, height)
  await opened.page.goto(`${world.url}/ui/#try-out`)
  await opened.page.locator('#try-repo').waitFor()
  return opened
}

/** Records every POST the page sends. */
function postsOf(page: Page): string[] {
  const posts: string[] = []
  page.on('request', (request) => {
    if (request.method() === 'POST') posts.push(request.url())
  })
  return posts
}

async function loadRules(page: Page): Promise<void> {
  await page.click('#load-rules')
  await page.locator('#rules-status .ok').waitFor()
}

async function attemptDone(page: Page, number: number) {
  const attempt = page.locator(`.attempt[data-attempt="${number}"]`)
  await attempt.locator('.status--done, .status--failed').waitFor({ timeout: 60_000 })
  return attempt
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
    await page.locator('.entry textarea').first().focus()
    await page.keyboard.press('Control+Enter')
    await attemptDone(page, 1)
    expect(posts.filter((url) => url.endsWith('/api/review-classifier/try-out'))).toHaveLength(1)
    // A newline was not typed into the description by the shortcut.
    expect(await page.locator('.entry textarea').first().inputValue()).not.toContain('\n')
    expect(await page.getAttribute('#try-run', 'aria-keyshortcuts')).toContain('Control+Enter')
    expect(errors).toEqual([])
    await page.close()
  })
})
