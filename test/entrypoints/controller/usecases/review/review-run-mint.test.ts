/**
 * A review requested while the service account's token is being minted
 * (docs/behaviour.md, "The service account"): the run goes on, its post and
 * statuses wait for the provisioning pass, pending first; a pass that can't
 * mint ends the run `post-failed`, with the PR named in the log.
 */
import { describe, expect, it } from 'bun:test'
import { appError } from '../../../../../core/base/errors.ts'
import { SERVICE_ACCOUNT, SERVICE_TOKEN } from '../../../../../core/settings/service-account.ts'
import {
  createReviewRunner,
  LEFT_PENDING_MESSAGE,
} from '../../../../../entrypoints/controller/usecases/review/review-run.ts'
import { createServiceAccountProvisioner } from '../../../../../entrypoints/controller/usecases/settings/service-account.ts'
import { mintTimedOut } from '../../../../../entrypoints/controller/usecases/settings/service-token.ts'
import type { ForgeWriter } from '../../../../../ports/forge.ts'
import { aSeedRepo } from '../../../../support/builders.ts'
import {
  approveAll,
  createWorld,
  gate,
  REPO,
  requestFor,
  SERVICE_ACCOUNT_TOKEN,
  type World,
} from '../../review-world.ts'

/** The forge holds the service account with a token the store has lost; the store holds none. */
function unmintedWorld(flags: { active?: boolean } = {}): World {
  return createWorld({
    token: null,
    seed: {
      users: [{ login: 'review-classifier', email: SERVICE_ACCOUNT.email, flags }, { login: 'alice' }],
      tokens: [{ login: 'review-classifier', name: SERVICE_TOKEN.name, token: SERVICE_ACCOUNT_TOKEN }],
      repos: [aSeedRepo()],
    },
  })
}

type Mint = 'held' | 'refused'

/**
 * The world's forge with its mint `held` until `release()` (`reached` once a
 * pass asks) or `refused` as the forge would, the writes it took as the
 * account in order, and the mints asked.
 */
function watchedForge(world: World, mint: Mint) {
  const reached = gate()
  const released = gate()
  const writes: string[] = []
  let mints = 0
  const forge = {
    ...world.forge,
    async mintToken(login: string, token: { name: string; scopes: string[] }) {
      mints += 1
      if (mint === 'refused')
        throw appError('forbidden', 'the forge answered POST /users/review-classifier/tokens with 403')
      reached.open()
      await released.wait
      return world.forge.mintToken(login, token)
    },
    forAccount(token: string): ForgeWriter {
      const writer = world.forge.forAccount(token)
      return {
        ...writer,
        async setCommitStatus(repo, sha, status) {
          writes.push(`status ${status.state}`)
          return writer.setCommitStatus(repo, sha, status)
        },
        async createReview(repo, pr, review) {
          writes.push(`review ${review.event}`)
          return writer.createReview(repo, pr, review)
        },
      }
    },
  }
  return { forge, writes, reached: reached.wait, release: released.open, mints: () => mints }
}

function setUp(world: World, mint: Mint, tokenWaitMs?: number) {
  const watched = watchedForge(world, mint)
  const provisioner = createServiceAccountProvisioner({
    forge: watched.forge,
    secrets: world.secrets,
    logger: world.logger,
  })
  const runner = createReviewRunner({
    ...world.deps,
    forge: watched.forge,
    serviceAccount: provisioner,
    ...(tokenWaitMs === undefined ? {} : { tokenWaitMs }),
  })
  return { ...watched, provisioner, runner }
}

describe('a review requested while the token is being minted', () => {
  it('runs at once, then sets pending, posts and sets the verdict once the token is there', async () => {
    const world = unmintedWorld()
    const { runner, provisioner, writes, reached, release, mints } = setUp(world, 'held')
    const pass = provisioner.runOnce()
    await reached
    const asked = gate()
    await world.serve((request) => {
      asked.open()
      return approveAll(request)
    })
    const request = await requestFor(world)
    const review = runner.review(request)

    // The run read the PR and asked the classifier without the token.
    await asked.wait
    expect(await world.secrets.read(SERVICE_TOKEN.secret.path, SERVICE_TOKEN.secret.field)).toBeNull()
    expect(writes).toEqual([])
    release()
    const record = await review

    expect(writes).toEqual(['status pending', 'review APPROVED', 'status success'])
    expect(record).toMatchObject({ outcome: 'approved', review_url: world.forge.reviews(REPO, 42)[0]?.htmlUrl })
    expect(record.detail).toBeUndefined()
    expect(world.requests).toHaveLength(1)
    expect(mints()).toBe(1)
    expect((await pass).outcome).toBe('ready')
    expect(world.logger.withMessage(LEFT_PENDING_MESSAGE)).toEqual([])
  })

  it('records post-failed when the forge refuses the mint, naming the PR left pending, with one pass for the run', async () => {
    const world = unmintedWorld()
    // No pass in flight: the review's wait starts one.
    const { runner, writes, mints } = setUp(world, 'refused')
    await world.serve(approveAll)
    const request = await requestFor(world)
    const record = await runner.review(request)

    expect(writes).toEqual([])
    expect(world.forge.reviews(REPO, 42)).toEqual([])
    expect(record.outcome).toBe('post-failed')
    expect(record).toMatchObject({ overall: 'approve' })
    expect(record.detail).toStartWith(
      "the review couldn't be posted: the service account's token couldn't be minted: the provisioning pass failed at mint-token (the forge answered POST /users/review-classifier/tokens with 403); the next pass, within five minutes, tries again; the commit status couldn't be set (pending, success)",
    )
    expect(world.requests).toHaveLength(1)
    // One wait serves the pending, the post and the verdict's status.
    expect(mints()).toBe(1)
    expect(world.logger.withMessage(LEFT_PENDING_MESSAGE)).toEqual([
      {
        level: 'warn',
        msg: LEFT_PENDING_MESSAGE,
        fields: {
          repo: 'acme/widgets',
          pr: 42,
          head_sha: request.headSha,
          requester: 'alice',
          error: expect.stringContaining("the service account's token couldn't be minted"),
        },
      },
    ])
  })

  it('records post-failed with the reason when the pass finds the account deactivated', async () => {
    const world = unmintedWorld({ active: false })
    const { runner, mints } = setUp(world, 'refused')
    await world.serve(approveAll)
    const record = await runner.review(await requestFor(world))
    expect(record.outcome).toBe('post-failed')
    expect(record.detail).toContain('review-classifier is deactivated by an admin')
    expect(mints()).toBe(0)
    expect(world.logger.withMessage(LEFT_PENDING_MESSAGE)).toHaveLength(1)
  })

  it('stops waiting at its bound while the pass still runs, and records why', async () => {
    const world = unmintedWorld()
    const { runner, provisioner, reached, release, writes } = setUp(world, 'held', 1)
    const pass = provisioner.runOnce()
    await reached
    await world.serve(approveAll)
    const record = await runner.review(await requestFor(world))
    release()
    await pass

    expect(writes).toEqual([])
    expect(record.outcome).toBe('post-failed')
    expect(record.detail).toContain(mintTimedOut(1))
    expect(world.requests).toHaveLength(1)
  })

  it('fails at once, as before, without a provisioner to wait for', async () => {
    const world = unmintedWorld()
    await world.serve(approveAll)
    const record = await createReviewRunner(world.deps).review(await requestFor(world))
    expect(record.outcome).toBe('post-failed')
    expect(record.detail).toContain("the service account's token isn't minted yet")
  })
})
