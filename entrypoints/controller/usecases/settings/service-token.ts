/**
 * The service account's forge token, the one place it is read: from the
 * secret store for every post and every push, never cached, so a token the
 * provisioning pass re-minted counts from the next call.
 *
 * A token that is being minted is a wait, not a failure: a review's post and
 * its statuses wait for the provisioning pass (the one in flight, or one the
 * wait starts), at most the forge's own bound for a call, and fail only once
 * the pass has ended without a token (docs/behaviour.md, "The service account").
 */
import { err, type Result } from '../../../../core/base/result.ts'
import { CONTROLLER_TOKEN_SECRET, SERVICE_TOKEN } from '../../../../core/settings/service-account.ts'
import { FORGE_CALL_DEADLINE_MS } from '../../../../ports/forge.ts'
import { readSecret, type SecretStore } from '../../../../ports/secret-store.ts'

/**
 * Why there is no token to act with: the store failed, nothing is minted
 * yet, or an admin stopped the account on the forge (`disabled`).
 */
export type ServiceTokenProblem = { kind: 'unreadable' | 'missing' | 'disabled'; detail: string }

/** Whether the service account may act, and its token's arrival: the provisioner's answers (service-account.ts). */
export type ServiceAccountGate = {
  /** Why nothing may be done as the account right now, or `null`. */
  whyStopped(): Promise<string | null>
  /**
   * Joins the provisioning pass in flight, or starts one, and resolves when
   * it ends: `null` once it left a token in the store, else why no token
   * could be minted. Never rejects.
   */
  mintToken(): Promise<string | null>
}

/** How long a post or a status waits for a token being minted: the forge's own bound for one call. */
export const TOKEN_WAIT_MS = FORGE_CALL_DEADLINE_MS

/** The open-PR 503 while the token is being minted: the push doesn't wait, an HTTP answer can't wait minutes. */
export const TOKEN_MINTING_DETAIL = `the service account's token is being minted; try again in a minute (the forge has up to ${Math.round(TOKEN_WAIT_MS / 60_000)} minutes to answer the mint)`

/** The controller's own forge token (its reads), from the secret store at each call; null while none is there. */
export function readControllerToken(secrets: Pick<SecretStore, 'read'>): Promise<string | null> {
  return secrets.read(CONTROLLER_TOKEN_SECRET.path, CONTROLLER_TOKEN_SECRET.field)
}

/** The token, unless `account` says the account may not act; nothing is read from the store then. */
export async function readServiceToken(
  secrets: SecretStore,
  account?: Pick<ServiceAccountGate, 'whyStopped'>,
): Promise<Result<string, ServiceTokenProblem>> {
  const stopped = (await account?.whyStopped()) ?? null
  if (stopped !== null) return err({ kind: 'disabled', detail: stopped })
  const { path, field } = SERVICE_TOKEN.secret
  const token = await readSecret(secrets, SERVICE_TOKEN.secret)
  if (token.ok) return token
  if (token.error.kind === 'unreadable') {
    return err({
      kind: 'unreadable',
      detail: `the service account's token can't be read from the secret store: ${token.error.reason}`,
    })
  }
  return err({
    kind: 'missing',
    detail: `the service account's token isn't minted yet (${path}, field ${field}); the controller mints it within five minutes of reaching the forge`,
  })
}

/** The service account's token for one review: each call reads the store, and waits for a mint when the token is missing. */
export type ServiceTokens = {
  /** The token as stored now, or why not, without waiting for a mint. */
  now(): Promise<Result<string, ServiceTokenProblem>>
  /**
   * The token, or why not. A missing one is waited for once per review (the
   * first call's wait is every later call's): a mint that failed or ran past
   * `waitMs` fails every call alike, and starts no second pass.
   */
  read(): Promise<Result<string, ServiceTokenProblem>>
  /** Whether {@link read} would wait for a missing token (a provisioner is there and no wait has ended yet). */
  canWait(): boolean
}

/** Why a review's wait for its token ended without one, once `ms` passed with the pass still running. */
export function mintTimedOut(ms: number): string {
  return `the service account's token was still being minted after ${Math.round(ms / 1000)} s (the forge's bound for a call); the provisioning pass goes on, and a later review gets the token`
}

/** What a mint that ended without a token says, as the reason a post or a status failed. */
function mintFailed(why: string): string {
  return `the service account's token couldn't be minted: ${why.replace(/\.$/, '')}`
}

/** `work`'s value, or `late` once `ms` passed first; one timer, cleared when `work` wins. */
async function within<T>(work: Promise<T>, ms: number, late: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const bound = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late), ms)
  })
  try {
    return await Promise.race([work, bound])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * One review's token reads. Without `account` (no provisioner: tests, a
 * controller without a forge) a missing token fails at once, as it always did.
 */
export function createServiceTokens(
  secrets: SecretStore,
  account?: ServiceAccountGate,
  waitMs: number = TOKEN_WAIT_MS,
): ServiceTokens {
  /** The review's one wait: `null` once a pass left a token, else why none came. */
  let waited: Promise<string | null> | null = null
  let ended = false

  function waitForMint(gate: ServiceAccountGate): Promise<string | null> {
    waited ??= within(
      gate.mintToken().then(
        (why) => (why === null ? null : mintFailed(why)),
        // `mintToken` never rejects; should it, the review still doesn't wait twice.
        () => mintFailed('the provisioning pass failed'),
      ),
      waitMs,
      mintTimedOut(waitMs),
    ).finally(() => {
      ended = true
    })
    return waited
  }

  return {
    now: () => readServiceToken(secrets, account),
    async read() {
      const first = await readServiceToken(secrets, account)
      if (first.ok || first.error.kind !== 'missing' || account === undefined) return first
      const why = await waitForMint(account)
      if (why !== null) return err({ kind: 'missing', detail: why })
      return readServiceToken(secrets, account)
    },
    canWait: () => account !== undefined && !ended,
  } satisfies ServiceTokens
}
