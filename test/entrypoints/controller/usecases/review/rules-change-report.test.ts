/**
 * The rules-change report on a review, end to end through the review runner:
 * the memory forge holding the default branch's rules and examples, a PR that
 * changes the rules (its own version at its head), the labelled PRs, and a
 * scripted classifier that answers each version of a rule its own way. The
 * review is requested by `alice`, who may write to the repo; the report is
 * a COMMENT review of its own, posted after the verdict.
 */
import { describe, expect, it } from 'bun:test'
import { EXAMPLES_YML_PATH } from '../../../../../core/repo-files/examples-file.ts'
import { RULES_YML_PATH } from '../../../../../core/repo-files/rules-file.ts'
import { renderReviewBody } from '../../../../../core/review/review-body.ts'
import type { RunReply, RunRequest, Settings, Verdict } from '../../../../../core/wire/types.ts'
import { createReviewRunner } from '../../../../../entrypoints/controller/usecases/review/review-run.ts'
import type { RunBudget } from '../../../../../entrypoints/controller/usecases/settings/spend-ledger.ts'
import { aNumberedPull, aSeedRepo, headOf, TWO_RULES_YAML } from '../../../../support/builders.ts'
import { startForgejoHarness } from '../../../../support/fake-forgejo/harness.ts'
import { answeredRow, createWorld, REPO, requestFor, SERVICE_ACCOUNT_TOKEN, type World } from '../../review-world.ts'

const BASE_RULES = TWO_RULES_YAML
// The PR rewords datetime, drops no-ads and adds tests.
const PR_RULES = `classifications:
  - name: datetime
    description: Every datetime carries a UTC offset.
    polarity: positive
    threshold: 80
  - name: tests
    description: New code comes with a test.
    polarity: positive
    threshold: 70
`
const EXAMPLES = `examples:
  - pr: 12
    expect:
      datetime: no-match
  - pr: 31
    expect:
      datetime: match
      no-ads: no-match
      tests: match
`
const RULES_DIFF = `diff --git a/${RULES_YML_PATH} b/${RULES_YML_PATH}\nindex 1111111..2222222 100644\n--- a/${RULES_YML_PATH}\n+++ b/${RULES_YML_PATH}\n@@ -1 +1 @@\n-old\n+new\n`

function worldWith(
  options: {
    files?: Record<string, string>
    diff?: string
    headFiles?: Record<string, string>
    settings?: Partial<Settings>
  } = {},
): World {
  const files = options.files ?? { [RULES_YML_PATH]: BASE_RULES, [EXAMPLES_YML_PATH]: EXAMPLES }
  return createWorld({
    seed: {
      users: [{ login: 'review-classifier' }, { login: 'alice' }, { login: 'mallory' }],
      tokens: [{ login: 'review-classifier', name: 'swarm-review-classifier', token: SERVICE_ACCOUNT_TOKEN }],
      repos: [
        aSeedRepo({
          collaborators: { 'review-classifier': 'write', alice: 'write' },
          files,
          pulls: [aNumberedPull(42, { diff: options.diff ?? RULES_DIFF }), aNumberedPull(12), aNumberedPull(31)],
          commits: { [headOf(42)]: options.headFiles ?? { ...files, [RULES_YML_PATH]: PR_RULES } },
        }),
      ],
    },
    ...(options.settings === undefined ? {} : { settings: options.settings }),
  })
}

/**
 * The PR under review passes every rule. On PR 12 the old datetime matches (a false pass against its
 * no-match label) and the new one doesn't (it agrees, and fails the review); everything else passes.
 */
function scripted(request: RunRequest): RunReply {
  const verdictOf = (description: string, polarity: string): Verdict => {
    if (request.pr === 12 && description.startsWith('Every datetime')) return 'no-match'
    return polarity === 'positive' ? 'match' : 'no-match'
  }
  return {
    id: request.id,
    ok: true,
    rows: request.classifications.map((rule) =>
      answeredRow(request, rule.name, { verdict: verdictOf(rule.description, rule.polarity), certainty: 95 }),
    ),
    overall: 'approve',
  }
}

/** The review's verdict, and the report posted after it (a COMMENT review; null when there is none). */
async function reviewWithReport(
  world: World,
  deps: Partial<Parameters<typeof createReviewRunner>[0]> = {},
  requester = 'alice',
) {
  await world.serve(scripted)
  await createReviewRunner({ ...world.deps, ...deps }).review(await requestFor(world, { requester }))
  const [verdict, report, ...more] = world.forge.reviews(REPO, 42)
  if (verdict === undefined) throw new Error('no review posted')
  expect(more).toEqual([])
  if (report !== undefined) {
    expect(report.event).toBe('COMMENT')
    expect(report.commitId).toBe(verdict.commitId)
  }
  return { verdict, report: report ?? null }
}

/** The report's body, which the test expects to be there. */
async function review(world: World, deps: Partial<Parameters<typeof createReviewRunner>[0]> = {}) {
  const { verdict, report } = await reviewWithReport(world, deps)
  expect(verdict.body).not.toContain('Rules change report')
  return { event: verdict.event, body: report?.body ?? '' }
}

/** A budget that grants every run and answers `whyNoRun` from `answers` in turn (null once they run out). */
function aSpend(answers: Array<string | null | Error>, reserve: RunBudgetAnswer = () => null) {
  let runs = 0
  return {
    async whyNoRun() {
      const next = answers.shift() ?? null
      if (next instanceof Error) throw next
      return next
    },
    async reserve(): Promise<RunBudget> {
      runs += 1
      const refusal = reserve(runs)
      return refusal === null
        ? { kind: 'granted', settle: async () => undefined }
        : { kind: 'refused', reason: refusal }
    },
  }
}

/** The refusal for the n-th run reserved, or null to grant it. */
type RunBudgetAnswer = (run: number) => string | null

function reviewRequests(world: World): RunRequest[] {
  return world.requests.filter((request) => request.pr === 42)
}

describe('a review of a PR that changes the rules', () => {
  it('gets, after the verdict, its own post scoring the PR’s rules against the default branch’s; the verdict stays the default’s', async () => {
    const world = worldWith()
    const { verdict, report: posted } = await reviewWithReport(world)

    expect(verdict.event).toBe('APPROVED')
    expect(reviewRequests(world).map((request) => request.classifications.map((rule) => rule.name))).toEqual([
      ['datetime', 'no-ads'],
    ])
    expect(world.forge.statuses(REPO, headOf(42)).at(-1)).toMatchObject({ state: 'success' })
    expect(verdict.body.startsWith(renderReviewBody([], 'approve').split('\n')[0] ?? '')).toBe(true)
    expect(verdict.body).toContain('**Overall: approve.**')
    expect(verdict.body).not.toContain('Rules change report')
    const report = posted?.body ?? ''
    expect(report.startsWith('**Rules change report**')).toBe(true)
    expect(report).toContain("This PR's rules, scored against the default branch's on the newest 2 labelled PRs")
    expect(report).toContain('| datetime | 2 → 2 | 1 → 2 | 1 → 0 | 1 → 0 |')
    expect(report).toContain('| no-ads | 1 → — | 1 → — | 0 → — | 0 → — |')
    expect(report).toContain('| tests | — → 1 | — → 1 | — → 0 | — → 0 |')
    expect(report).toContain('Added: tests. Removed: no-ads.')
    // PR numbers are escaped like the table, so the report references no labelled PR.
    expect(report).toContain('Would be reviewed otherwise: &#35;\u200B12 (approve → request changes).')
    expect(report).not.toMatch(/(^|[^;])#12/)

    // Each labelled PR asked twice at most: the default branch's rules, then the PR's new questions.
    const labelled = world.requests.filter((request) => request.pr !== 42)
    expect(labelled.map((request) => [request.pr, request.classifications.map((rule) => rule.name)]).sort()).toEqual([
      [12, ['datetime', 'no-ads']],
      [12, ['datetime', 'tests']],
      [31, ['datetime', 'no-ads']],
      [31, ['datetime', 'tests']],
    ])
    // Only the review is recorded.
    expect(world.runs.records).toHaveLength(1)
  })

  it('has no report on a PR that changes neither file, and none with the setting off', async () => {
    const untouched = worldWith({ diff: aNumberedPull(42).diff ?? '' })
    expect((await review(untouched)).body).not.toContain('Rules change report')
    expect(untouched.requests).toHaveLength(1)

    const off = worldWith({ settings: { rules_change_report: false } })
    const posted = await review(off)
    expect(posted.body).not.toContain('Rules change report')
    expect(posted.event).toBe('APPROVED')
    expect(off.requests).toHaveLength(1)
  })

  it('is skipped with one line when there is no examples file, it does not load, or the budget says no', async () => {
    const none = worldWith({ files: { [RULES_YML_PATH]: BASE_RULES } })
    expect((await review(none)).body).toContain(
      '**Rules change report**: skipped, the repo has no examples file to score the rules against',
    )
    const broken = worldWith({
      files: { [RULES_YML_PATH]: BASE_RULES, [EXAMPLES_YML_PATH]: EXAMPLES.replace('pr: 31', 'pr: 12') },
    })
    const brokenBody = (await review(broken)).body
    expect(brokenBody).toContain(
      "**Rules change report**: skipped, on the default branch, the examples file .hyperhive/review-classifier.examples.yml doesn't load:",
    )
    const refused = worldWith()
    const posted = await review(refused, { spend: aSpend([null, "today's budget for acme/widgets is spent"]) })
    expect(posted.body).toContain("**Rules change report**: skipped, today's budget for acme/widgets is spent")
    for (const world of [none, broken, refused]) {
      expect(world.requests).toHaveLength(1)
      expect(world.forge.reviews(REPO, 42)[0]?.event).toBe('APPROVED')
    }
  })
  it("asks the review's own budget, and skips on its words once it is spent or can't be read", async () => {
    const spentLater = worldWith()
    const answers = [null, "today's budget of $5.00 (UTC) is spent"]
    const posted = await review(spentLater, { spend: aSpend(answers) })
    expect(answers).toEqual([])
    expect(posted.event).toBe('APPROVED')
    // Escaped like the table: the budget's words are text, not Markdown.
    expect(posted.body).toContain(
      "**Rules change report**: skipped, today's budget of &#36;5.00 &#40;UTC&#41; is spent",
    )
    expect(spentLater.requests).toHaveLength(1)

    const unreadable = worldWith()
    const body = (await review(unreadable, { spend: aSpend([null, new Error('ledger down')]) })).body
    expect(body).toContain("**Rules change report**: skipped, the daily budget couldn't be read")
    expect(unreadable.requests).toHaveLength(1)
  })

  it("sends the report's runs to the runtime the review resolved for the repo", async () => {
    const world = worldWith({ settings: { repo_runtimes: { 'acme/*': 'subscription' } } })
    await review(world)
    expect(world.requests.length).toBeGreaterThan(1)
    expect(new Set(world.requests.map((request) => request.runtime))).toEqual(new Set(['subscription']))
  })

  it('scores a PR that changes only the examples on its own labels, asking each PR once', async () => {
    const examplesDiff = RULES_DIFF.replaceAll(RULES_YML_PATH, EXAMPLES_YML_PATH)
    const relabelled = EXAMPLES.replace('datetime: no-match', 'datetime: match')
    const world = worldWith({
      diff: examplesDiff,
      headFiles: { [RULES_YML_PATH]: BASE_RULES, [EXAMPLES_YML_PATH]: relabelled },
    })
    const posted = await review(world)
    expect(posted.body).toContain("This PR's rules and examples, scored against the default branch's")
    // PR 12 answers match: a false pass against the old label, an agreement with the new one.
    expect(posted.body).toContain('| datetime | 2 → 2 | 1 → 2 | 1 → 0 | 1 → 0 |')
    expect(posted.body).toContain('Added: none. Removed: none.')
    expect(posted.body).toContain('No labelled PR would be reviewed otherwise.')
    expect(world.requests.filter((request) => request.pr !== 42)).toHaveLength(2)
  })

  it("is skipped when the PR's own rules don't load, and the verdict still posts", async () => {
    const world = worldWith({ headFiles: { [RULES_YML_PATH]: 'classifications: [\n', [EXAMPLES_YML_PATH]: EXAMPLES } })
    const posted = await review(world)
    expect(posted.event).toBe('APPROVED')
    expect(posted.body).toContain(
      "**Rules change report**: skipped, in this PR, the rules file .hyperhive/review-classifier.yml doesn't load:",
    )
    expect(world.requests).toHaveLength(1)
  })
  it('reads the PR’s own rules at its head through the Forgejo adapter from the fake forge', async () => {
    const world = worldWith()
    const h = await startForgejoHarness({
      users: [{ login: 'review-classifier' }, { login: 'alice' }],
      tokens: [{ login: 'review-classifier', name: 'swarm-review-classifier', token: SERVICE_ACCOUNT_TOKEN }],
      repos: [
        aSeedRepo({
          collaborators: { 'review-classifier': 'write', alice: 'write' },
          files: { [RULES_YML_PATH]: BASE_RULES, [EXAMPLES_YML_PATH]: EXAMPLES },
          pulls: [aNumberedPull(42, { diff: RULES_DIFF }), aNumberedPull(12), aNumberedPull(31)],
          commits: { [headOf(42)]: { [RULES_YML_PATH]: PR_RULES, [EXAMPLES_YML_PATH]: EXAMPLES } },
        }),
      ],
    })
    try {
      await world.serve(scripted)
      const request = { repo: REPO, pr: 42, headSha: headOf(42), requester: 'alice' }
      await createReviewRunner({ ...world.deps, forge: h.forge }).review(request)
      const [verdict, posted] = h.fake.reviews(REPO, 42)
      expect(verdict?.state).toBe('APPROVED')
      expect(posted?.state).toBe('COMMENT')
      expect(posted?.body).toContain('| datetime | 2 → 2 | 1 → 2 | 1 → 0 | 1 → 0 |')
      expect(posted?.body).toContain('Added: tests. Removed: no-ads.')
      // Alice's access was read with the controller's own token, through the permission route.
      const read = h.fake.requests.find((r) => r.template?.endsWith('/collaborators/{collaborator}/permission'))
      expect(read?.path).toBe('/repos/acme/widgets/collaborators/alice/permission')
      expect(read?.login).toBe('swarm-controller')
      expect(h.fake.requests.some((r) => r.path.includes('/contents/') && r.query.ref === headOf(42))).toBe(true)
    } finally {
      await h.cleanup()
    }
  })

  it('is not run for a review requested by someone without write access: its post says why in one line', async () => {
    const world = worldWith()
    const { verdict, report } = await reviewWithReport(world, {}, 'mallory')
    expect(verdict.event).toBe('APPROVED')
    expect(report?.body).toBe(
      '**Rules change report**: skipped, it runs only for a review requested by someone with write access to acme/widgets, and mallory has read access',
    )
    // Nothing read for it and nothing run: the review's own run only.
    expect(world.requests).toHaveLength(1)

    const unknown = worldWith()
    const lost = await reviewWithReport(unknown, {}, 'ghost')
    expect(lost.report?.body).toBe(
      "**Rules change report**: skipped, the requester's access to acme/widgets couldn't be read: user ghost not found",
    )
    expect(unknown.requests).toHaveLength(1)
  })

  it('reserves every one of its runs, and stops at the first the budget refuses with what was answered', async () => {
    const world = worldWith()
    // The review's own run is the first reserved; the report's first run the second, then the budget is spent.
    const spend = aSpend([], (run) => (run <= 2 ? null : "today's budget of $1.00 (UTC) is spent"))
    const { verdict, report } = await reviewWithReport(world, { spend })
    expect(verdict.event).toBe('APPROVED')
    expect(report?.body).toContain('| datetime |')
    expect(report?.body).toContain(
      "Stopped early: today's budget of &#36;1.00 &#40;UTC&#41; is spent. 0 of 2 labelled PRs were answered in full",
    )
    // One labelled PR's first run went; nothing after the refusal.
    expect(world.requests.filter((request) => request.pr !== 42)).toHaveLength(1)
  })

  it('has one deadline, RUN_TIMEOUT_S, after which what was answered is posted', async () => {
    const world = worldWith()
    const hanging = (request: RunRequest): RunReply | Promise<RunReply> =>
      request.pr === 31 ? new Promise<RunReply>(() => undefined) : scripted(request)
    await world.serve(hanging)
    const deps = { ...world.deps, exchange: { runTimeoutMs: 300, replyMarginMs: 0 } }
    await createReviewRunner(deps).review(await requestFor(world))
    const [verdict, report] = world.forge.reviews(REPO, 42)
    expect(verdict?.event).toBe('APPROVED')
    expect(report?.body).toContain(
      "Stopped early: RUN&#95;TIMEOUT&#95;S &#40;1 s&#41;, the report's deadline, passed. 1 of 2 labelled PRs were answered in full",
    )
    expect(report?.body).toContain('| datetime |')
  })
})
