/**
 * The try-out editor's paths and mode (issue 31) in a real browser against
 * the real services: a broken pattern is shown next to the field as it is
 * typed and nothing is sent; a run shows a rule out of the PR's scope as not
 * asked, and an advisory rule's failure as not blocking.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { cleanUp } from '../support/cleanup.ts'
import { attemptDone, fillPull, openTryOut, postsOf } from '../support/try-out-page.ts'
import { DEFAULT_SCRIPT, startUiWorld, type UiWorld } from '../support/ui-world.ts'
import { expectNothingFor } from '../support/waits.ts'

setDefaultTimeout(240_000)

const ARTIFACTS = join(import.meta.dir, '../artifacts')
mkdirSync(ARTIFACTS, { recursive: true })

let world: UiWorld

beforeAll(async () => {
  world = await startUiWorld()
  world.answer((rule, description, pr) =>
    rule === 'style'
      ? { verdict: 'no-match', certainty: 90, reason: 'Unclear names.' }
      : DEFAULT_SCRIPT(rule, description, pr),
  )
})

afterAll(async () => {
  await cleanUp(world === undefined ? null : () => world.stop())
})

describe('the editor with paths and mode', () => {
  it('checks a pattern as it is typed, names it, and sends nothing while it is broken', async () => {
    const { page, errors } = await openTryOut(world)
    const posts = postsOf(page)
    await fillPull(page, 5)
    await page.fill('#rule-1-name', 'sql')
    await page.fill('#rule-1-description', 'Queries are parameterised.')
    await page.fill('#rule-1-paths', 'db/**\nsrc/[z-a].sql')
    // As typed, before any run: the field is touched, so its message shows.
    const error = page.locator('#rule-1-paths-error')
    await error.filter({ hasText: 'pattern' }).waitFor()
    expect(await error.textContent()).toBe('paths[1]: pattern "src/[z-a].sql" has the range "z-a" out of order')
    expect(await page.getAttribute('#rule-1-paths', 'aria-invalid')).toBe('true')
    await page.click('#try-run')
    expect(await page.locator('#try-action-status').textContent()).toContain('Nothing was sent')
    await expectNothingFor(() => posts.length > 0, 'a POST from the page', 300)
    await page.fill('#rule-1-paths', 'db/**\n  src/*.sql  \n')
    expect(await error.textContent()).toBe('')
    expect(await page.getAttribute('#rule-1-paths', 'aria-invalid')).toBeNull()
    expect(errors).toEqual([])
    await page.close()
  })

  it('runs a rule out of the PR scope without asking it, and an advisory failure without blocking', async () => {
    const { page, errors } = await openTryOut(world)
    await fillPull(page, 5)
    await page.fill('#rule-1-name', 'migrations')
    await page.fill('#rule-1-description', 'Every new migration has a down step.')
    await page.fill('#rule-1-paths', 'db/migrations/**')
    await page.click('#add-rule')
    await page.fill('#rule-2-name', 'style')
    await page.fill('#rule-2-description', 'The names read well.')
    await page.fill('#rule-2-paths', '*.py\n!vendor/')
    await page.selectOption('#rule-2-mode', 'advisory')
    const asked = world.model.asked.length
    await page.click('#try-run')
    const attempt = await attemptDone(page, 1)
    const rows = attempt.locator('table.rows tbody tr')
    expect(await rows.count()).toBe(2)
    expect(await rows.nth(0).textContent()).toContain('out of scope, not asked')
    expect(await rows.nth(0).textContent()).toContain('No changed file matches its paths.')
    expect(await rows.nth(1).textContent()).toContain('advisory')
    expect(await rows.nth(1).locator('.counted--advisory').textContent()).toContain("doesn't block")
    expect(await attempt.textContent()).toContain('Overall: would approve.')
    const questions = world.model.asked.slice(asked)
    expect(questions.map((question) => question.rule)).toEqual(['style'])
    expect(questions[0]?.question).toContain('- "app5.py"')
    await page.screenshot({ path: join(ARTIFACTS, 'try-out-scope.png'), fullPage: true })
    expect(errors).toEqual([])
    await page.close()
  })
})
