/**
 * Labelling a replay's rows on the try-out page (issue 20), in a real
 * browser against the real processes as bench.e2e.test.ts runs them: the
 * cells labelled from the keyboard and the mouse, in words, starting from
 * the repo's examples file; the labels surviving a reload; the open-a-PR
 * preview listing them; and the fake forge's one commit holding the rules
 * file and the examples file, merged by PR number with its comments kept,
 * then the labels alone with the rules left as they are. One browser, one
 * world, one replay: the steps build on each other in one test. The
 * labelled replay's screenshots for the docs go to test/artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { EXAMPLES_YML_PATH, parseExamplesFile } from '../../core/repo-files/examples-file.ts'
import { RULES_YML_PATH } from '../../core/repo-files/rules-file.ts'
import { cleanUp } from '../support/cleanup.ts'
import { openTryOut, painted, replayWidgets } from '../support/try-out-page.ts'
import { REPO, startUiWorld, type UiWorld } from '../support/ui-world.ts'

setDefaultTimeout(240_000)

const ARTIFACTS = join(import.meta.dir, '../artifacts')
mkdirSync(ARTIFACTS, { recursive: true })

// The model (ui-world's default) answers datetime "match 95" and no-ads "no-match 97" on every PR.
const EXAMPLES = `# Labelled PRs for the review classifier: kept by hand.
examples:
  # Zones everywhere.
  - pr: 4
    expect:
      datetime: match # checked by hand
    note: Kept as it is.
  - pr: 2
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

/** A cell's label select, by its accessible name. */
function labelOf(page: Page, pr: number, rule: string): Locator {
  return page.getByLabel(`Label of #${pr} for ${rule}`, { exact: true })
}

/** The grid's cell of `rule` on `pr`. */
function cellOf(attempt: Locator, pr: number, rule: string): Locator {
  return attempt.locator(`table.grid tbody tr[data-pr="${pr}"] td[data-label="${rule}"]`)
}

/** The visible words of a cell's label select: its chosen option's text. */
async function shownLabel(select: Locator): Promise<string> {
  return select.evaluate(
    (node: { selectedOptions: ArrayLike<{ textContent: string | null }> }) =>
      node.selectedOptions[0]?.textContent ?? '',
  )
}

/** The body of every POST to the open-pr route. */
function openPrBodies(page: Page): unknown[] {
  const bodies: unknown[] = []
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/api/review-classifier/open-pr')) {
      bodies.push(request.postDataJSON())
    }
  })
  return bodies
}

async function labelledGridChecks(page: Page, attempt: Locator): Promise<void> {
  expect(await labelOf(page, 6, 'datetime').inputValue()).toBe('no-match')
  expect(await labelOf(page, 6, 'no-ads').inputValue()).toBe('not-applicable')
  expect(await labelOf(page, 2, 'datetime').inputValue()).toBe('no-match')
  expect(await labelOf(page, 1, 'datetime').inputValue()).toBe('match')
  expect(await labelOf(page, 5, 'datetime').inputValue()).toBe('')
  // In words, not colour alone: the choice, the file's label it replaces, and a disagreement with the answer.
  expect(await shownLabel(labelOf(page, 6, 'datetime'))).toBe('no match')
  expect(await shownLabel(labelOf(page, 6, 'no-ads'))).toBe('n.a.')
  expect(await cellOf(attempt, 6, 'datetime').locator('.note--disagree').textContent()).toBe('disagrees: a false pass')
  expect(await cellOf(attempt, 6, 'no-ads').locator('.note--disagree').textContent()).toBe('disagrees')
  expect(await cellOf(attempt, 2, 'datetime').locator('.label-was').textContent()).toBe('file: match')
  expect(await cellOf(attempt, 1, 'datetime').locator('.note--disagree').count()).toBe(0)
  expect(await attempt.locator('tfoot td').allTextContents()).toEqual([
    '0 of 5 fail; 4 labelled, 2 disagree',
    '0 of 5 fail; 1 labelled, 1 disagrees',
  ])
}

describe("labelling a replay's rows", () => {
  it('labels cells by keyboard and mouse, keeps them over a reload, previews them and commits them with the rules', async () => {
    const { page, errors } = await openTryOut(world, 1280, 900)
    const posts = openPrBodies(page)
    const attempt = await replayWidgets(page, 5)

    // No label yet, so the examples file isn't read: a repo without one would log the route's 404.
    expect(await shownLabel(labelOf(page, 4, 'datetime'))).toBe('label…')
    // A PR with no answer for a rule has no label to set; every answered cell has one.
    expect(await attempt.locator('select.label-select').count()).toBe(10)

    // The keyboard: Tab reaches a cell's label, and the arrows choose (label… → match → no match).
    await cellOf(attempt, 6, 'datetime').locator('summary').focus()
    await page.keyboard.press('Tab')
    expect(await page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe('Label of #6 for datetime')
    // Labelling has started: the examples file is the starting point, #4 and #2 being labelled match there.
    await labelOf(page, 4, 'datetime')
      .locator('option[value=""]', { hasText: 'file: match' })
      .waitFor({ state: 'attached' })
    expect(await shownLabel(labelOf(page, 4, 'datetime'))).toBe('file: match')
    expect(await labelOf(page, 4, 'datetime').inputValue()).toBe('')
    expect(await shownLabel(labelOf(page, 5, 'datetime'))).toBe('label…')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowDown')
    // The mouse (playwright's selectOption picks as a click does).
    await labelOf(page, 6, 'no-ads').selectOption('not-applicable')
    await labelOf(page, 2, 'datetime').selectOption('no-match')
    await labelOf(page, 1, 'datetime').selectOption('match')
    await labelOf(page, 5, 'datetime').selectOption('match')
    await labelOf(page, 5, 'datetime').selectOption('')
    await labelledGridChecks(page, attempt)
    // The grid was drawn again on every label: the focus stayed on the select the keyboard used.
    expect(await page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe('Label of #6 for datetime')

    await page.evaluate('document.activeElement.blur()')
    await painted(page)
    await attempt.screenshot({ path: join(ARTIFACTS, 'docs-ui-labelled-replay.png') })
    await page.setViewportSize({ width: 390, height: 844 })
    await painted(page)
    await attempt.screenshot({ path: join(ARTIFACTS, 'ui-labelled-replay-phone.png') })
    await page.setViewportSize({ width: 1280, height: 900 })

    // A label kept for a rule neither the draft nor the repo has (renamed since): kept, never sent.
    await page.evaluate(`(() => {
      const key = 'review-classifier:try-out:acme/widgets'
      const kept = JSON.parse(localStorage.getItem(key))
      kept.labels.push({ repo: 'acme/widgets', pr: 6, name: 'old-name', verdict: 'match' })
      localStorage.setItem(key, JSON.stringify(kept))
    })()`)
    await page.reload()
    const kept = page.locator('.attempt[data-attempt="1"]')
    await kept.locator('.status--done').waitFor()
    await labelledGridChecks(page, kept)

    // A rules change, so the one commit writes both files.
    await page
      .locator('.entry .field--description textarea')
      .nth(1)
      .fill('A commit message advertises an AI model or its maker.')
    await page.click('#try-open-pr')
    const preview = page.locator('.open-pr-preview')
    await preview.waitFor()
    expect(await preview.locator('#open-pr-labels-title').textContent()).toBe(
      `And ${EXAMPLES_YML_PATH} on main: the labels of 3 PRs, merged by PR number (its other entries, notes and comments stay).`,
    )
    expect(await preview.locator('.open-pr-label-list li').allTextContents()).toEqual([
      '#1 (a new entry): datetime match',
      '#2: datetime no match (was match)',
      '#6 (a new entry): datetime no match, no-ads n.a.',
    ])
    expect(await preview.locator('#open-pr-labels-left-out').textContent()).toBe(
      'Left out, naming no rule of the draft or of the repo: #6 old-name.',
    )
    expect(await preview.textContent()).toContain('changes no-ads')
    expect(posts).toEqual([])
    await page.click('#try-open-pr-push')
    const pushed = page.locator('#open-pr-result .notice--ok')
    await pushed.waitFor()
    expect(posts).toHaveLength(1)
    expect((posts[0] as { labels?: unknown }).labels).toEqual([
      { pr: 1, expect: { datetime: 'match' } },
      { pr: 2, expect: { datetime: 'no-match' } },
      { pr: 6, expect: { datetime: 'no-match', 'no-ads': 'not-applicable' } },
    ])
    expect(await pushed.textContent()).toContain(
      `adds the classifications to ${RULES_YML_PATH}, and writes the labels of #1, #2, #6 into the examples file in the same commit.`,
    )

    const [commit] = world.forge.pushedCommits(REPO)
    expect(commit?.path).toBe(RULES_YML_PATH)
    expect(commit?.content).toContain('A commit message advertises an AI model or its maker.')
    expect(commit?.author.name).toBe('Ann Operator')
    expect(commit?.moreFiles?.map((file) => file.path)).toEqual([EXAMPLES_YML_PATH])
    const examples = commit?.moreFiles?.[0]?.content ?? ''
    for (const comment of [
      '# Labelled PRs for the review classifier: kept by hand.',
      '  # Zones everywhere.',
      'datetime: match # checked by hand',
    ]) {
      expect(examples).toContain(comment)
    }
    expect(parseExamplesFile(EXAMPLES_YML_PATH, examples)).toEqual({
      ok: true,
      value: [
        { pr: 4, expect: { datetime: 'match' }, note: 'Kept as it is.' },
        { pr: 2, expect: { datetime: 'no-match' } },
        { pr: 1, expect: { datetime: 'match' } },
        { pr: 6, expect: { datetime: 'no-match', 'no-ads': 'not-applicable' } },
      ],
    })

    // The rules as the repo holds them: the commit writes the labels alone.
    await page.click('#load-rules')
    await page.click('#load-rules-replace')
    await page.locator('#rules-status .ok').waitFor()
    await page.click('#try-open-pr')
    await preview.locator('#open-pr-rules-unchanged').waitFor()
    expect(await preview.locator('#open-pr-rules-unchanged').textContent()).toBe(
      `The rules stay as they are in ${RULES_YML_PATH} on main: the commit writes the labels alone.`,
    )
    expect(await preview.locator('.yaml-preview').count()).toBe(0)
    await page.click('#try-open-pr-push')
    await pushed.waitFor()
    expect(await pushed.textContent()).toContain(
      `writes the labels of #1, #2, #6 into ${EXAMPLES_YML_PATH}; the rules stay as they are.`,
    )
    const alone = world.forge.pushedCommits(REPO)[1]
    expect(alone?.path).toBe(EXAMPLES_YML_PATH)
    expect(alone?.moreFiles ?? []).toEqual([])
    expect(alone?.message).toStartWith('Label PRs #1, #2, #6 for the review classifier')
    expect(errors).toEqual([])
    await page.close()
  })
})
