/**
 * The settings' repo_runtimes on a requested review, through the Forgejo
 * adapter against the fake forge: the run request names the runtime the
 * policy resolved for the repo, and a repo sent to `none` gets a
 * `**No verdict:**` saying so, an `error` status and a `no-verdict`
 * record, with no run request sent and no runtime key read.
 */
import { afterEach, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { RETRY_HINT, renderNoVerdictBody } from '../../../../../core/review/review-body.ts'
import { noRuntimeReason } from '../../../../../core/settings/repo-runtimes.ts'
import { RUNTIME_KEY_SECRETS, SERVICE_TOKEN } from '../../../../../core/settings/service-account.ts'
import type { Settings } from '../../../../../core/wire/types.ts'
import { createReviewRunner } from '../../../../../entrypoints/controller/usecases/review/review-run.ts'
import type { SecretStore } from '../../../../../ports/secret-store.ts'
import { aSeedRepo } from '../../../../support/builders.ts'
import { type ForgejoHarness, startForgejoHarness } from '../../../../support/fake-forgejo/harness.ts'
import { approveAll, createWorld, REPO, SERVICE_ACCOUNT_TOKEN, type World } from '../../review-world.ts'

setDefaultTimeout(30_000)

const ACP = { base_url: 'https://llm.example/v1', model: 'qwen3', prices: { input: 0, output: 0 } }

let h: ForgejoHarness | null = null

afterEach(async () => {
  await h?.cleanup()
  h = null
})

/** The world on the fake forge, with every secret read recorded by path. */
async function policyWorld(settings: Partial<Settings>): Promise<{ world: World; h: ForgejoHarness; reads: string[] }> {
  h = await startForgejoHarness({
    users: [{ login: 'review-classifier' }, { login: 'alice' }],
    tokens: [{ login: 'review-classifier', name: 'swarm-review-classifier', token: SERVICE_ACCOUNT_TOKEN }],
    repos: [aSeedRepo({ collaborators: { 'review-classifier': 'write' } })],
  })
  const world = createWorld({ settings })
  const reads: string[] = []
  const secrets: SecretStore = {
    read(path, field) {
      reads.push(path)
      return world.secrets.read(path, field)
    },
    write: (path, field, value) => world.secrets.write(path, field, value),
  }
  return { world: { ...world, deps: { ...world.deps, forge: h.forge, secrets } }, h, reads }
}

async function review(world: World, harness: ForgejoHarness) {
  const pull = await harness.forge.getPullRequest(REPO, 42)
  const record = await createReviewRunner(world.deps).review({
    repo: REPO,
    pr: 42,
    headSha: pull.headSha,
    requester: 'alice',
  })
  return { record, head: pull.headSha }
}

describe('a review under repo_runtimes (fake forge)', () => {
  it.each([
    [
      'the exact repo over its owner',
      { 'acme/widgets': 'subscription', 'acme/*': 'acp', '*/*': 'api-key' },
      'subscription',
    ],
    ['the owner over */*', { 'acme/*': 'acp', '*/*': 'subscription' }, 'acp'],
    ['*/* over the runtime', { '*/*': 'subscription', 'globex/*': 'none' }, 'subscription'],
    ['the runtime when no pattern matches', { 'globex/*': 'none' }, 'api-key'],
  ] as const)('sends the run on %s', async (_name, policy, runtime) => {
    const { world, h } = await policyWorld({ acp: ACP, repo_runtimes: policy })
    await world.serve(approveAll)
    const { record } = await review(world, h)
    expect(world.requests.map((request) => request.runtime)).toEqual([runtime])
    expect(record.outcome).toBe('approved')
  })

  it('posts a no-verdict for a repo sent to none, sets error, records it, and sends no run', async () => {
    const { world, h, reads } = await policyWorld({ runtime: 'subscription', repo_runtimes: { 'acme/*': 'none' } })
    await world.serve(approveAll)
    const { record, head } = await review(world, h)

    expect(world.requests).toEqual([])
    const [posted, ...more] = h.fake.reviews(REPO, 42)
    expect(more).toEqual([])
    expect(posted?.state).toBe('COMMENT')
    expect(posted?.user).toBe('review-classifier')
    expect(posted?.body).toBe(renderNoVerdictBody(noRuntimeReason('acme/widgets', 'acme/*'), null))
    expect(posted?.body).toStartWith('**No verdict:** ')
    expect(posted?.body.endsWith(RETRY_HINT)).toBe(true)
    expect(h.fake.statuses(REPO, head).map((status) => status.state)).toEqual(['pending', 'error'])
    expect(record.outcome).toBe('no-verdict')
    expect(record.detail).toBe(noRuntimeReason('acme/widgets', 'acme/*'))
    // The service account's token for its acts, and never a runtime's key.
    const runtimeKeys: string[] = Object.values(RUNTIME_KEY_SECRETS).map((secret) => secret.path)
    expect(reads.filter((path) => runtimeKeys.includes(path))).toEqual([])
    expect(reads.every((path) => path === SERVICE_TOKEN.secret.path)).toBe(true)
  })
})
