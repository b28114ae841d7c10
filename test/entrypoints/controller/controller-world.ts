/**
 * The whole controller for tests, as `createController` wires it, over the
 * review world (review-world.ts): its memory forge, queue, clock and ids,
 * a memory KV for the buckets, and a secret store holding the admin token
 * and the service account's token.
 */
import { createMemoryKv, type MemoryKv } from '../../../adapters/memory/kv.ts'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { CONTROLLER_TOKEN_SECRET, SERVICE_TOKEN } from '../../../core/settings/service-account.ts'
import { type Controller, createController } from '../../../entrypoints/controller/service.ts'
import { SERVICE_ACCOUNT_TOKEN, type World } from './review-world.ts'

export type ControllerOptions = {
  /** The webhook secret a test signs its deliveries with. */
  webhookSecret: string
  /** Whether the queue link says it is connected; default true. */
  connected?: boolean
  /** The KV buckets, for a test that makes them fail; default a fresh memory KV. */
  buckets?: MemoryKv
  /** `ALLOWED_HOSTS`; default none, which answers any host. */
  allowedHosts?: readonly string[] | null
}

export function aController(world: World, options: ControllerOptions): Controller {
  const connected = options.connected ?? true
  return createController({
    forge: { api: world.forge, webUrl: 'https://forge.example', noreplyDomain: 'forge.example' },
    queue: {
      link: { connected: () => connected },
      runQueue: world.queue,
      buckets: options.buckets ?? createMemoryKv(),
    },
    secrets: createMemorySecretStore({
      [CONTROLLER_TOKEN_SECRET.path]: { [CONTROLLER_TOKEN_SECRET.field]: 'admin-token' },
      [SERVICE_TOKEN.secret.path]: { [SERVICE_TOKEN.secret.field]: SERVICE_ACCOUNT_TOKEN },
    }),
    clock: world.clock,
    ids: world.deps.ids,
    logger: world.logger,
    webhookSecret: options.webhookSecret,
    runTimeoutMs: 5_000,
    drainTimeoutMs: 1_000,
    allowedHosts: options.allowedHosts ?? null,
  })
}
