/**
 * What `/readyz` asks (docs/behaviour.md; docs/decisions.md, "Running on one
 * machine"): whether the queue, the forge and the secret store answer. Which
 * dependencies count is the wiring's choice, as a list of checks; these
 * build the usual three. A reason is a short sentence fit for anyone who can
 * reach the port: never a secret, never a token.
 */
import { isAppError } from '../../../../core/base/errors.ts'
import { capText } from '../../../../core/base/text.ts'
import { mayRunOn } from '../../../../core/settings/repo-runtimes.ts'
import { RUNTIME_KEY_SECRETS, serviceAccountStopped } from '../../../../core/settings/service-account.ts'
import type { ForgeReader } from '../../../../ports/forge.ts'
import type { QueueLink } from '../../../../ports/queue.ts'
import type { SecretStore } from '../../../../ports/secret-store.ts'
import type { SettingsStore } from './settings-store.ts'

export type CheckState =
  | { state: 'ok' }
  /** Not set up yet (no forge URL, no token): clear, expected on a fresh install, and not ready. */
  | { state: 'not_configured'; reason: string }
  | { state: 'failing'; reason: string }

export type ReadinessCheck = {
  /** Short and stable, e.g. `nats`, `forge`, `secrets`. */
  name: string
  check(): Promise<CheckState>
}

/** A failing check's reason on /readyz, in characters: a line of a status page, not a model's reason. */
const CHECK_REASON_MAX_CHARS = 200

function shortReason(text: string): string {
  return capText(text, CHECK_REASON_MAX_CHARS)
}

/** A check's failure in words: an AppError's own message (adapters keep secrets out of them), nothing of any other error. */
function failing(error: unknown): CheckState {
  return {
    state: 'failing',
    reason: shortReason(isAppError(error) ? `${error.code}: ${error.message}` : 'the check failed unexpectedly'),
  }
}

export async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<{ name: string } & CheckState> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<CheckState>((resolve) => {
    timer = setTimeout(() => resolve({ state: 'failing', reason: `no answer within ${timeoutMs} ms` }), timeoutMs)
  })
  try {
    const state = await Promise.race([check.check().catch(failing), deadline])
    return state.state === 'ok'
      ? { name: check.name, state: 'ok' }
      : { name: check.name, state: state.state, reason: shortReason(state.reason) }
  } finally {
    clearTimeout(timer)
  }
}

/** NATS: ready while the connection is up. */
export function queueCheck(queue: QueueLink | null): ReadinessCheck {
  return {
    name: 'nats',
    async check() {
      if (queue === null) return { state: 'not_configured', reason: 'this host has no swarm queue' }
      return queue.connected() ? { state: 'ok' } : { state: 'failing', reason: 'not connected to the swarm queue' }
    },
  }
}

export type ForgeCheckDeps = {
  /** `null` when `FORGE_URL` is unset. */
  forge: Pick<ForgeReader, 'getUser'> | null
  /** Whether the controller's own forge token is in the secret store; without one the forge can't be asked. */
  hasToken(): Promise<boolean>
  /**
   * The service account, looked up as a cheap authenticated call: an unknown
   * account still proves the forge answers; one an admin deactivated or
   * prohibited from signing in makes the check fail, since nothing is posted
   * as it.
   */
  login: string
}

/** The forge: configured, with the controller's token, answering an authenticated call, and the service account usable. */
export function forgeCheck(deps: ForgeCheckDeps): ReadinessCheck {
  return {
    name: 'forge',
    async check() {
      if (deps.forge === null) return { state: 'not_configured', reason: 'FORGE_URL is not set' }
      if (!(await deps.hasToken())) {
        return { state: 'not_configured', reason: "the controller's forge token isn't in the secret store yet" }
      }
      const account = await deps.forge.getUser(deps.login)
      const stopped = account === null ? null : serviceAccountStopped(account)
      return stopped === null ? { state: 'ok' } : { state: 'failing', reason: stopped }
    },
  }
}

/** The secret store: answering a read of `path` (a missing secret is an answer too). */
export function secretStoreCheck(secrets: SecretStore, path: string, field: string): ReadinessCheck {
  return {
    name: 'secrets',
    async check() {
      await secrets.read(path, field)
      return { state: 'ok' }
    },
  }
}

/**
 * The subscription runtime's OAuth token: in the store while the settings
 * send any run to it (`runtime`, or a repo_runtimes pattern), since a run
 * without it gets no verdict; nothing to check otherwise. Only its presence
 * is read, never shown.
 */
export function subscriptionTokenCheck(deps: {
  settings: Pick<SettingsStore, 'read'>
  secrets: SecretStore
}): ReadinessCheck {
  return {
    name: 'subscription',
    async check() {
      if (!mayRunOn(await deps.settings.read(), 'subscription')) return { state: 'ok' }
      const { path, field } = RUNTIME_KEY_SECRETS.subscription
      const token = await deps.secrets.read(path, field)
      if (token !== null && token !== '') return { state: 'ok' }
      return {
        state: 'not_configured',
        reason: `the settings use the subscription runtime, and secret/${path} has no ${field}`,
      }
    },
  }
}
