/**
 * The pages' one stylesheet, `/ui/app.css`, joined at start from the parts
 * under `ui/` in the order the route lists: the cascade depends on that
 * order, so the served sheet holds every part in it, and no `.css` file under
 * `ui/` can be left out of the list (it would be written and never served).
 */
import { describe, expect, it } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { createRecordingLogger } from '../../../../adapters/memory/logger.ts'
import { UI_SOURCE_DIR, UI_STYLE_PARTS, uiRoutes } from '../../../../entrypoints/controller/http/routes/ui.ts'
import { aRequest } from './http-support.ts'

function cssFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.css'))
    .map((path) => relative(UI_SOURCE_DIR, join(dir, path)))
}

async function servedStylesheet(): Promise<string> {
  const response = await uiRoutes({ forgeUrl: null, logger: createRecordingLogger() }).handle(aRequest('/ui/app.css'))
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toStartWith('text/css')
  return response.text()
}

describe('the pages’ stylesheet', () => {
  it('serves every part, each whole, in the listed order', async () => {
    const served = await servedStylesheet()
    let from = 0
    const found = UI_STYLE_PARTS.map((part) => {
      const text = readFileSync(join(UI_SOURCE_DIR, part), 'utf8')
      // An empty part would be found anywhere, so it could hide a part left out.
      expect({ part, empty: text.trim() === '' }).toEqual({ part, empty: false })
      const at = served.indexOf(text, from)
      if (at < 0) return { part, served: false, before: '' }
      const before = served.slice(from, at)
      from = at + text.length
      return { part, served: true, before }
    })
    // Nothing else in between: the first part opens the sheet, then one blank line before each next one.
    expect(found).toEqual(UI_STYLE_PARTS.map((part, i) => ({ part, served: true, before: i === 0 ? '' : '\n' })))
    expect(served.slice(from)).toBe('')
  })

  it('lists every .css file under ui/, once', () => {
    const files = cssFilesUnder(UI_SOURCE_DIR)
    // The walk finds the parts, so an empty list can't pass this by accident.
    expect(files).toContain(join('styles', 'base.css'))
    expect(new Set(UI_STYLE_PARTS).size).toBe(UI_STYLE_PARTS.length)
    expect(files.sort()).toEqual([...UI_STYLE_PARTS].sort())
  })
})
