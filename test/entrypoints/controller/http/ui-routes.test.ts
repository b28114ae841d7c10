/**
 * The operator's pages as HTTP: served by the controller from `createController`,
 * `/` sending a browser to `/ui/`, the client bundled at start from `ui/`
 * (no file fetched from elsewhere, no inline script), every answer with the
 * Content-Security-Policy, and none of it in the OpenAPI document.
 */
import { describe, expect, it } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createFixedClock } from '../../../../adapters/memory/clock.ts'
import { createMemoryForge } from '../../../../adapters/memory/forge.ts'
import { createSequenceIds } from '../../../../adapters/memory/ids.ts'
import { createMemoryKv } from '../../../../adapters/memory/kv.ts'
import { createRecordingLogger } from '../../../../adapters/memory/logger.ts'
import { createMemoryQueue } from '../../../../adapters/memory/queue.ts'
import { createMemorySecretStore } from '../../../../adapters/memory/secret-store.ts'
import { createControllerApp } from '../../../../entrypoints/controller/http/app.ts'
import {
  buildUiAssets,
  UI_CONTENT_SECURITY_POLICY,
  UI_SOURCE_DIR,
  UI_STYLE_PARTS,
  uiRoutes,
} from '../../../../entrypoints/controller/http/routes/ui.ts'
import { createController } from '../../../../entrypoints/controller/service.ts'
import { aRequest, expectProblem } from './http-support.ts'

function controller(forgeUrl: string | null = 'https://forge.example') {
  const logger = createRecordingLogger()
  const made = createController({
    forge: forgeUrl === null ? null : { api: createMemoryForge(), webUrl: forgeUrl, noreplyDomain: 'forge.example' },
    queue: { link: { connected: () => true }, runQueue: createMemoryQueue(), buckets: createMemoryKv() },
    secrets: createMemorySecretStore(),
    clock: createFixedClock(),
    ids: createSequenceIds(),
    logger,
    webhookSecret: null,
    runTimeoutMs: 5_000,
    drainTimeoutMs: 1_000,
  })
  return { app: made.app, logger }
}

describe('the operator pages, served by the controller', () => {
  it('sends / and /ui to /ui/', async () => {
    const { app } = controller()
    for (const path of ['/', '/ui']) {
      const response = await app.handle(aRequest(path))
      expect(response.status).toBe(302)
      expect(response.headers.get('location')).toBe('/ui/')
    }
  })

  it('serves the page, its script, style and icon from this origin, each with the policy', async () => {
    const { app, logger } = controller()
    const page = await app.handle(aRequest('/ui/'))
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toStartWith('text/html')
    const html = await page.text()
    // Only relative references: nothing from another origin, and no inline script to allow.
    expect(html).toContain('<script type="module" src="app.js"></script>')
    expect(html).not.toMatch(/https?:\/\//)
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    for (const [path, type] of [
      ['/ui/', 'text/html'],
      ['/ui/app.js', 'text/javascript'],
      ['/ui/app.css', 'text/css'],
      ['/ui/icon.svg', 'image/svg+xml'],
      ['/ui/config.json', 'application/json'],
    ] as const) {
      const response = await app.handle(aRequest(path))
      expect({ path, status: response.status }).toEqual({ path, status: 200 })
      expect(response.headers.get('content-type')).toStartWith(type)
      expect(response.headers.get('content-security-policy')).toBe(UI_CONTENT_SECURITY_POLICY)
      expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    }
    expect(UI_CONTENT_SECURITY_POLICY).toContain("script-src 'self'")
    expect(UI_CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline')
    expect(UI_CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'")
    expect(logger.withMessage('operator pages ready')).toHaveLength(1)
  })

  it('bundles the client with core’s checks in it, no framework, no innerHTML, no token count or cost', async () => {
    const { app } = controller()
    const script = await (await app.handle(aRequest('/ui/app.js'))).text()
    expect(script.length).toBeGreaterThan(1_000)
    // A framework or TypeBox's whole builder would take it well past this. The pages' own code
    // (the bench's matrix, kept work, the runs page's cards, the Rules page, the scope fields) and
    // core's checks (the path globs among them) already fill most of it (125 KB with the Rules page);
    // the controller logs the size it built as `script_bytes` in "operator pages ready".
    expect(script.length).toBeLessThan(150_000)
    // core/repo-files/rules-check.ts's own words, bundled rather than written again.
    expect(script).toContain('names must be unique')
    for (const absent of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'eval(']) {
      expect(script).not.toContain(absent)
    }
    // The wire's token counts (a run reply's `usage`) and any cost are never read, so never shown.
    for (const absent of ['cache_read', 'cache_write', 'usage', 'cost'])
      expect(script.toLowerCase()).not.toContain(absent)
  })

  it('tells the page where the forge is, or that there is none', async () => {
    expect(await (await controller().app.handle(aRequest('/ui/config.json'))).json()).toEqual({
      forge_url: 'https://forge.example',
    })
    expect(await (await controller(null).app.handle(aRequest('/ui/config.json'))).json()).toEqual({ forge_url: null })
  })

  it('leaves the pages out of the OpenAPI document', async () => {
    const document = (await (await controller().app.handle(aRequest('/openapi/json'))).json()) as {
      paths: Record<string, unknown>
    }
    expect(Object.keys(document.paths).filter((path) => path === '/' || path.startsWith('/ui'))).toEqual([])
  })

  it('answers a problem, and logs why, when the client does not build', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-ui-'))
    try {
      for (const name of ['index.html', ...UI_STYLE_PARTS, 'icon.svg']) {
        mkdirSync(dirname(join(dir, name)), { recursive: true })
        writeFileSync(join(dir, name), 'x')
      }
      writeFileSync(join(dir, 'main.ts'), "import { nothing } from './missing.ts'\nnothing()\n")
      const logger = createRecordingLogger()
      const app = createControllerApp({
        logger,
        routes: [uiRoutes({ forgeUrl: null, logger, assets: buildUiAssets(dir) })],
      })
      await expectProblem(await app.handle(aRequest('/ui/')), 500, /couldn't be built/)
      expect(logger.withMessage('operator pages could not be built')).toHaveLength(1)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('builds from the ui/ directory', () => {
    expect(UI_SOURCE_DIR).toEndWith('/ui')
  })
})
