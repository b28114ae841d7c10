/**
 * The commit status a review run leaves for the next reviewer (docs/behaviour.md,
 * "Reviewer handoff"): pending on the head the run read before the classifier
 * is asked, then the verdict's state linking to the posted review; a status
 * the forge refuses is logged and in the run's detail, and changes nothing
 * else. First against the memory forge, then through the real Forgejo
 * adapter against the fake forge.
 */
import { afterEach, describe, expect, it, setDefaultTimeout } from 'bun:test'
import type { StoredStatus } from '../../../../../adapters/memory/forge.ts'
import { appError } from '../../../../../core/base/errors.ts'
import type { ReviewRequest } from '../../../../../core/review/webhook.ts'
import type { RunReply, RunRequest } from '../../../../../core/wire/types.ts'
import { STATUS_REFUSED_MESSAGE } from '../../../../../entrypoints/controller/usecases/review/review-acts.ts'
import { createReviewRunner } from '../../../../../entrypoints/controller/usecases/review/review-run.ts'
import type { ForgeWriter } from '../../../../../ports/forge.ts'
import { aSeedRepo } from '../../../../support/builders.ts'
import { type ForgejoHarness, startForgejoHarness } from '../../../../support/fake-forgejo/harness.ts'
import {
  answeredRow,
  approveAll,
  createWorld,
  REPO,
  requestFor,
  SERVICE_ACCOUNT_TOKEN,
  type World,
} from '../../review-world.ts'

setDefaultTimeout(30_000)

const PENDING = "Checking this commit against the repo's rules"
const STALE_HEAD = '5a1e000000000000000000000000000000000001'

function seed(collaborator: 'read' | 'write' = 'write') {
  return {
    users: [{ login: 'review-classifier' }, { login: 'alice' }],
    tokens: [{ login: 'review-classifier', name: 'swarm-review-classifier', token: SERVICE_ACCOUNT_TOKEN }],
    repos: [aSeedRepo({ collaborators: { 'review-classifier': collaborator } })],
  }
}

function requestChanges(request: RunRequest): RunReply {
  return {
    id: request.id,
    ok: true,
    rows: [answeredRow(request, 'datetime', { verdict: 'no-match', fails: true })],
    overall: 'request-changes',
  }
}

function timedOut(request: RunRequest): RunReply {
  return {
    id: request.id,
    ok: true,
    rows: [
      answeredRow(request, 'datetime', {
        verdict: null,
        certainty: null,
        reason: null,
        counted: false,
        error: { kind: 'timeout', detail: 'no answer within 180 s' },
      }),
    ],
    overall: 'no-verdict',
  }
}

/** Each outcome: the script, the state and description it leaves, the review event it posts, the run's outcome. */
const OUTCOMES = [
  {
    name: 'approve',
    script: approveAll,
    state: 'success',
    description: 'Approve: no counted rule fails (1 of 1 rule counted)',
    event: 'APPROVED',
    outcome: 'approved',
  },
  {
    name: 'request changes',
    script: requestChanges,
    state: 'failure',
    description: 'Request changes: 1 counted rule fails (1 of 1 rule counted)',
    event: 'REQUEST_CHANGES',
    outcome: 'changes-requested',
  },
  {
    name: 'no verdict',
    script: timedOut,
    state: 'error',
    description: 'No verdict: 1 of 1 rule got no answer',
    event: 'COMMENT',
    outcome: 'no-verdict',
  },
] as const

function status(sha: string, overrides: Partial<StoredStatus>): StoredStatus {
  return {
    id: 1,
    sha,
    state: 'pending',
    context: 'review-classifier',
    description: PENDING,
    targetUrl: '',
    creator: 'review-classifier',
    ...overrides,
  }
}

async function headOf(world: World): Promise<{ sha: string; htmlUrl: string }> {
  const pull = await world.forge.getPullRequest(REPO, 42)
  return { sha: pull.headSha, htmlUrl: pull.htmlUrl }
}

describe('review run commit status (memory forge)', () => {
  it.each(OUTCOMES)(
    '$name: pending on the head it read before the classifier is asked, then $state linking to the review',
    async ({ script, state, description, event, outcome }) => {
      const world = createWorld()
      const head = await headOf(world)
      let seenByClassifier: { statuses: StoredStatus[]; reviews: number } | undefined
      await world.serve((request) => {
        seenByClassifier = {
          statuses: world.forge.statuses(REPO, head.sha),
          reviews: world.forge.reviews(REPO, 42).length,
        }
        return script(request)
      })
      // The delivery named an older head; the run reads the PR's own.
      const record = await createReviewRunner(world.deps).review(await requestFor(world, { headSha: STALE_HEAD }))

      expect(seenByClassifier).toEqual({ statuses: [status(head.sha, { targetUrl: head.htmlUrl })], reviews: 0 })
      const [review] = world.forge.reviews(REPO, 42)
      expect(review).toMatchObject({ event, commitId: head.sha })
      expect(world.forge.statuses(REPO, head.sha)).toEqual([
        status(head.sha, { targetUrl: head.htmlUrl }),
        status(head.sha, { id: 2, state, description, targetUrl: review?.htmlUrl ?? 'no review' }),
      ])
      expect(world.forge.statuses(REPO, STALE_HEAD)).toEqual([])
      expect(record.outcome).toBe(outcome)
      if (outcome !== 'no-verdict') expect(record.detail).toBeUndefined()
      expect(world.logger.withMessage(STATUS_REFUSED_MESSAGE)).toEqual([])
    },
  )

  it('sets pending before a no-verdict that comes before any run, and error once the comment is posted', async () => {
    const world = createWorld({ seed: { ...seed(), repos: [aSeedRepo({ files: { 'README.md': 'hi' } })] } })
    await world.serve(approveAll)
    const head = await headOf(world)
    await createReviewRunner(world.deps).review(await requestFor(world))
    expect(world.requests).toHaveLength(0)
    const [review] = world.forge.reviews(REPO, 42)
    expect(world.forge.statuses(REPO, head.sha)).toEqual([
      status(head.sha, { targetUrl: head.htmlUrl }),
      status(head.sha, {
        id: 2,
        state: 'error',
        description: 'No verdict: the run ended without a clean verdict',
        targetUrl: review?.htmlUrl ?? 'no review',
      }),
    ])
  })

  it("sets no pending when the PR can't be read, and error on the delivery's head linking to the comment", async () => {
    const world = createWorld()
    await world.serve(approveAll)
    const request = await requestFor(world)
    const deps = {
      ...world.deps,
      forge: {
        ...world.forge,
        async getPullRequest() {
          throw appError('unavailable', 'the forge answered 502')
        },
      },
    }
    await createReviewRunner(deps).review(request)
    const [comment] = world.forge.reviews(REPO, 42)
    expect(world.forge.statuses(REPO, request.headSha)).toEqual([
      status(request.headSha, {
        state: 'error',
        description: 'No verdict: the run ended without a clean verdict',
        targetUrl: comment?.htmlUrl ?? 'no comment',
      }),
    ])
  })

  /** The memory forge, with every review post failing. */
  function failingPosts(world: World) {
    return {
      ...world.forge,
      forAccount(token: string): ForgeWriter {
        const writer = world.forge.forAccount(token)
        return {
          ...writer,
          async createReview() {
            throw appError('unavailable', 'the forge answered 500')
          },
        }
      },
    }
  }

  it("links to the PR when the review couldn't be posted, and still says the verdict", async () => {
    const world = createWorld()
    await world.serve(approveAll)
    const head = await headOf(world)
    const record = await createReviewRunner({ ...world.deps, forge: failingPosts(world) }).review(
      await requestFor(world),
    )
    expect(record.outcome).toBe('post-failed')
    expect(record.detail).toBe("the review couldn't be posted: the forge answered 500")
    expect(world.forge.statuses(REPO, head.sha).at(-1)).toMatchObject({ state: 'success', targetUrl: head.htmlUrl })
  })

  it('links nowhere when neither the PR was read nor the comment posted', async () => {
    const world = createWorld()
    const request = await requestFor(world)
    const forge = {
      ...failingPosts(world),
      async getPullRequest(): Promise<never> {
        throw appError('unavailable', 'the forge answered 502')
      },
    }
    await createReviewRunner({ ...world.deps, forge }).review(request)
    expect(world.forge.statuses(REPO, request.headSha)).toMatchObject([{ state: 'error', targetUrl: '' }])
  })

  it("sets error, and no pending, for a request turned away, linking to the comment on the delivery's head", async () => {
    const world = createWorld()
    const request = await requestFor(world)
    await createReviewRunner(world.deps).noRun(request, { kind: 'queue-full' })
    const [comment] = world.forge.reviews(REPO, 42)
    expect(world.forge.statuses(REPO, request.headSha)).toEqual([
      status(request.headSha, {
        state: 'error',
        description: 'No verdict: every review place was taken, so no run started',
        targetUrl: comment?.htmlUrl ?? 'no comment',
      }),
    ])
  })

  it('leaves its own error status for a delivery turned away while the controller stops, where its comment went', async () => {
    const world = createWorld()
    const request = await requestFor(world)
    const record = await createReviewRunner(world.deps).noRun(request, { kind: 'stopping' })
    const [comment] = world.forge.reviews(REPO, 42)
    expect(record.outcome).toBe('no-verdict')
    expect(world.forge.statuses(REPO, request.headSha)).toEqual([
      status(request.headSha, {
        state: 'error',
        description: 'No verdict: the controller was stopping, so no run started',
        targetUrl: comment?.htmlUrl ?? 'no comment',
      }),
    ])
  })

  it('logs a status the forge refuses and records it in the detail; the review posts and the outcome stays', async () => {
    // Read access is enough for a review, not for a status (docs/forgejo.md §3.17).
    const world = createWorld({ seed: seed('read') })
    await world.serve(approveAll)
    const head = await headOf(world)
    const record = await createReviewRunner(world.deps).review(await requestFor(world))
    const [review] = world.forge.reviews(REPO, 42)
    expect(review?.event).toBe('APPROVED')
    expect(world.forge.statuses(REPO, head.sha)).toEqual([])
    expect(record).toMatchObject({ outcome: 'approved', overall: 'approve', review_url: review?.htmlUrl })
    expect(record.detail).toBe(
      "the commit status couldn't be set (pending, success): review-classifier has no write access to acme/widgets",
    )
    expect(world.logger.withMessage(STATUS_REFUSED_MESSAGE)).toEqual(
      (['pending', 'success'] as const).map((state) => ({
        level: 'warn',
        msg: STATUS_REFUSED_MESSAGE,
        fields: {
          repo: 'acme/widgets',
          pr: 42,
          head_sha: head.sha,
          state,
          error: 'review-classifier has no write access to acme/widgets',
        },
      })),
    )
  })

  it("keeps a no-verdict's reason first and the refused status after it", async () => {
    const world = createWorld({ seed: seed('read') })
    await world.serve(timedOut)
    const record = await createReviewRunner(world.deps).review(await requestFor(world))
    expect(record.outcome).toBe('no-verdict')
    expect(record.detail).toBe(
      "1 of 1 classifications got no answer (timeout: 1); the commit status couldn't be set (pending, error): review-classifier has no write access to acme/widgets",
    )
  })
})

describe('review run commit status (Forgejo adapter, fake forge)', () => {
  let h: ForgejoHarness | null = null
  afterEach(async () => {
    await h?.cleanup()
    h = null
  })

  async function forgejoWorld(collaborator: 'read' | 'write' = 'write'): Promise<{ world: World; h: ForgejoHarness }> {
    h = await startForgejoHarness(seed(collaborator))
    const world = createWorld()
    return { world: { ...world, deps: { ...world.deps, forge: h.forge } }, h }
  }

  const STATUS_ROUTE = '/repos/{owner}/{repo}/statuses/{sha}'

  /** A request at the head the fake forge holds for PR 42. */
  async function requestAtHead(h: ForgejoHarness): Promise<ReviewRequest> {
    const pull = await h.forge.getPullRequest(REPO, 42)
    return { repo: REPO, pr: 42, headSha: pull.headSha, requester: 'alice' }
  }

  it.each(OUTCOMES)('$name: pending first on the head read, then the review, then $state', async (case_) => {
    const { world, h } = await forgejoWorld()
    const pull = await h.forge.getPullRequest(REPO, 42)
    let statusesSeenByClassifier: string[] = []
    await world.serve((request) => {
      statusesSeenByClassifier = h.fake.statuses(REPO, pull.headSha).map((s) => s.state)
      return case_.script(request)
    })
    const record = await createReviewRunner(world.deps).review({
      repo: REPO,
      pr: 42,
      headSha: STALE_HEAD,
      requester: 'alice',
    })

    expect(statusesSeenByClassifier).toEqual(['pending'])
    const writes = h.fake.requests.filter((r) => r.method !== 'GET')
    expect(writes.map((r) => [r.method, r.template, r.path, r.login])).toEqual([
      ['POST', STATUS_ROUTE, `/repos/acme/widgets/statuses/${pull.headSha}`, 'review-classifier'],
      [
        'POST',
        '/repos/{owner}/{repo}/pulls/{index}/reviews',
        '/repos/acme/widgets/pulls/42/reviews',
        'review-classifier',
      ],
      ['POST', STATUS_ROUTE, `/repos/acme/widgets/statuses/${pull.headSha}`, 'review-classifier'],
    ])
    const [review] = h.fake.reviews(REPO, 42)
    expect(writes.map((r) => r.body)).toEqual([
      { state: 'pending', context: 'review-classifier', description: PENDING, target_url: pull.htmlUrl },
      expect.objectContaining({ event: case_.event, commit_id: pull.headSha }),
      {
        state: case_.state,
        context: 'review-classifier',
        description: case_.description,
        target_url: review?.htmlUrl,
      },
    ])
    expect(review?.htmlUrl).toMatch(/\/acme\/widgets\/pulls\/42#issuecomment-\d+$/)
    expect(record).toMatchObject({ outcome: case_.outcome, review_url: review?.htmlUrl })
    if (case_.outcome !== 'no-verdict') expect(record.detail).toBeUndefined()
  })

  it.each([
    [
      'an account that only reads the repo (403)',
      'read',
      null,
      /with 403: user should have a permission to write to a repo$/,
    ],
    ['a commit the forge says it lacks (404)', 'write', 404, /with 404/],
    ['a forge failing (500)', 'write', 500, /with 500$/],
  ] as const)(
    'records a status refused by %s in the detail; the review posts and the outcome stays',
    async (_, access, failure, said) => {
      const { world, h } = await forgejoWorld(access)
      if (failure !== null) h.fake.failNext('POST', STATUS_ROUTE, { status: failure }, 2)
      await world.serve(approveAll)
      const record = await createReviewRunner(world.deps).review(await requestAtHead(h))

      const [review] = h.fake.reviews(REPO, 42)
      expect(review).toMatchObject({ state: 'APPROVED', user: 'review-classifier' })
      expect(record).toMatchObject({ outcome: 'approved', overall: 'approve', review_url: review?.htmlUrl })
      expect(record.detail).toStartWith(
        "the commit status couldn't be set (pending, success): the forge answered POST ",
      )
      expect(record.detail).toMatch(said)
      expect(JSON.stringify(record)).not.toContain(SERVICE_ACCOUNT_TOKEN)
      expect(world.logger.withMessage(STATUS_REFUSED_MESSAGE).map((e) => [e.level, e.fields.state])).toEqual([
        ['warn', 'pending'],
        ['warn', 'success'],
      ])
    },
  )

  it('sets the final status when only the pending one was refused', async () => {
    const { world, h } = await forgejoWorld()
    h.fake.failNext('POST', STATUS_ROUTE, { status: 500 })
    await world.serve(approveAll)
    const pull = await h.forge.getPullRequest(REPO, 42)
    const record = await createReviewRunner(world.deps).review(await requestAtHead(h))
    expect(h.fake.statuses(REPO, pull.headSha).map((s) => s.state)).toEqual(['success'])
    expect(record.outcome).toBe('approved')
    expect(record.detail).toMatch(
      /^the commit status couldn't be set \(pending\): the forge answered POST .* with 500$/,
    )
  })
})
