/** The Forgejo adapter behind a fake forge, as the forge contract's harness and for the adapter's own tests. */
import { createForgejoForge, type ForgejoForgeConfig } from '../../../adapters/forgejo/forge.ts'
import type { ForgeSeed, StoredReview } from '../../../adapters/memory/forge.ts'
import type { ReviewEvent } from '../../../core/wire/types.ts'
import type { Forge } from '../../../ports/forge.ts'
import type { ForgeHarness } from '../../ports/forge.fixtures.ts'
import { createFakeForgejo, type FakeForgejo, type FakeForgejoOptions, type FakeReview } from '../fake-forgejo.ts'

/** The controller's site-admin token in every fake built here (40 hex characters, like Forgejo's). */
export const ADMIN_TOKEN = 'ad1000ad1000ad1000ad1000ad1000ad1000ad10'
export const ADMIN_LOGIN = 'swarm-controller'

export type ForgejoHarness = ForgeHarness & { fake: FakeForgejo; forge: Forge }

const EVENTS: Record<Exclude<FakeReview['state'], 'PENDING'>, ReviewEvent> = {
  APPROVED: 'APPROVED',
  REQUEST_CHANGES: 'REQUEST_CHANGES',
  COMMENT: 'COMMENT',
}

function toStoredReview(review: FakeReview): StoredReview {
  // A pending draft is a review nobody sees: the adapter must never leave one.
  if (review.state === 'PENDING') throw new Error(`review ${review.id} was stored as a pending draft`)
  const { id, pr, user, body, commitId, htmlUrl } = review
  return { id, pr, user, event: EVENTS[review.state], body, commitId, htmlUrl }
}

/**
 * A fake forge holding `seed` plus a site-admin token for `swarm-controller`
 * (added to the seed's users when missing), and the adapter pointed at it.
 */
export async function startForgejoHarness(
  seed: ForgeSeed,
  options: Omit<FakeForgejoOptions, 'seed'> = {},
  config: Partial<ForgejoForgeConfig> = {},
): Promise<ForgejoHarness> {
  const users = seed.users ?? []
  const withAdmin: ForgeSeed = {
    ...seed,
    users: users.some((u) => u.login === ADMIN_LOGIN) ? users : [...users, { login: ADMIN_LOGIN, admin: true }],
    tokens: [...(seed.tokens ?? []), { login: ADMIN_LOGIN, name: 'controller', token: ADMIN_TOKEN, scopes: ['all'] }],
  }
  const fake = createFakeForgejo({ ...options, seed: withAdmin })
  const forge = createForgejoForge({ baseUrl: fake.url, token: async () => ADMIN_TOKEN, ...config })
  return {
    fake,
    forge,
    reviews: async (repo, pr) => fake.reviews(repo, pr).map(toStoredReview),
    statuses: async (repo, sha) => fake.statuses(repo, sha),
    changeFile: async (repo, branch, path, content) => fake.changeFile(repo, branch, path, content),
    addComment: async (repo, pr, login, body) => fake.addComment(repo, pr, login, body),
    comments: async (repo, pr) => fake.comments(repo, pr),
    async accountFlags(login) {
      const flags = fake.flags(login)
      if (flags === null) return null
      const { active, prohibitLogin, mustChangePassword, maxRepoCreation, allowCreateOrganization } = flags
      return { active, prohibitLogin, mustChangePassword, maxRepoCreation, allowCreateOrganization }
    },
    cleanup: () => fake.stop(),
  }
}
