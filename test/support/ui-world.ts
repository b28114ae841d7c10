/**
 * Everything the operator's pages need, for the browser tests: a real
 * nats-server, the controller and the classifier as real processes, the
 * real `claude` against a fake Messages API whose answers a test scripts by
 * rule name, a fake Forgejo checked against the swagger file, the launcher's
 * identity proxy in front of the controller (naming `ann`), and Debian's
 * chromium driven by playwright-core, on 127.0.0.1 only. `stop` ends every
 * process and the browser, even when the start failed half way.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'
import type { SeedPull } from '../../adapters/memory/forge.ts'
import { EXAMPLES_YML_PATH } from '../../core/examples-file.ts'
import { RULES_YML_PATH } from '../../core/rules-file.ts'
import { RUNTIME_KEY_SECRETS } from '../../core/service-account.ts'
import { type IdentityProxy, startIdentityProxy } from '../../entrypoints/identity-proxy.ts'
import { aNumberedPull, headOf, TWO_RULES_YAML } from './builders.ts'
import { cleanUp } from './cleanup.ts'
import { type FakeAnthropic, startFakeAnthropic } from './fake-anthropic.ts'
import { ADMIN_LOGIN, ADMIN_TOKEN } from './fake-forgejo/harness.ts'
import { createFakeForgejo, type FakeForgejo } from './fake-forgejo.ts'
import { type NatsServer, startNatsServer } from './nats-server.ts'
import { makeSecretsDir, type ServiceProcess, startServiceProcess, stopStep } from './service-process.ts'
import { deliveryHeaders, goJson, reviewRequestPayload } from './webhook.ts'

export const UI_USER = 'ann'
export const WEBHOOK_SECRET = 'ui-e2e-webhook-secret-5c1d'
export const REPO = { owner: 'acme', name: 'widgets' }

export const RULES = TWO_RULES_YAML

/** What a test's scripted model answers: a verdict, a certainty and a reason. */
export type ScriptedAnswer = { verdict: 'match' | 'no-match' | 'not-applicable'; certainty: number; reason: string }

/** Decides the model's answer from the rule's name, its description and the PR number. */
export type AnswerScript = (rule: string, description: string, pr: number) => ScriptedAnswer

/** The shared numbered PR, with the title, author and file of its own that the pages show. */
function aPull(pr: number, extra: Partial<SeedPull> = {}): SeedPull {
  return aNumberedPull(pr, {
    title: `Change ${pr}: timestamps in module ${pr}`,
    author: 'alice',
    diff: `diff --git a/app${pr}.py b/app${pr}.py\nindex 1111111..2222222 100644\n--- a/app${pr}.py\n+++ b/app${pr}.py\n@@ -1 +1 @@\n-now()\n+now(UTC)  # change ${pr}\n`,
    ...extra,
  })
}

/** The rule's name and description, and the PR number, from a Messages API body as `claude` sends it. */
function questionOf(body: unknown): { rule: string; description: string; pr: number } {
  const text = JSON.stringify(body)
  const rule = /Name: ([^\\"]+)/.exec(text)?.[1] ?? ''
  const description = /Description: ([^\\"]+)/.exec(text)?.[1] ?? ''
  const pr = Number(/#(\d+) in/.exec(text)?.[1] ?? 0)
  return { rule, description, pr }
}

export type UiWorld = {
  /** The proxy's address: what a browser opens. */
  url: string
  /** The controller's own address (no identity). */
  controllerUrl: string
  forge: FakeForgejo
  ai: FakeAnthropic
  controller: ServiceProcess
  classifier: ServiceProcess
  /** Replaces the model's script. */
  answer(script: AnswerScript): void
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

export const DEFAULT_SCRIPT: AnswerScript = (rule) =>
  rule === 'no-ads'
    ? { verdict: 'no-match', certainty: 97, reason: 'No commit message advertises anything.' }
    : { verdict: 'match', certainty: 95, reason: 'Every timestamp the PR adds carries a zone.' }

/** `examples`: the text of acme/widgets' examples file, when the tests want one (none by default). */
export async function startUiWorld(options: { examples?: string } = {}): Promise<UiWorld> {
  let nats: NatsServer | undefined
  let ai: FakeAnthropic | undefined
  let forge: FakeForgejo | undefined
  let secretsDir: string | undefined
  let classifier: ServiceProcess | undefined
  let controller: ServiceProcess | undefined
  let proxy: IdentityProxy | undefined
  let browser: BrowserContext | undefined
  let profileDir: string | undefined
  const stop = () =>
    cleanUp(
      browser === undefined ? null : () => browser?.close(),
      profileDir === undefined ? null : () => rmSync(profileDir ?? '', { recursive: true, force: true }),
      proxy === undefined ? null : () => proxy?.stop(),
      stopStep(controller),
      stopStep(classifier),
      ai === undefined ? null : () => ai?.stop(),
      forge === undefined ? null : () => forge?.stop(),
      nats === undefined ? null : () => nats?.cleanup(),
      secretsDir === undefined ? null : () => rmSync(secretsDir ?? '', { recursive: true, force: true }),
    )

  try {
    let script = DEFAULT_SCRIPT
    nats = await startNatsServer()
    ai = startFakeAnthropic({
      responder(body) {
        const { rule, description, pr } = questionOf(body)
        return { text: JSON.stringify(script(rule, description, pr)) }
      },
    })
    const pulls = [
      aPull(1),
      aPull(2),
      aPull(3, { state: 'closed', title: 'Change 3: abandoned' }),
      aPull(4),
      aPull(5, { state: 'closed', merged: true, title: 'Change 5: merged last week' }),
      aPull(6),
    ]
    forge = createFakeForgejo({
      seed: {
        users: [
          { login: ADMIN_LOGIN, admin: true },
          { login: 'alice', fullName: 'Alice Example' },
          { login: UI_USER, fullName: 'Ann Operator' },
        ],
        tokens: [{ login: ADMIN_LOGIN, name: 'controller', token: ADMIN_TOKEN, scopes: ['all'] }],
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
      },
    })
    secretsDir = makeSecretsDir({
      'swarm/services/swarm-controller/forge/token': { token: ADMIN_TOKEN },
      [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: 'sk-ant-ui-e2e-0b7e' },
    })
    const swarm = 'ui-e2e'
    classifier = startServiceProcess('classifier', {
      NATS_URL: nats.url,
      SWARM: swarm,
      SECRETS_DIR: secretsDir,
      ANTHROPIC_BASE_URL: ai.url,
      // Roomy, as everywhere the pages are the subject and the deadlines aren't: under two suites at
      // once, ten questions of a replay took over a minute.
      CLASSIFICATION_TIMEOUT_S: '60',
    })
    controller = startServiceProcess('controller', {
      PORT: '0',
      NATS_URL: nats.url,
      SWARM: swarm,
      SECRETS_DIR: secretsDir,
      FORGE_URL: forge.url,
      FORGE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      RUN_TIMEOUT_S: '120',
    })
    await classifier.waitForLine('review classifier listening')
    const listening = JSON.parse(await controller.waitForLine('controller listening')) as { port: number }
    const controllerUrl = `http://127.0.0.1:${listening.port}`
    await controller.waitForLine('review classifier service account token minted')
    await controller.waitForLine('operator pages ready')
    proxy = startIdentityProxy({ target: controllerUrl, user: UI_USER, port: 0 })
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
    const fakeForge = forge
    const fakeAi = ai
    const controllerProcess = controller
    const classifierProcess = classifier

    return {
      url: proxyUrl,
      controllerUrl,
      forge: fakeForge,
      ai: fakeAi,
      controller: controllerProcess,
      classifier: classifierProcess,
      answer(next) {
        script = next
      },
      async deliverReviewRequest(pr) {
        const body = goJson(
          reviewRequestPayload({
            owner: REPO.owner,
            repo: REPO.name,
            pr,
            headSha: headOf(pr),
            forgeUrl: fakeForge.url,
          }),
        )
        return fetch(`${controllerUrl}/webhook/forge/review-request`, {
          method: 'POST',
          headers: deliveryHeaders(body, { secret: WEBHOOK_SECRET }),
          body,
        })
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
