/**
 * Everything the operator's pages need, for the browser tests: the service
 * world (service-world.ts: a real nats-server, the controller and the
 * classifier as real processes, a fake Forgejo checked against the swagger
 * file) with the classifier on the test's scripted model, whose answers a
 * test scripts by rule name; the launcher's identity proxy in front of the
 * controller (naming `ann`); and Debian's chromium driven by playwright-core,
 * one browser for the file, on 127.0.0.1 only. No `claude` runs here: the
 * pages never depend on which runtime answered (the runtimes' own end-to-end
 * reviews are test/entrypoints/review-runtimes.e2e.test.ts). `stop` ends
 * every process and the browser, even when the start failed half way.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'
import type { SeedPull } from '../../adapters/memory/forge.ts'
import { EXAMPLES_YML_PATH } from '../../core/repo-files/examples-file.ts'
import { RULES_YML_PATH } from '../../core/repo-files/rules-file.ts'
import { type IdentityProxy, startIdentityProxy } from '../../entrypoints/identity-proxy.ts'
import { aNumberedPull, TWO_RULES_YAML } from './builders.ts'
import { cleanUp } from './cleanup.ts'
import type { FakeForgejo } from './fake-forgejo.ts'
import { passingVerdict, type ScriptedModel, type Verdict } from './scripted-model.ts'
import { type ServiceWorld, startServiceWorld } from './service-world.ts'

export const UI_USER = 'ann'
export const REPO = { owner: 'acme', name: 'widgets' }

export const RULES = TWO_RULES_YAML

/** Decides the model's answer from the rule's name, its description and the PR number. */
export type AnswerScript = (rule: string, description: string, pr: number) => Verdict

/** The shared numbered PR, with the title, author and file of its own that the pages show. */
function aPull(pr: number, extra: Partial<SeedPull> = {}): SeedPull {
  return aNumberedPull(pr, {
    title: `Change ${pr}: timestamps in module ${pr}`,
    author: 'alice',
    diff: `diff --git a/app${pr}.py b/app${pr}.py\nindex 1111111..2222222 100644\n--- a/app${pr}.py\n+++ b/app${pr}.py\n@@ -1 +1 @@\n-now()\n+now(UTC)  # change ${pr}\n`,
    ...extra,
  })
}

export type UiWorld = {
  /** The proxy's address: what a browser opens. */
  url: string
  /** The controller's own address (no identity). */
  controllerUrl: string
  /** The world's nats-server, for a test that writes a bucket the controller reads. */
  natsUrl: string
  forge: FakeForgejo
  /** The classifier's model: holds, and every question asked. */
  model: ScriptedModel
  /** Replaces the model's script. */
  answer(script: AnswerScript): void
  /** Holds the answers to the questions about `rule` until the returned function is called. */
  holdRule(rule: string): () => void
  /** A signed review request for a PR, as the forge delivers it. */
  deliverReviewRequest(pr: number): Promise<Response>
  /** Posts a try-out through the proxy, as the page does; answers its id. */
  postTryOut(body: unknown): Promise<string>
  /** A fresh page, recording every console error and page error. */
  newPage(width?: number, height?: number): Promise<{ page: Page; errors: string[] }>
  stop(): Promise<void>
}

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export const DEFAULT_SCRIPT: AnswerScript = (rule) => passingVerdict(rule)

/** `examples`: the text of acme/widgets' examples file, when the tests want one (none by default). */
export async function startUiWorld(options: { examples?: string } = {}): Promise<UiWorld> {
  let services: ServiceWorld | undefined
  let proxy: IdentityProxy | undefined
  let browser: BrowserContext | undefined
  let profileDir: string | undefined
  const stop = () =>
    cleanUp(
      browser === undefined ? null : () => browser?.close(),
      profileDir === undefined ? null : () => rmSync(profileDir ?? '', { recursive: true, force: true }),
      proxy === undefined ? null : () => proxy?.stop(),
      services === undefined ? null : () => services?.stop(),
    )

  try {
    let script = DEFAULT_SCRIPT
    const pulls = [
      aPull(1),
      aPull(2),
      aPull(3, { state: 'closed', title: 'Change 3: abandoned' }),
      aPull(4),
      aPull(5, { state: 'closed', merged: true, title: 'Change 5: merged last week' }),
      aPull(6),
    ]
    const world = await startServiceWorld({
      swarm: 'ui-e2e',
      users: [
        { login: 'alice', fullName: 'Alice Example' },
        { login: UI_USER, fullName: 'Ann Operator' },
      ],
      repos: [
        {
          ...REPO,
          files: {
            [RULES_YML_PATH]: RULES,
            ...(options.examples === undefined ? {} : { [EXAMPLES_YML_PATH]: options.examples }),
          },
          pulls,
          collaborators: { 'review-classifier': 'write', alice: 'write', [UI_USER]: 'write' },
        },
        { owner: 'acme', name: 'gadgets', pulls: [aPull(1)], collaborators: { 'review-classifier': 'read' } },
      ],
      // Roomy, as everywhere the pages are the subject and the deadlines aren't.
      controllerEnv: { RUN_TIMEOUT_S: '120' },
    })
    services = world
    await world.controller.waitForLine('review classifier service account token minted')
    await world.controller.waitForLine('operator pages ready')
    world.model.script(({ rule, description, pr }) => script(rule, description, pr))
    proxy = startIdentityProxy({ target: world.base, user: UI_USER, port: 0 })
    profileDir = mkdtempSync(join(tmpdir(), 'rc-chromium-'))
    browser = await chromium.launchPersistentContext(profileDir, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1440, height: 900 },
    })
    // Nothing in these tests may leave the machine: refuse any request to another host.
    await browser.route(
      (url) => url.hostname !== '127.0.0.1',
      (route) => route.abort(),
    )
    const proxyUrl = proxy.url
    const context = browser

    return {
      url: proxyUrl,
      controllerUrl: world.base,
      natsUrl: world.nats.url,
      forge: world.forge,
      model: world.model,
      answer(next) {
        script = next
      },
      holdRule(rule) {
        return world.model.hold((asked) => asked.rule === rule)
      },
      deliverReviewRequest(pr) {
        return world.deliver(pr)
      },
      async postTryOut(body) {
        const response = await fetch(`${proxyUrl}/api/review-classifier/try-out`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
        const answer = (await response.json()) as { id?: string }
        if (response.status !== 202 || answer.id === undefined) {
          throw new Error(`try-out refused: ${response.status} ${JSON.stringify(answer)}`)
        }
        return answer.id
      },
      async newPage(width = 1440, height = 900) {
        const page = await context.newPage()
        await page.setViewportSize({ width, height })
        const errors: string[] = []
        page.on('console', (message) => {
          if (message.type() === 'error') errors.push(`console: ${message.text()}`)
        })
        page.on('pageerror', (error) => errors.push(`page: ${error.message}`))
        return { page, errors }
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}
