/**
 * Rule health's promise (docs/behaviour.md, "Rule health"): a week of
 * scripted reviews, waivers and fixes shows the expected counts and flags on
 * the route, with two controllers reviewing at once on one real nats-server
 * and a third, started after them as a restarted controller would be,
 * reading what they wrote. The classifier runs in this process on the
 * scripted model (scripted-model.ts); the clock is the test's, moved a day
 * at a time. Light on purpose: 27 reviews of one small PR each, three at a
 * time, no waits on time.
 */
import { describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../../adapters/memory/clock.ts'
import { createMemoryForge, type MemoryForge } from '../../../adapters/memory/forge.ts'
import { createSequenceIds } from '../../../adapters/memory/ids.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { createRecordingMetrics, type RecordingMetrics } from '../../../adapters/memory/metrics.ts'
import { createInlineRedactor } from '../../../adapters/memory/redactor.ts'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { createNatsKvBuckets } from '../../../adapters/nats/kv.ts'
import { createNatsRunQueue, createNatsRunResponder, runSubject } from '../../../adapters/nats/queue.ts'
import { RULES_YML_PATH } from '../../../core/repo-files/rules-file.ts'
import { CONTROLLER_TOKEN_SECRET, RUNTIME_KEY_SECRETS, SERVICE_TOKEN } from '../../../core/settings/service-account.ts'
import { createClassifier } from '../../../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../../../entrypoints/classifier/session-limiter.ts'
import { type Controller, createController } from '../../../entrypoints/controller/service.ts'
import { aNumberedPull, aSeedRepo, headOf, TWO_RULES_YAML } from '../../support/builders.ts'
import { type Asked, localScriptedModel, type ModelReply } from '../../support/scripted-model.ts'
import { useSharedNats } from '../../support/shared-nats.ts'

const SERVICE_ACCOUNT_TOKEN = 'rc-svc-token-rule-health'
const REPO = { owner: 'acme', name: 'widgets' }
const DAY_MS = 86_400_000
const RULES = `${TWO_RULES_YAML}  - name: tests
    description: New code comes with a test.
    polarity: positive
    threshold: 70
`
const RULES_WITH_LEGACY = `${RULES}  - name: legacy
    description: An old rule the team dropped after a day.
    polarity: positive
    threshold: 60
`
const PRS = Array.from({ length: 21 }, (_, i) => i + 1)
/** The head a fix pushes. */
const fixedHead = (pr: number) => headOf(pr + 100)

/**
 * The week's model: `datetime` always holds (PR 21's answer is garbled once), so it is silent;
 * `no-ads` is violated on PRs 1–6 until PRs 1–3 are fixed; `tests` is unsure (below its threshold on
 * two PRs in three, and fails PR 7) and flips on the repeated runs of PRs 4–6, so it is flaky.
 */
function answer(asked: Asked, phase: Map<number, 'first' | 'fixed' | 'repeat'>): ModelReply {
  const { pr, rule } = asked
  const now = phase.get(pr) ?? 'first'
  const yes = (certainty: number) => ({ verdict: 'match' as const, certainty, reason: 'It does.' })
  switch (rule) {
    case 'datetime':
      return pr === 21 ? { text: 'not an answer' } : yes(95)
    case 'no-ads':
      return pr <= 6 && now !== 'fixed' ? yes(97) : { verdict: 'no-match', certainty: 97, reason: 'None.' }
    case 'tests': {
      if (now === 'fixed') return yes(95)
      if (pr === 7) return { verdict: 'no-match', certainty: 95, reason: 'No test.' }
      const counted = pr % 3 === 0
      return yes((now === 'repeat' ? !counted : counted) ? 95 : 50)
    }
    default:
      return yes(95)
  }
}

describe('rule health over a week, two controllers and a restart, on one NATS', () => {
  const shared = useSharedNats()
  const client = (name: string) => shared.client(name)

  it('shows the counts and flags the week made, read by a controller started afterwards', async () => {
    const subject = runSubject('rule-health-week')
    const forge: MemoryForge = createMemoryForge({
      users: [{ login: 'review-classifier' }, { login: 'alice' }],
      tokens: [{ login: 'review-classifier', name: 'swarm-review-classifier', token: SERVICE_ACCOUNT_TOKEN }],
      repos: [
        aSeedRepo({
          collaborators: { 'review-classifier': 'write', alice: 'write' },
          files: { [RULES_YML_PATH]: RULES_WITH_LEGACY },
          pulls: PRS.map((pr) => aNumberedPull(pr)),
        }),
      ],
    })
    const clock = createFixedClock(Date.parse('2026-12-01T10:00:00.000Z'))
    const logger = createRecordingLogger()
    const phase = new Map<number, 'first' | 'fixed' | 'repeat'>()
    const model = localScriptedModel((asked) => answer(asked, phase))
    const classifier = createClassifier({
      runtimes: model.runtimes,
      secrets: createMemorySecretStore({ [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: 'sk-ant-health' } }),
      metrics: createRecordingMetrics(),
      logger,
      clock,
      limiter: createSessionLimiter(8),
      classificationTimeoutMs: 60_000,
      contextBudgetBytes: 600_000,
      redactor: createInlineRedactor(),
      // Its sessions' costs go to the spend ledger on the same NATS: the first of each day starts the
      // day while the others write, which once stalled for half a minute listing the bucket's keys.
      buckets: createNatsKvBuckets(await client('classifier')),
    })
    const responder = createNatsRunResponder(await client('classifier-queue'), { subject }, { logger })
    shared.serving(await responder.serve((text, tell) => classifier.handle(text, tell)))

    const metrics: RecordingMetrics[] = []
    async function aController(name: string): Promise<Controller> {
      const nats = await client(`controller-${name}`)
      const recording = createRecordingMetrics()
      metrics.push(recording)
      return createController({
        forge: { api: forge, webUrl: 'https://forge.example', noreplyDomain: 'forge.example' },
        queue: {
          link: { connected: () => true },
          runQueue: createNatsRunQueue(nats, { subject }),
          buckets: createNatsKvBuckets(nats),
        },
        secrets: createMemorySecretStore({
          [CONTROLLER_TOKEN_SECRET.path]: { [CONTROLLER_TOKEN_SECRET.field]: 'admin-token' },
          [SERVICE_TOKEN.secret.path]: { [SERVICE_TOKEN.secret.field]: SERVICE_ACCOUNT_TOKEN },
        }),
        clock,
        ids: createSequenceIds(`${name}-run-`),
        logger,
        webhookSecret: null,
        runTimeoutMs: 60_000,
        drainTimeoutMs: 1_000,
        metrics: recording,
      })
    }
    const a = await aController('a')
    const b = await aController('b')

    /** Reviews the PRs at once, odd ones on one controller and even ones on the other, and waits for all. */
    async function review(prs: number[], head: (pr: number) => string = headOf): Promise<void> {
      for (const pr of prs) {
        const pipeline = (pr % 2 === 1 ? a : b).pipeline
        expect(pipeline?.submit({ repo: REPO, pr, headSha: head(pr), requester: 'alice' })).toBe('started')
      }
      await Promise.all([a.pipeline?.idle(), b.pipeline?.idle()])
    }
    const waive = (pr: number) =>
      (pr % 2 === 1 ? a : b).ruleHealth.recordWaiver({ repo: 'acme/widgets', rule: 'no-ads', pr })

    for (let day = 1; day <= 7; day += 1) {
      if (day === 2) forge.changeFile(REPO, 'main', RULES_YML_PATH, RULES)
      await review([3 * day - 2, 3 * day - 1, 3 * day])
      if (day === 2) await Promise.all([waive(1), waive(2)])
      if (day === 3) {
        for (const pr of [1, 2, 3]) {
          forge.upsertPull(REPO, aNumberedPull(pr, { headSha: fixedHead(pr) }))
          phase.set(pr, 'fixed')
        }
        await review([1, 2, 3], fixedHead)
      }
      if (day === 4) {
        for (const pr of [4, 5, 6]) phase.set(pr, 'repeat')
        await review([4, 5, 6])
        await waive(4)
      }
      clock.advance(DAY_MS)
    }
    clock.advance(-DAY_MS)
    expect(logger.withMessage('review classifier rule health not recorded')).toEqual([])

    // A controller started now, on a connection of its own: only what is in the bucket.
    const restarted = await aController('c')
    const response = await restarted.app.handle(
      new Request('http://localhost/api/review-classifier/rules/health?repo=acme/widgets'),
    )
    expect(response.status).toBe(200)
    const view = (await response.json()) as { rules: Array<Record<string, unknown>> } & Record<string, unknown>
    expect(view).toMatchObject({ repo: 'acme/widgets', days: 30, until: '2026-12-07', since: '2026-11-08' })
    const counts = (rule: Record<string, unknown>) => ({
      name: rule.name,
      asked: rule.asked,
      failed: rule.failed,
      passed: rule.passed,
      uncounted: rule.uncounted,
      unanswered: rule.unanswered,
      waived: rule.waived,
      fixed: rule.fixed,
      flags: rule.flags,
      asked_prs: rule.asked_prs,
      flaky_prs: rule.flaky_prs,
      removed: rule.removed ?? false,
    })
    const row = { asked: 27, asked_prs: 21, removed: false }
    expect(view.rules.map(counts)).toEqual([
      {
        name: 'datetime',
        ...row,
        failed: 0,
        passed: 26,
        uncounted: 0,
        unanswered: 1,
        waived: 0,
        fixed: 0,
        flags: ['silent'],
        flaky_prs: 0,
      },
      {
        name: 'no-ads',
        ...row,
        failed: 9,
        passed: 18,
        uncounted: 0,
        unanswered: 0,
        waived: 3,
        fixed: 3,
        flags: ['noisy'],
        flaky_prs: 0,
      },
      {
        name: 'tests',
        ...row,
        failed: 1,
        passed: 12,
        uncounted: 14,
        unanswered: 0,
        waived: 0,
        fixed: 0,
        flags: ['unsure', 'flaky'],
        flaky_prs: 3,
      },
      {
        name: 'legacy',
        asked: 3,
        asked_prs: 3,
        removed: true,
        failed: 0,
        passed: 3,
        uncounted: 0,
        unanswered: 0,
        waived: 0,
        fixed: 0,
        flags: [],
        flaky_prs: 0,
      },
    ])
    const noAds = view.rules[1]
    expect(noAds?.by_day).toEqual([
      { day: '2026-12-01', asked: 3, failed: 3, passed: 0, uncounted: 0, unanswered: 0, waived: 0, fixed: 0 },
      { day: '2026-12-02', asked: 3, failed: 3, passed: 0, uncounted: 0, unanswered: 0, waived: 2, fixed: 0 },
      { day: '2026-12-03', asked: 6, failed: 0, passed: 6, uncounted: 0, unanswered: 0, waived: 0, fixed: 3 },
      { day: '2026-12-04', asked: 6, failed: 3, passed: 3, uncounted: 0, unanswered: 0, waived: 1, fixed: 0 },
      ...['05', '06', '07'].map((dd) => ({
        day: `2026-12-${dd}`,
        asked: 3,
        failed: 0,
        passed: 3,
        uncounted: 0,
        unanswered: 0,
        waived: 0,
        fixed: 0,
      })),
    ])
    expect(noAds?.failing_runs).toHaveLength(9)

    // The same counts went to the counter, split between the two controllers that made them.
    const total = (rule: string, outcome: string) =>
      metrics
        .flatMap((m) => m.ruleOutcomes)
        .filter(({ labels }) => labels.rule === rule && labels.outcome === outcome)
        .reduce((sum, { count }) => sum + count, 0)
    expect([
      total('no-ads', 'failed'),
      total('no-ads', 'waived'),
      total('no-ads', 'fixed'),
      total('tests', 'uncounted'),
    ]).toEqual([9, 3, 3, 14])
  })
})
