/**
 * Waiver benchmark (issue 32): how long from a `pull_request_comment`
 * delivery that waives a failing rule to the re-posted review on the forge,
 * and to its commit status. The whole service world runs as it does in the
 * end-to-end tests (test/support/service-world.ts: a real nats-server, the
 * controller and the scripted classifier as processes, a fake Forgejo on
 * 127.0.0.1); each PR is first reviewed (one rule failing), then waived by
 * a write collaborator. The clock starts when the signed delivery is sent
 * and stops when the fake forge has stored the review (then the status),
 * watched every millisecond. The goal: within a second, and no model call
 * (the scripted model's question count is checked unchanged).
 *
 * Writes bench/results/waiver.md and prints it.
 *
 *   npx bun run bench/waiver.ts                # 30 waivers (~10 s)
 *   npx bun run bench/waiver.ts --count 5 --no-write
 *
 * Not a test: it exits non-zero only if a waiver was not re-posted or the model was asked.
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { RULES_YML_PATH } from '../core/repo-files/rules-file.ts'
import { aNumberedPull, headOf, TWO_RULES_YAML } from '../test/support/builders.ts'
import { signedCommentDelivery } from '../test/support/comment-webhook.ts'
import { PASSING } from '../test/support/scripted-model.ts'
import { startServiceWorld, WEBHOOK_SECRET } from '../test/support/service-world.ts'
import { fmt, loadText, machineLine, median, percentile, publish } from './support/common.ts'

const RESULTS_PATH = join(import.meta.dir, 'results/waiver.md')
const COMMAND = 'npx bun run bench/waiver.ts'
const REPO = { owner: 'acme', name: 'widgets' }
const WAIVE = '@review-classifier waive datetime: the timestamps here are parsed from logs, not made'

const { values } = parseArgs({
  options: { count: { type: 'string', default: '30' }, 'no-write': { type: 'boolean', default: false } },
})
const count = Math.max(1, Number(values.count))
const loadBefore = loadText()
const started = Date.now()

/** Resolves with the time `done` first held, checked every millisecond, or rejects after `timeoutMs`. */
async function until(done: () => boolean, timeoutMs = 30_000): Promise<number> {
  const limit = performance.now() + timeoutMs
  for (;;) {
    if (done()) return performance.now()
    if (performance.now() > limit) throw new Error('timed out')
    await Bun.sleep(1)
  }
}

const world = await startServiceWorld({
  swarm: 'bench-waiver',
  repos: [
    {
      ...REPO,
      files: { [RULES_YML_PATH]: TWO_RULES_YAML },
      pulls: Array.from({ length: count }, (_, i) => aNumberedPull(i + 1)),
      collaborators: { 'review-classifier': 'write', maria: 'write' },
    },
  ],
  users: [{ login: 'alice' }, { login: 'maria' }],
})
const toReview: number[] = []
const toStatus: number[] = []
const answered: number[] = []
let failed = 0
let modelCalls = 0
try {
  await world.controller.waitForLine('review classifier service account token minted')
  world.model.script((asked) =>
    asked.rule === 'datetime'
      ? { verdict: 'no-match', certainty: 95, reason: 'A timestamp has no zone.' }
      : PASSING(asked),
  )
  const forge = world.forge
  for (let pr = 1; pr <= count; pr += 1) {
    await world.deliver(pr)
    await world.reviewsOf(pr)
    const asked = world.model.asked.length
    const statuses = () => forge.statuses(REPO, headOf(pr)).length
    const before = statuses()
    const id = forge.addComment(REPO, pr, 'maria', WAIVE)
    const request = signedCommentDelivery(
      { secret: WEBHOOK_SECRET, url: `${world.base}/webhook/forge` },
      { pr, commenter: 'maria', body: WAIVE, commentId: id, forgeUrl: forge.url },
    )
    const sent = performance.now()
    const response = await fetch(request)
    answered.push(performance.now() - sent)
    try {
      toReview.push((await until(() => forge.reviews(REPO, pr).length >= 2)) - sent)
      toStatus.push((await until(() => statuses() > before)) - sent)
    } catch {
      failed += 1
    }
    if (response.status !== 202 || forge.reviews(REPO, pr)[1]?.state !== 'APPROVED') failed += 1
    modelCalls += world.model.asked.length - asked
  }
} finally {
  await world.stop()
}

function row(what: string, ms: number[]): string {
  return `| ${what} | ${ms.length} | ${fmt(median(ms), 1)} | ${fmt(percentile(ms, 95), 1)} | ${fmt(Math.max(...ms), 1)} |`
}

const report = [
  '# Waiver: from the comment delivery to the re-posted review',
  '',
  `Run on ${new Date().toISOString().slice(0, 10)} with \`${COMMAND}\` (${count} waivers, ${fmt((Date.now() - started) / 1000, 0)} s in all).`,
  '',
  machineLine(loadBefore),
  '',
  'Setup: the service world of the end-to-end tests (a real nats-server; the controller and the scripted classifier as processes; a fake Forgejo on 127.0.0.1, in the benchmark process). Each PR is reviewed first (`datetime` fails, so the review requests changes), then a write collaborator\'s comment `@review-classifier waive datetime: …` is delivered, signed, to `POST /webhook/forge`. The clock starts as the delivery is sent; "answered" is the webhook\'s 202, "review" the fake forge storing the re-posted review, "status" it storing the commit status that follows (each watched every millisecond, so the figures carry up to ~1 ms of polling). In between the controller reads the commenter\'s permission, the PR and the settings, the run store and the rules, posts the review and the status as the service account, and records the run.',
  '',
  '| from the delivery to | waivers | ms p50 | p95 | max |',
  '|---|---:|---:|---:|---:|',
  row('the 202 answer', answered),
  row('the re-posted review', toReview),
  row('its commit status', toStatus),
  '',
  `Goal, within a second of the delivery: **${toReview.length === count && Math.max(...toReview) < 1000 ? 'met' : 'not met'}** (max ${fmt(Math.max(...toReview), 1)} ms). Model questions asked by the waivers: **${modelCalls}**. Waivers not re-posted as an approval: **${failed}**.`,
  '',
].join('\n')

publish(RESULTS_PATH, report, !values['no-write'])
if (failed > 0 || modelCalls > 0) process.exit(1)
