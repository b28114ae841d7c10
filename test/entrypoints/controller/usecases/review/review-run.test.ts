import { describe, expect, it } from 'bun:test'
import { appError } from '../../../../../core/base/errors.ts'
import { RULES_JSON_PATH, RULES_YML_PATH } from '../../../../../core/repo-files/rules-file.ts'
import { NO_RUN } from '../../../../../core/review/no-run.ts'
import { RETRY_HINT, renderNoVerdictBody, renderReviewBody } from '../../../../../core/review/review-body.ts'
import { checkReplyRows } from '../../../../../core/run/aggregate.ts'
import { DIFF_READ_MAX_BYTES, diffOverReadCapMessage } from '../../../../../core/run/budget.ts'
import { SERVICE_ACCOUNT, SERVICE_TOKEN, serviceAccountStopped } from '../../../../../core/settings/service-account.ts'
import { createReviewRunner } from '../../../../../entrypoints/controller/usecases/review/review-run.ts'
import { createServiceAccountProvisioner } from '../../../../../entrypoints/controller/usecases/settings/service-account.ts'
import { aSeedRepo, TWO_RULES_YAML } from '../../../../support/builders.ts'
import {
  answeredRow,
  approveAll,
  createWorld,
  gate,
  REPO,
  requestFor,
  SERVICE_ACCOUNT_TOKEN,
  until,
  type World,
} from '../../review-world.ts'

function seedWith(files: Record<string, string>, extra: Partial<Parameters<typeof aSeedRepo>[0]> = {}) {
  return {
    users: [{ login: 'review-classifier' }, { login: 'alice' }],
    tokens: [{ login: 'review-classifier', name: 'swarm-review-classifier', token: SERVICE_ACCOUNT_TOKEN }],
    repos: [aSeedRepo({ files, ...extra })],
  }
}

function onlyReview(world: World) {
  const reviews = world.forge.reviews(REPO, 42)
  expect(reviews).toHaveLength(1)
  const [review] = reviews
  if (review === undefined) throw new Error('no review')
  return review
}

function onlyRecord(world: World) {
  expect(world.runs.records).toHaveLength(1)
  const [record] = world.runs.records
  if (record === undefined) throw new Error('no record')
  return record
}

async function expectNoVerdict(world: World, reason: string | RegExp) {
  const review = onlyReview(world)
  expect(review.event).toBe('COMMENT')
  expect(review.user).toBe('review-classifier')
  expect(review.body.startsWith('**No verdict:** ')).toBe(true)
  expect(review.body.endsWith(RETRY_HINT)).toBe(true)
  const record = onlyRecord(world)
  expect(record.outcome).toBe('no-verdict')
  if (typeof reason === 'string') expect(record.detail).toContain(reason)
  else expect(record.detail).toMatch(reason)
  return { review, record }
}

describe('createReviewRunner: verdicts', () => {
  it('approves on the head it read, with the table as the body, and records the run', async () => {
    const world = createWorld({ settings: { model: 'sonnet', effort: 'high' } })
    await world.serve(approveAll)
    const request = await requestFor(world, { requester: 'bob' })
    world.clock.set(Date.UTC(2026, 5, 30, 10, 0, 0))
    const record = await createReviewRunner(world.deps).review(request)

    const [sent] = world.requests
    if (sent === undefined) throw new Error('the classifier got no request')
    expect(sent).toMatchObject({
      trigger: 'review',
      repo: 'acme/widgets',
      pr: 42,
      title: 'Add timezone to timestamps',
      commits: [{ message: 'Add timezone to timestamps' }],
      model: 'sonnet',
      effort: 'high',
      runtime: 'api-key',
      acp: null,
    })
    expect(sent.diff).toContain('+now(UTC)')
    expect(sent.classifications.map((c) => c.name)).toEqual(['datetime'])

    const review = onlyReview(world)
    const rows = checkReplyRows(sent.classifications, approveAll(sent).rows).rows
    expect(review).toMatchObject({ event: 'APPROVED', user: 'review-classifier', commitId: request.headSha })
    expect(review.body).toBe(renderReviewBody(rows, 'approve'))
    expect(review.body).toContain('**Overall: approve.**')

    expect(record).toEqual({
      id: sent.id,
      trigger: 'review',
      repo: 'acme/widgets',
      pr: 42,
      requester: 'bob',
      head_sha: request.headSha,
      started_unix: Date.UTC(2026, 5, 30, 10, 0, 0) / 1000,
      finished_unix: Date.UTC(2026, 5, 30, 10, 0, 0) / 1000,
      outcome: 'approved',
      rows,
      overall: 'approve',
      review_url: review.htmlUrl,
    })
    expect(record.rows?.every((row) => !('usage' in row))).toBe(true)
    expect(world.runs.records).toEqual([record])
  })

  it('requests changes from its own check of the rows, whatever overall the reply claims', async () => {
    const world = createWorld({ seed: seedWith({ [RULES_YML_PATH]: TWO_RULES_YAML }) })
    await world.serve((request) => ({
      id: request.id,
      ok: true,
      rows: [
        answeredRow(request, 'datetime'),
        // A negative rule that matches is a violation; the reply says it doesn't fail.
        answeredRow(request, 'no-ads', { verdict: 'match', certainty: 99, counted: true, fails: false }),
      ],
      overall: 'approve',
    }))
    const record = await createReviewRunner(world.deps).review(await requestFor(world))
    const review = onlyReview(world)
    expect(review.event).toBe('REQUEST_CHANGES')
    expect(review.body).toContain('**Overall: request changes.**')
    expect(review.body).toContain('yes ❌')
    expect(record).toMatchObject({ outcome: 'changes-requested', overall: 'request-changes' })
    expect(record.detail).toBeUndefined()
  })

  it("posts on the PR's current head when the delivery's head is stale", async () => {
    const world = createWorld()
    await world.serve(approveAll)
    const stale = await requestFor(world)
    world.forge.upsertPull(REPO, {
      number: 42,
      headSha: 'c0ffee0000000000000000000000000000000001',
      diff: 'diff --git a/b b/b\n+pushed later\n',
    })
    const record = await createReviewRunner(world.deps).review(stale)
    expect(onlyReview(world).commitId).toBe('c0ffee0000000000000000000000000000000001')
    expect(record.head_sha).toBe('c0ffee0000000000000000000000000000000001')
    expect(world.requests[0]?.diff).toContain('pushed later')
  })

  it('reads the PR again when a push moves the head between the head and the diff', async () => {
    const world = createWorld()
    await world.serve(approveAll)
    let pushed = false
    const deps = {
      ...world.deps,
      forge: {
        ...world.forge,
        async getPullDiff(repo: typeof REPO, pr: number) {
          const diff = await world.forge.getPullDiff(repo, pr)
          if (!pushed) {
            pushed = true
            world.forge.upsertPull(REPO, {
              number: 42,
              headSha: 'beef000000000000000000000000000000000002',
              diff: 'diff --git a/c b/c\n+second head\n',
            })
          }
          return diff
        },
      },
    }
    const record = await createReviewRunner(deps).review(await requestFor(world))
    expect(world.requests[0]?.diff).toContain('second head')
    expect(onlyReview(world).commitId).toBe('beef000000000000000000000000000000000002')
    expect(record.head_sha).toBe('beef000000000000000000000000000000000002')
  })

  it('reads its settings and the rules while it reads the PR, not one after the other', async () => {
    const world = createWorld()
    await world.serve(approveAll)
    const request = await requestFor(world)
    const pullRead = gate()
    const reads: string[] = []
    const getPullRequest = world.forge.getPullRequest.bind(world.forge)
    const getRepository = world.forge.getRepository.bind(world.forge)
    const readSettings = world.deps.settings.read.bind(world.deps.settings)
    const deps = {
      ...world.deps,
      forge: Object.assign(Object.create(world.forge), {
        async getPullRequest(...args: Parameters<typeof getPullRequest>) {
          await pullRead.wait
          return getPullRequest(...args)
        },
        getRepository(...args: Parameters<typeof getRepository>) {
          reads.push('rules')
          return getRepository(...args)
        },
      }) as typeof world.forge,
      settings: {
        read() {
          reads.push('settings')
          return readSettings()
        },
      },
    }
    const reviewing = createReviewRunner(deps).review(request)
    // The PR's read is held: the other two have started all the same.
    await until(() => reads.length === 2, 'the settings and rules reads')
    expect(reads.sort()).toEqual(['rules', 'settings'])
    pullRead.open()
    expect((await reviewing).outcome).toBe('approved')
  })

  it('reads the rules from the default branch on every run, with no cache', async () => {
    const world = createWorld({
      seed: seedWith({}, { defaultBranch: 'trunk', branches: { main: { [RULES_YML_PATH]: TWO_RULES_YAML } } }),
    })
    world.forge.changeFile(
      REPO,
      'trunk',
      RULES_JSON_PATH,
      JSON.stringify({
        classifications: [{ name: 'from-trunk', description: 'Trunk rule.', threshold: 50, polarity: 'positive' }],
      }),
    )
    await world.serve(approveAll)
    const runner = createReviewRunner(world.deps)
    await runner.review(await requestFor(world))
    expect(world.requests[0]?.classifications.map((c) => c.name)).toEqual(['from-trunk'])

    world.forge.changeFile(
      REPO,
      'trunk',
      RULES_JSON_PATH,
      JSON.stringify({
        classifications: [{ name: 'merged-later', description: 'New rule.', threshold: 50, polarity: 'positive' }],
      }),
    )
    await runner.review(await requestFor(world))
    expect(world.requests[1]?.classifications.map((c) => c.name)).toEqual(['merged-later'])
  })
})

describe('createReviewRunner: no verdict', () => {
  it('comments when the classifier is not running', async () => {
    const world = createWorld()
    const request = await requestFor(world)
    await createReviewRunner(world.deps).review(request)
    const { review, record } = await expectNoVerdict(world, "the classifier isn't running (no responders)")
    expect(review.commitId).toBe(request.headSha)
    expect(record.head_sha).toBe(request.headSha)
    expect(record.rows).toBeUndefined()
    expect(review.body).toBe(renderNoVerdictBody(record.detail ?? '', null))
  })

  it('comments when the classifier does not answer in time', async () => {
    const world = createWorld({ runTimeoutMs: 50 })
    const held = gate()
    await world.serve(async (request) => {
      await held.wait
      return approveAll(request)
    })
    await createReviewRunner(world.deps).review(await requestFor(world))
    held.open()
    await expectNoVerdict(world, "the classifier didn't answer within")
  })

  it("comments with the run's own error when it failed as a whole", async () => {
    const world = createWorld()
    await world.serve((request) => ({
      id: request.id,
      ok: false,
      error: 'no key for the api-key runtime: secret/swarm/services/review-classifier/anthropic-api-key has no api_key',
      rows: [],
      overall: 'no-verdict',
    }))
    await run(world)
    const { record } = await expectNoVerdict(world, 'the run failed: no key for the api-key runtime')
    expect(record).toMatchObject({ rows: [], overall: 'no-verdict' })
  })

  it('comments naming the size and the budget for a diff over the budget, and never approves', async () => {
    const world = createWorld()
    await world.serve((request) => ({
      id: request.id,
      ok: false,
      error: "the PR's commits and diff come to 701 KB, over the 600 KB budget",
      rows: [],
      overall: 'approve',
    }))
    await run(world)
    const { review } = await expectNoVerdict(world, 'over the 600 KB budget')
    expect(review.body).toContain('701 KB')
  })

  it('comments with the table when the reply answers a different number of classifications', async () => {
    const world = createWorld({ seed: seedWith({ [RULES_YML_PATH]: TWO_RULES_YAML }) })
    await world.serve((request) => ({
      id: request.id,
      ok: true,
      rows: [answeredRow(request, 'datetime')],
      overall: 'approve',
    }))
    await run(world)
    const { review, record } = await expectNoVerdict(world, 'answered 1 classification for 2 sent')
    expect(review.body).toContain('| classification |')
    expect(record.overall).toBe('no-verdict')
    expect(record.rows?.map((row) => row.name)).toEqual(['datetime', 'no-ads'])
  })

  it('comments, never approves, when any classification has no answer', async () => {
    const world = createWorld({ seed: seedWith({ [RULES_YML_PATH]: TWO_RULES_YAML }) })
    await world.serve((request) => ({
      id: request.id,
      ok: true,
      rows: [
        answeredRow(request, 'datetime'),
        answeredRow(request, 'no-ads', {
          verdict: null,
          certainty: null,
          reason: null,
          counted: false,
          error: { kind: 'timeout', detail: 'no answer within 180 s' },
        }),
      ],
      overall: 'approve',
    }))
    await run(world)
    const { review } = await expectNoVerdict(world, '1 of 2 classifications got no answer (timeout: 1)')
    expect(review.body).toContain('no answer &#40;timeout&#41;')
  })

  it('comments when the settings cannot be read, and sends no run', async () => {
    const world = createWorld()
    await world.serve(approveAll)
    world.settings.fail(appError('unavailable', 'the swarm queue is not connected'))
    await run(world)
    const { record } = await expectNoVerdict(world, "the settings couldn't be read: the swarm queue is not connected")
    expect(world.requests).toHaveLength(0)
    expect(record.head_sha).toBeDefined()
  })

  it("comments on the delivery's head, and records no head, when the PR cannot be read", async () => {
    const world = createWorld()
    await world.serve(approveAll)
    const deps = {
      ...world.deps,
      forge: {
        ...world.forge,
        async getPullRequest() {
          throw appError('unavailable', 'the forge answered 502')
        },
      },
    }
    await createReviewRunner(deps).review(
      await requestFor(world, { headSha: 'aaaa000000000000000000000000000000000003' }),
    )
    const { review, record } = await expectNoVerdict(world, "the pull request couldn't be read: the forge answered 502")
    expect(review.commitId).toBe('aaaa000000000000000000000000000000000003')
    expect(record.head_sha).toBeUndefined()
    expect(world.requests).toHaveLength(0)
  })

  it('comments no verdict naming the cap for a diff over it, read once, and sends no run', async () => {
    const world = createWorld()
    await world.serve(approveAll)
    world.forge.upsertPull(REPO, { number: 42, diffBytes: DIFF_READ_MAX_BYTES + 1 })
    let diffReads = 0
    const deps = {
      ...world.deps,
      forge: {
        ...world.forge,
        getPullDiff(repo: typeof REPO, pr: number, maxBytes?: number) {
          diffReads += 1
          return world.forge.getPullDiff(repo, pr, maxBytes)
        },
      },
    }
    await createReviewRunner(deps).review(await requestFor(world))
    const { review } = await expectNoVerdict(world, diffOverReadCapMessage(DIFF_READ_MAX_BYTES))
    expect(review.body).toContain("the PR's diff is larger than 10 MB, the most the controller reads of a diff")
    expect(diffReads).toBe(1)
    expect(world.requests).toHaveLength(0)
  })

  it('comments naming both files when the default branch holds both', async () => {
    const world = createWorld({
      seed: seedWith({ [RULES_YML_PATH]: TWO_RULES_YAML, [RULES_JSON_PATH]: '{"classifications": []}' }),
    })
    await world.serve(approveAll)
    await run(world)
    const { record } = await expectNoVerdict(world, `${RULES_YML_PATH} and ${RULES_JSON_PATH}`)
    expect(world.requests).toHaveLength(0)
    expect(record.detail).toContain('both exist')
  })

  it('comments naming the path to add when the repo has no rules file', async () => {
    const world = createWorld({ seed: seedWith({ 'README.md': 'hello' }) })
    await world.serve(approveAll)
    await run(world)
    const { review } = await expectNoVerdict(world, 'acme/widgets has no rules file on its default branch main')
    expect(review.body).toContain(RULES_YML_PATH)
    expect(world.requests).toHaveLength(0)
  })

  it("comments naming the file and its problems when the rules don't load", async () => {
    const broken = TWO_RULES_YAML.replace('threshold: 90', 'threshold: 190').replace(
      'polarity: positive',
      'polarity: postive',
    )
    const world = createWorld({ seed: seedWith({ [RULES_YML_PATH]: broken }) })
    await world.serve(approveAll)
    await run(world)
    const { record } = await expectNoVerdict(world, `the rules file ${RULES_YML_PATH} doesn't load`)
    expect(record.detail).toContain('threshold must be a whole number 0–100')
    expect(record.detail).toContain('polarity must be "positive" or "negative"')
    expect(world.requests).toHaveLength(0)
  })

  it('comments when the reply belongs to another run', async () => {
    const world = createWorld()
    await world.serve((request) => ({ ...approveAll(request), id: 'someone-else' }))
    await run(world)
    await expectNoVerdict(world, 'the classifier answered another run')
  })
})

describe('createReviewRunner: posting', () => {
  it('posts nothing and records post-failed when the service account has no token', async () => {
    const world = createWorld({ token: null })
    await world.serve(approveAll)
    const record = await run(world).then(() => onlyRecord(world))
    expect(world.forge.reviews(REPO, 42)).toEqual([])
    expect(record.outcome).toBe('post-failed')
    expect(record.detail).toContain(SERVICE_TOKEN.secret.path)
    expect(record).toMatchObject({ overall: 'approve' })
    expect(record.review_url).toBeUndefined()
  })

  it("records the run's own reason, then why the post failed, and never leaks the token", async () => {
    const world = createWorld({ token: 'rc-revoked-token-77aa01' })
    await run(world)
    const record = onlyRecord(world)
    expect(world.forge.reviews(REPO, 42)).toEqual([])
    expect(record.outcome).toBe('post-failed')
    expect(record.detail).toMatch(/^the classifier isn't running \(no responders\); the review couldn't be posted: /)
    expect(JSON.stringify(world.runs.records)).not.toContain('rc-revoked-token-77aa01')
    expect(JSON.stringify(world.logger.entries)).not.toContain('rc-revoked-token-77aa01')
  })

  it('reads the token from the store for each post', async () => {
    const world = createWorld({ token: null })
    await world.serve(approveAll)
    const runner = createReviewRunner(world.deps)
    await runner.review(await requestFor(world))
    await world.secrets.write(SERVICE_TOKEN.secret.path, SERVICE_TOKEN.secret.field, SERVICE_ACCOUNT_TOKEN)
    await runner.review(await requestFor(world))
    expect(world.runs.records.map((r) => r.outcome)).toEqual(['approved', 'post-failed'])
    expect(onlyReview(world).event).toBe('APPROVED')
  })

  it("posts the queue-full comment on the delivery's head and records queue-full without a head", async () => {
    const world = createWorld()
    // A head the forge has, so the status on it is set and the detail is the reason alone.
    const request = await requestFor(world, { requester: 'carol' })
    const record = await createReviewRunner(world.deps).noRun(request, { kind: 'queue-full' })
    const review = onlyReview(world)
    expect(review).toMatchObject({ event: 'COMMENT', commitId: request.headSha })
    expect(review.body).toBe(renderNoVerdictBody(NO_RUN['queue-full'].reason, null))
    expect(record).toMatchObject({ outcome: 'queue-full', requester: 'carol', detail: NO_RUN['queue-full'].reason })
    expect(record.head_sha).toBeUndefined()
    expect(world.requests).toHaveLength(0)
  })
})

async function run(world: World): Promise<World> {
  await createReviewRunner(world.deps).review(await requestFor(world))
  return world
}

describe('a service account an admin stopped', () => {
  function stoppedWorld(flags: { active?: boolean; prohibitLogin?: boolean }): World {
    return createWorld({
      seed: {
        users: [{ login: 'review-classifier', email: SERVICE_ACCOUNT.email, flags }, { login: 'alice' }],
        tokens: [{ login: 'review-classifier', name: 'swarm-review-classifier', token: SERVICE_ACCOUNT_TOKEN }],
        repos: [aSeedRepo()],
      },
    })
  }

  it.each([
    [{ active: false }, { active: false, prohibitLogin: false }],
    [{ prohibitLogin: true }, { active: true, prohibitLogin: true }],
  ] as const)('runs nothing and posts nothing as it (%p), and records why', async (flags, account) => {
    const world = stoppedWorld(flags)
    await world.serve(approveAll)
    const provisioner = createServiceAccountProvisioner({
      forge: world.forge,
      secrets: world.secrets,
      logger: world.logger,
    })
    expect((await provisioner.runOnce()).outcome).toBe('stopped')
    // Every act as the account (the post and each commit status) starts with its token: count them.
    const acted: string[] = []
    const forge = {
      ...world.deps.forge,
      forAccount(token: string) {
        acted.push(token)
        return world.deps.forge.forAccount(token)
      },
    }
    const runner = createReviewRunner({ ...world.deps, forge, serviceAccount: provisioner })
    const request = await requestFor(world)
    const reason = serviceAccountStopped(account) ?? 'not stopped'

    expect(await runner.review(request)).toMatchObject({ outcome: 'post-failed', detail: reason })
    expect(world.requests).toEqual([])
    expect((await runner.noRun(request, { kind: 'queue-full' })).detail).toContain(reason)
    expect((await runner.noRun(request, { kind: 'stopping' })).detail).toContain(reason)
    expect(world.forge.reviews(REPO, 42)).toEqual([])
    // The commit statuses go through the same gate as the post: nothing at all is done as the account.
    expect(acted).toEqual([])
    expect(world.runs.records.map((r) => r.outcome)).toEqual(['post-failed', 'post-failed', 'post-failed'])
  })

  it("posts nothing without the provisioner's word either: the forge refuses the account's token", async () => {
    const world = stoppedWorld({ active: false })
    await world.serve(approveAll)
    const record = await createReviewRunner(world.deps).review(await requestFor(world))
    expect(record.outcome).toBe('post-failed')
    expect(record.detail).toContain('not active')
    expect(world.forge.reviews(REPO, 42)).toEqual([])
  })
})
