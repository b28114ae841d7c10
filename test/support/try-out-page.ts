/**
 * Driving the try-out page in the browser tests' world (ui-world.ts): a
 * fresh page on the bench with nothing kept, the repo's rules loaded, an
 * attempt run to its end, a replay of acme/widgets' last PRs. Shared by the
 * page's test files, so each drives the page the same way.
 */
import type { Locator, Page } from 'playwright-core'
import type { UiWorld } from './ui-world.ts'
import { ROOMY_DEADLINE_MS } from './waits.ts'

/** Headless chromium paints a resized page a frame late: wait for two frames before a measure or a screenshot. */
export async function painted(page: Page): Promise<void> {
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))')
}

/** A fresh page on the try-out bench, with nothing kept from another test. */
export async function openTryOut(world: UiWorld, width = 1280, height = 800) {
  const opened = await world.newPage(width, height)
  // The bench keeps its work in the browser's storage, which every page of the world shares: start clean.
  await opened.page.goto(`${world.url}/ui/`)
  await opened.page.evaluate('localStorage.clear()')
  await opened.page.goto(`${world.url}/ui/#try-out`)
  await opened.page.locator('#try-repo').waitFor()
  return opened
}

/** Records every POST the page sends, by URL. */
export function postsOf(page: Page): string[] {
  const posts: string[] = []
  page.on('request', (request) => {
    if (request.method() === 'POST') posts.push(request.url())
  })
  return posts
}

/** acme/widgets and a PR in the pull request panel. */
export async function fillPull(page: Page, pr: number): Promise<void> {
  await page.fill('#try-repo', 'acme/widgets')
  await page.fill('#try-pr', String(pr))
}

/** Loads the repo's rules into the editor and waits for them. */
export async function loadRules(page: Page): Promise<void> {
  await page.click('#load-rules')
  await page.locator('#rules-status .ok').waitFor()
}

/** Attempt `number` once it has ended; `latest` only while it is the newest, shown in full. */
export async function attemptDone(page: Page, number: number, latest = false): Promise<Locator> {
  const attempt = page.locator(`.attempt${latest ? '.attempt--latest' : ''}[data-attempt="${number}"]`)
  await attempt.locator('.status--done, .status--failed').waitFor({ timeout: ROOMY_DEADLINE_MS })
  return attempt
}

/** Loads acme/widgets' rules and replays them on its last `count` PRs: the attempt once it has ended. */
export async function replayWidgets(page: Page, count: number, number = 1): Promise<Locator> {
  await page.fill('#try-repo', 'acme/widgets')
  await loadRules(page)
  await page.check('#try-mode-replay')
  await page.fill('#try-replay', String(count))
  await page.click('#try-run')
  return attemptDone(page, number, true)
}
