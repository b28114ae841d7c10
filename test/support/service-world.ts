/**
 * The services end to end, for every test that runs them as processes: a
 * real nats-server, a fake Forgejo checked against the swagger file, a
 * secrets directory, the controller as its own process, and a classifier as
 * its own process (the scripted one by default: its model is the test's,
 * scripted-model.ts; or the real one, on `claude` and `opencode`). One
 * world a file, started in `beforeAll`: the controller's end-to-end files,
 * the runtimes' end-to-end reviews and the pages (ui-world.ts) all start it
 * here, so each says only what differs. `stop` ends everything it started,
 * even when the start failed half way.
 */
import { rmSync } from 'node:fs'
import { RUNTIME_KEY_SECRETS } from '../../core/settings/service-account.ts'
import { headOf } from './builders.ts'
import { cleanUp } from './cleanup.ts'
import { ADMIN_LOGIN, ADMIN_TOKEN } from './fake-forgejo/harness.ts'
import { createFakeForgejo, type FakeForgejo, type FakeReview } from './fake-forgejo.ts'
import { type NatsServer, startNatsServer } from './nats-server.ts'
import { modelSubject, type ScriptedModel, startScriptedModel } from './scripted-model.ts'
import { makeSecretsDir, type ServiceProcess, startServiceProcess, stopStep } from './service-process.ts'
import { waitFor } from './waits.ts'

/** The last lines of each process, for a failure's message: what the services were doing when a wait ran out. */
function tails(processes: Array<[string, ServiceProcess | undefined]>, count = 30): string {
  return processes
    .flatMap(([name, proc]) => (proc === undefined ? [] : [`--- ${name}:`, ...proc.lines.slice(-count)]))
    .join('\n')
}

import { signedDelivery } from './webhook.ts'

type ForgeSeed = NonNullable<NonNullable<Parameters<typeof createFakeForgejo>[0]>['seed']>
type SeedRepo = NonNullable<ForgeSeed['repos']>[number]
type SeedUser = NonNullable<ForgeSeed['users']>[number]

/** The runtimes' keys every world's secrets directory holds, so a run on any runtime finds its key. */
export const RUNTIME_KEYS = {
  'api-key': 'sk-ant-e2e-api-key-81cc',
  subscription: 'sk-ant-oat01-e2e-subscription-4f1e',
  acp: 'acp-e2e-key-6b2d',
} as const

export type ServiceWorldOptions = {
  /** The swarm name: the run subject and the KV buckets are the world's own. */
  swarm: string
  /** The forge's repos; `null`: no forge, and the controller runs without one. */
  repos?: SeedRepo[] | null
  /** The forge's users beside its admin; default just `alice`. */
  users?: SeedUser[]
  /** The classifier started with the world: `scripted` (the default) on the test's model; `real` on `claude` and `opencode`; `null`: none. */
  classifier?: ClassifierKind | null
  /** The classifier's environment beside NATS, swarm and secrets. */
  classifierEnv?: Record<string, string>
  /** The controller's environment beside port, NATS, swarm, secrets and forge; `null`: no controller. */
  controllerEnv?: Record<string, string> | null
  /** Secrets beside the forge admin's token and the runtimes' keys. */
  secrets?: Record<string, Record<string, string>>
  /** Called with the forge before the controller starts (to hold its first mint, say). */
  beforeController?: (forge: FakeForgejo) => void
}

export type ClassifierKind = 'scripted' | 'real'

export type DeliverOptions = { repo?: string; headSha?: string; signature?: string }

/** A run as `/api/review-classifier/runs` lists it. */
export type ListedRun = {
  id: string
  trigger: string
  pr: number
  repo: string
  outcome: string
  detail?: string
  head_sha?: string
  review_url?: string
  redacted?: number
}

export type ServiceWorld = {
  readonly nats: NatsServer
  /** The fake forge; throws for a world without one. */
  readonly forge: FakeForgejo
  readonly secretsDir: string
  /** The test's model, which every scripted classifier of the world asks. */
  readonly model: ScriptedModel
  /** The controller's root URL. */
  readonly base: string
  readonly controller: ServiceProcess
  /** The classifier started last, if any. */
  readonly classifier: ServiceProcess | null
  readonly webhookSecret: string
  /** NATS, swarm and secrets, as every service of the world gets them. */
  readonly env: Record<string, string>
  /** Starts a classifier (default the world's kind, else scripted) with `env` beside the world's, once it listens; stopped with the world. */
  startClassifier(env?: Record<string, string>, kind?: ClassifierKind): Promise<ServiceProcess>
  /** Starts another controller on the world's NATS with `env` beside NATS, swarm and secrets; stopped with the world. */
  startController(env: Record<string, string>): Promise<{ process: ServiceProcess; host: string; port: number }>
  /** A signed review request for acme/`repo` (default `widgets`) PR `pr`, at the head aNumberedPull gives it. */
  deliver(pr: number, options?: DeliverOptions): Promise<Response>
  /** The reviews of `pr` once there are `count` (default 1). */
  reviewsOf(pr: number, options?: { count?: number; repo?: string; timeoutMs?: number }): Promise<FakeReview[]>
  /** The run of `pr` in acme/`repo` once the run store lists it (with `outcome`, when given). */
  runOf(pr: number, options?: { outcome?: string; repo?: string }): Promise<ListedRun>
  /** PUTs settings as an admin. */
  putSettings(body: Record<string, unknown>): Promise<Response>
  /** The controller's log lines with `msg`, parsed. */
  logged(msg: string): Record<string, unknown>[]
  /** waits.ts's waitFor, whose failure ends with the last log lines of every process of the world. */
  waitFor(condition: () => boolean, what: string, timeoutMs?: number): Promise<void>
  stop(): Promise<void>
}

export const WEBHOOK_SECRET = 'e2e-webhook-secret-3b9f'

/**
 * SIGTERM, and once it drains a second SIGTERM, which stops its sessions at once: a question a test
 * left hanging doesn't hold the exit for the drain's grace.
 */
async function stopNow(proc: ServiceProcess | null): Promise<void> {
  if (proc === null) return
  proc.kill('SIGTERM')
  const draining = proc.waitForLine('review classifier draining').then(
    () => true,
    () => false,
  )
  if (await Promise.race([draining, proc.exited.then(() => false)])) proc.kill('SIGTERM')
  await proc.exited
}
const OWNER = 'acme'

export async function startServiceWorld(options: ServiceWorldOptions): Promise<ServiceWorld> {
  const first = options.classifier === undefined ? 'scripted' : options.classifier
  let nats: NatsServer | undefined
  let forge: FakeForgejo | undefined
  let model: ScriptedModel | undefined
  let secretsDir: string | undefined
  let controller: ServiceProcess | undefined
  const classifiers: ServiceProcess[] = []
  const others: ServiceProcess[] = []
  const stop = () =>
    cleanUp(
      stopStep(controller),
      ...others.map((other) => stopStep(other)),
      ...classifiers.map((classifier) => () => stopNow(classifier)),
      model === undefined ? null : () => model?.stop(),
      forge === undefined ? null : () => forge?.stop(),
      nats === undefined ? null : () => nats?.cleanup(),
      secretsDir === undefined ? null : () => rmSync(secretsDir ?? '', { recursive: true, force: true }),
    )

  try {
    nats = await startNatsServer()
    const server = nats
    if (options.repos !== null) {
      forge = createFakeForgejo({
        seed: {
          users: [{ login: ADMIN_LOGIN, admin: true }, ...(options.users ?? [{ login: 'alice' }])],
          tokens: [{ login: ADMIN_LOGIN, name: 'controller', token: ADMIN_TOKEN, scopes: ['all'] }],
          repos: options.repos ?? [],
        },
      })
    }
    const keys = Object.fromEntries(
      Object.entries(RUNTIME_KEY_SECRETS).map(([runtime, secret]) => [
        secret.path,
        { [secret.field]: RUNTIME_KEYS[runtime as keyof typeof RUNTIME_KEYS] },
      ]),
    )
    const dir = makeSecretsDir({
      'swarm/services/swarm-controller/forge/token': { token: ADMIN_TOKEN },
      ...keys,
      ...options.secrets,
    })
    secretsDir = dir
    const scriptedModel = await startScriptedModel(server.url, options.swarm)
    model = scriptedModel
    const common = { NATS_URL: server.url, SWARM: options.swarm, SECRETS_DIR: dir }

    const startClassifier = async (env: Record<string, string> = {}, kind = first ?? 'scripted') => {
      const scripted = kind === 'scripted' ? { SCRIPTED_MODEL_SUBJECT: modelSubject(options.swarm) } : {}
      const name = kind === 'scripted' ? 'scripted-classifier' : 'classifier'
      const started = startServiceProcess(name, { ...common, ...scripted, ...options.classifierEnv, ...env })
      classifiers.push(started)
      await started.waitForLine('review classifier listening')
      return started
    }
    const startController = async (env: Record<string, string>) => {
      const started = startServiceProcess('controller', { PORT: '0', ...common, ...env })
      others.push(started)
      const listening = JSON.parse(await started.waitForLine('controller listening')) as { host: string; port: number }
      return { process: started, host: listening.host, port: listening.port }
    }

    const classifierUp = first === null ? null : startClassifier()
    // Awaited below, once the controller is up; a failure meanwhile is not left unhandled.
    void classifierUp?.catch(() => undefined)
    let base = ''
    if (options.controllerEnv !== null) {
      if (forge !== undefined) options.beforeController?.(forge)
      const forgeEnv = forge === undefined ? {} : { FORGE_URL: forge.url, FORGE_WEBHOOK_SECRET: WEBHOOK_SECRET }
      const started = await startController({ ...forgeEnv, ...options.controllerEnv })
      // The world's own controller is stopped first, on its own.
      others.splice(others.indexOf(started.process), 1)
      controller = started.process
      base = `http://127.0.0.1:${started.port}`
    }
    await classifierUp

    const the = <T>(value: T | undefined, what: string): T => {
      if (value === undefined) throw new Error(`this world has no ${what}`)
      return value
    }
    const withLogs = (message: string) => {
      const named: Array<[string, ServiceProcess | undefined]> = [
        ['controller', controller],
        ...classifiers.map((proc, i): [string, ServiceProcess] => [`classifier ${i + 1}`, proc]),
      ]
      return new Error(`${message}\n${tails(named)}`)
    }
    const waitLogged = async (condition: () => boolean, what: string, timeoutMs?: number) => {
      await waitFor(condition, what, timeoutMs).catch((error: unknown) => {
        throw withLogs(String(error))
      })
    }
    const runs = async (): Promise<ListedRun[]> => {
      const response = await fetch(`${base}/api/review-classifier/runs`)
      return response.ok ? ((await response.json()) as ListedRun[]) : []
    }

    return {
      nats: server,
      get forge() {
        return the(forge, 'forge')
      },
      secretsDir: dir,
      model: scriptedModel,
      base,
      get controller() {
        return the(controller, 'controller')
      },
      get classifier() {
        return classifiers.at(-1) ?? null
      },
      webhookSecret: WEBHOOK_SECRET,
      env: common,
      startClassifier,
      startController,
      async deliver(pr, deliver = {}) {
        const fake = the(forge, 'forge')
        const repo = deliver.repo ?? 'widgets'
        const sign = {
          secret: WEBHOOK_SECRET,
          url: `${base}/webhook/forge/review-request`,
          ...(deliver.signature === undefined ? {} : { signature: deliver.signature }),
        }
        const headSha = deliver.headSha ?? headOf(pr)
        return fetch(signedDelivery(sign, { owner: OWNER, repo, pr, headSha, forgeUrl: fake.url }))
      },
      async reviewsOf(pr, wanted = {}) {
        const fake = the(forge, 'forge')
        const repo = { owner: OWNER, name: wanted.repo ?? 'widgets' }
        const count = wanted.count ?? 1
        await waitLogged(
          () => fake.reviews(repo, pr).length >= count,
          `${count} review(s) of PR ${pr}`,
          wanted.timeoutMs ?? 60_000,
        )
        return fake.reviews(repo, pr)
      },
      async runOf(pr, wanted = {}) {
        const repo = `${OWNER}/${wanted.repo ?? 'widgets'}`
        const matches = (run: ListedRun) =>
          run.pr === pr && run.repo === repo && (wanted.outcome === undefined || run.outcome === wanted.outcome)
        const until = Date.now() + 60_000
        for (;;) {
          const found = (await runs()).find(matches)
          if (found !== undefined) return found
          if (Date.now() > until) throw withLogs(`no recorded run for ${repo} PR ${pr} (${wanted.outcome ?? 'any'})`)
          await Bun.sleep(50)
        }
      },
      putSettings(body) {
        return fetch(`${base}/api/review-classifier/settings`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', 'Remote-User': 'admin' },
          body: JSON.stringify(body),
        })
      },
      waitFor: waitLogged,
      logged(msg) {
        return the(controller, 'controller')
          .lines.filter((line) => line.includes(`"${msg}"`))
          .map((line): unknown => JSON.parse(line))
          .filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null)
          .filter((entry) => entry.msg === msg)
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}
