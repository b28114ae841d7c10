/**
 * The operator's pages (docs/behaviour.md, "Swarm UI"): `GET /ui/` and its
 * assets, all from this process, and `GET /` sending a browser there.
 *
 * The client (`ui/`) is TypeScript, bundled by Bun into one ES module when
 * the controller starts: it imports core's own checks, so there is no build
 * step beyond the install and nothing fetched from elsewhere. The pages send
 * nothing of their own for identity; the gateway in front of the controller
 * (or the launcher's proxy on one machine) adds `Remote-User`.
 *
 * Every answer here carries a Content-Security-Policy that allows only this
 * origin's own script, style, image and API, and nothing inline, framed,
 * posted by a form or loaded as a plugin; outside text is rendered by the
 * client with DOM text nodes, never as markup.
 */
import { resolve } from 'node:path'
import { Elysia } from 'elysia'
import { describeError } from '../../../../core/base/errors.ts'
import type { UiConfig } from '../../../../core/wire/types.ts'
import type { Logger } from '../../../../ports/logger.ts'
import { problemResponse } from '../problem.ts'

export const UI_PATH = '/ui/'

/** Where the client's source and static files are. */
export const UI_SOURCE_DIR = resolve(import.meta.dir, '../../../../ui')

/**
 * Only this origin's script (no inline script, no `eval`), style, images and
 * API calls; no plugin, frame, form target, base URL or worker of anyone
 * else's; and no page may frame these.
 */
export const UI_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ')

const SECURITY_HEADERS = {
  'content-security-policy': UI_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-cache',
}

/**
 * The stylesheet's parts, under the client's directory, in the order `/ui/app.css` serves them:
 * the cascade depends on that order, so a part goes where its rules must win, and every `.css`
 * file under `ui/` is listed here (the route's test fails on one left out).
 */
export const UI_STYLE_PARTS = [
  'styles/base.css',
  'styles/header.css',
  'styles/controls.css',
  'styles/editor.css',
  'styles/notices.css',
  'styles/badges.css',
  'styles/runs.css',
  'styles/tables.css',
  'styles/try-out.css',
  'styles/narrow.css',
  'styles/try-out-bench.css',
  'styles/change-marks.css',
  'styles/matrix.css',
  'styles/dark.css',
  'styles/run-cards.css',
  'styles/reliability.css',
  'styles/replay-labels.css',
  'styles/rules.css',
  // Last, so that `[hidden]` wins over any class that sets a display.
  'styles/hidden.css',
] as const

export type UiAssets = { html: string; script: string; css: string; icon: string }

/** Reads the static files, joins the stylesheet's parts and bundles the client (minified, for the browser). */
export async function buildUiAssets(dir = UI_SOURCE_DIR): Promise<UiAssets> {
  const built = await Bun.build({ entrypoints: [resolve(dir, 'main.ts')], target: 'browser', minify: true })
  const [output] = built.outputs
  if (!built.success || output === undefined) {
    const reasons = built.logs.map((log) => log.message).join('; ')
    throw new Error(`the pages' script doesn't build: ${reasons || 'no output'}`)
  }
  const [html, script, styles, icon] = await Promise.all([
    Bun.file(resolve(dir, 'index.html')).text(),
    output.text(),
    Promise.all(UI_STYLE_PARTS.map((part) => Bun.file(resolve(dir, part)).text())),
    Bun.file(resolve(dir, 'icon.svg')).text(),
  ])
  // Each part ends in a newline, so this puts one blank line between them, as between a file's sections.
  return { html, script, css: styles.join('\n'), icon }
}

export type UiRoutesDeps = {
  /** The forge's web root, for links to PRs and commits; `null` without `FORGE_URL`. */
  forgeUrl: string | null
  logger: Logger
  /** The assets, or how to make them; default {@link buildUiAssets}, started at once. */
  assets?: Promise<UiAssets>
}

export function uiRoutes(deps: UiRoutesDeps) {
  const assets = deps.assets ?? buildUiAssets()
  // Bundled at start, so a page load never waits for it and a broken client shows in the log at once.
  assets.then(
    (ready) => deps.logger.info('operator pages ready', { path: UI_PATH, script_bytes: ready.script.length }),
    (error: unknown) =>
      deps.logger.error('operator pages could not be built', {
        error: describeError(error),
      }),
  )

  async function asset(pick: (ready: UiAssets) => string, type: string): Promise<Response> {
    let ready: UiAssets
    try {
      ready = await assets
    } catch {
      return problemResponse(500, "the operator pages couldn't be built; the controller's log says why")
    }
    return new Response(pick(ready), { headers: { ...SECURITY_HEADERS, 'content-type': type } })
  }

  const toPages = () => new Response(null, { status: 302, headers: { location: UI_PATH } })
  const hidden = { detail: { hide: true } }

  return (
    new Elysia({ name: 'review-classifier-ui' })
      .get('/', toPages, hidden)
      // Elysia routes `/ui` and `/ui/` alike; the page needs the slash, so its relative links resolve under it.
      .get(
        '/ui/',
        ({ request }) =>
          new URL(request.url).pathname.endsWith('/')
            ? asset((ready) => ready.html, 'text/html; charset=utf-8')
            : toPages(),
        hidden,
      )
      .get('/ui/app.js', () => asset((ready) => ready.script, 'text/javascript; charset=utf-8'), hidden)
      .get('/ui/app.css', () => asset((ready) => ready.css, 'text/css; charset=utf-8'), hidden)
      .get('/ui/icon.svg', () => asset((ready) => ready.icon, 'image/svg+xml'), hidden)
      .get(
        '/ui/config.json',
        () =>
          new Response(JSON.stringify({ forge_url: deps.forgeUrl } satisfies UiConfig), {
            headers: { ...SECURITY_HEADERS, 'content-type': 'application/json' },
          }),
        hidden,
      )
  )
}
