/**
 * Burst benchmark (issue 12, benchmark 4): 1,000 signed deliveries in one
 * second at the real controller (`createController`, wired as its
 * entrypoint wires it, on a real nats-server and the fake Forgejo), mixed as
 * a busy forge would send them: new review requests, redeliveries of ones
 * in hand, requests for other reviewers, removals and forged signatures.
 * Checks that every delivery is answered, that the admission bounds hold
 * (`max_concurrent_reviews` running, 8 waiting, the rest turned away with a
 * comment), and what the process's memory does. The classifier is the real
 * service on a runtime that answers each question after a fixed delay, so
 * reviews take long enough for the queue to fill.
 *
 * Writes bench/results/burst.md and prints it.
 *
 *   npx bun run bench/burst.ts             # ~30 s
 *   npx bun run bench/burst.ts --no-write
 *
 * Not a test: it measures, and exits non-zero only if a delivery went unanswered or a bound broke.
 */

import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { answered, createScriptedModelRuntime, failed } from '../adapters/memory/model-runtime.ts'
import { createSystemClock } from '../adapters/system/clock.ts'
import { createWorkerRedactor } from '../adapters/worker/redactor.ts'
import { DEFAULT_CONTEXT_BUDGET_BYTES } from '../core/run/budget.ts'
import { DEFAULT_SETTINGS } from '../core/settings/settings.ts'
import { WAITING_PLACES } from '../core/wire/limits.ts'
import { createClassifier } from '../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../entrypoints/classifier/session-limiter.ts'
import type { Metrics } from '../ports/metrics.ts'
import type { SecretStore } from '../ports/secret-store.ts'
import { fmt, loadText, machineLine, median, percentile, publish } from './support/common.ts'
import { type DeliveryShape, rulesYaml, startReviewStack } from './support/review-stack.ts'
import { MAX_SESSIONS } from './support/run-shape.ts'
import { aSyntheticPr } from './support/synthetic-pr.ts'

const DELIVERIES = 1_000
const BURST_MS = 1_000
/** New PRs, redeliveries of those, other reviewers, removals, forged signatures: 1,000 in all. */
const MIX = { new: 300, redelivery: 200, 'other reviewer': 150, removal: 150, forged: 200 } as const
type Kind = keyof typeof MIX
/** Each question answers after this long: a review of 10 rules holds its place for about two of these (warm first). */
const ANSWER_MS = 400
const RULES = 10
/** Deliveries sent one at a time on the idle controller first: the response time a delivery gets alone. */
const FLOOR_DELIVERIES = 50
const MATCH = '{"verdict":"match","certainty":90,"reason":"It holds."}'
const RESULTS_PATH = join(import.meta.dir, 'results/burst.md')
const COMMAND = 'npx bun run bench/burst.ts'

type Sent = { kind: Kind; pr: number; status: number | 'no answer'; body: string; ms: number }

function mib(bytes: number): string {
  return fmt(bytes / 2 ** 20, 1)
}

function memory(): { rss: number; heap: number } {
  const usage = process.memoryUsage()
  return { rss: usage.rss, heap: usage.heapUsed }
}

/** The deliveries in the order they go out: a deterministic shuffle of the mix, redeliveries after their first. */
function plan(): Array<{ kind: Kind; pr: number; shape: DeliveryShape }> {
  const out: Array<{ kind: Kind; pr: number; shape: DeliveryShape }> = []
  let seed = 20261201
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed / 2 ** 31
  }
  const left: Record<Kind, number> = { ...MIX }
  let nextPr = 1
  while (out.length < DELIVERIES) {
    const kinds = (Object.keys(left) as Kind[]).filter(
      (kind) => left[kind] > 0 && (kind !== 'redelivery' || nextPr > 1),
    )
    const kind = kinds[Math.floor(random() * kinds.length)] as Kind
    left[kind] -= 1
    if (kind === 'new') {
      out.push({ kind, pr: nextPr, shape: {} })
      nextPr += 1
    } else if (kind === 'redelivery') {
      // Forgejo redelivers with a new delivery id; the (repo, PR, head) is the same.
      out.push({ kind, pr: 1 + Math.floor(random() * (nextPr - 1)), shape: {} })
    } else if (kind === 'other reviewer') {
      out.push({ kind, pr: 1 + Math.floor(random() * MIX.new), shape: { reviewer: 'alice' } })
    } else if (kind === 'removal') {
      out.push({ kind, pr: 1 + Math.floor(random() * MIX.new), shape: { action: 'review_request_removed' } })
    } else {
      out.push({ kind, pr: 1 + Math.floor(random() * MIX.new), shape: { forged: true } })
    }
  }
  return out
}

async function main(): Promise<void> {
  const args = parseArgs({ options: { 'no-write': { type: 'boolean' } } }).values
  const loadBefore = loadText()
  const startedAt = Date.now()
  const pr = aSyntheticPr(20_000)
  let runsNow = 0
  let runsPeak = 0
  const stack = await startReviewStack({
    pulls: MIX.new + 1,
    diff: pr.diff,
    commits: pr.commits.map((commit) => commit.message),
    rulesYaml: rulesYaml(RULES),
    classifier: ({ secrets, logger, metrics }) => {
      const classifier = createClassifier({
        runtimes: {
          'api-key': createScriptedModelRuntime(async () => {
            await Bun.sleep(ANSWER_MS)
            return answered(MATCH)
          }),
          acp: createScriptedModelRuntime(() => failed('runtime', 'not benchmarked')),
          subscription: createScriptedModelRuntime(() => failed('runtime', 'not benchmarked')),
        },
        secrets: secrets as SecretStore,
        metrics: metrics as Metrics,
        logger,
        clock: createSystemClock(),
        limiter: createSessionLimiter(MAX_SESSIONS * 4),
        classificationTimeoutMs: 60_000,
        contextBudgetBytes: DEFAULT_CONTEXT_BUDGET_BYTES,
        redactor: createWorkerRedactor(),
      })
      return {
        async handle(text, onProgress) {
          runsNow += 1
          runsPeak = Math.max(runsPeak, runsNow)
          try {
            return await classifier.handle(text, onProgress as never)
          } finally {
            runsNow -= 1
          }
        },
      }
    },
  })
  const limit = DEFAULT_SETTINGS.max_concurrent_reviews
  let report: string
  let broken = false
  try {
    // The floor: one delivery at a time on the idle controller (for another reviewer: answered, nothing starts).
    const floorMs: number[] = []
    for (let i = 0; i < FLOOR_DELIVERIES; i += 1) {
      const request = stack.deliveryRequest(MIX.new + 1, { reviewer: 'alice' })
      const t = performance.now()
      const response = await fetch(request)
      await response.text()
      floorMs.push(performance.now() - t)
    }
    Bun.gc(true)
    const before = memory()

    const deliveries = plan()
    let peakRunning = 0
    let peakWaiting = 0
    let peakInHand = 0
    const sample = setInterval(() => {
      const counts = stack.counts()
      peakRunning = Math.max(peakRunning, counts.running)
      peakWaiting = Math.max(peakWaiting, counts.waiting)
      peakInHand = Math.max(peakInHand, counts.running + counts.waiting)
    }, 1)
    const burstStart = performance.now()
    const pending: Array<Promise<Sent>> = []
    for (const [index, delivery] of deliveries.entries()) {
      const due = burstStart + (index * BURST_MS) / DELIVERIES
      const wait = due - performance.now()
      if (wait > 0) await Bun.sleep(wait)
      const request = stack.deliveryRequest(delivery.pr, delivery.shape)
      const t = performance.now()
      pending.push(
        fetch(request).then(
          async (response) => ({
            kind: delivery.kind,
            pr: delivery.pr,
            status: response.status,
            body: await response.text(),
            ms: performance.now() - t,
          }),
          () => ({ kind: delivery.kind, pr: delivery.pr, status: 'no answer' as const, body: '', ms: Number.NaN }),
        ),
      )
    }
    const sentMs = performance.now() - burstStart
    const sent = await Promise.all(pending)
    const answeredMs = performance.now() - burstStart
    const duringBurst = memory()
    await stack.idle()
    const drainedMs = performance.now() - burstStart
    clearInterval(sample)
    Bun.gc(true)
    const after = memory()

    const statusOf = (one: Sent) => {
      if (one.status === 'no answer') return 'no answer'
      const parsed = (() => {
        try {
          return JSON.parse(one.body) as { status?: string }
        } catch {
          return {}
        }
      })()
      return `${one.status}${parsed.status === undefined ? '' : ` ${parsed.status}`}`
    }
    const table = [
      '| delivery | sent | answers | response ms p50 | p99 |',
      '|---|---:|---|---:|---:|',
      ...(Object.keys(MIX) as Kind[]).map((kind) => {
        const ofKind = sent.filter((one) => one.kind === kind)
        const tally = new Map<string, number>()
        for (const one of ofKind) tally.set(statusOf(one), (tally.get(statusOf(one)) ?? 0) + 1)
        const answers = [...tally.entries()]
          .sort((a, b) => b[1] - a[1])
          .map(([status, n]) => `${n} × ${status}`)
          .join(', ')
        const ms = ofKind.map((one) => one.ms).filter(Number.isFinite)
        return `| ${kind} | ${ofKind.length} | ${answers} | ${fmt(percentile(ms, 50), 1)} | ${fmt(percentile(ms, 99), 1)} |`
      }),
    ]
    const unanswered = sent.filter((one) => one.status === 'no answer').length
    const admissions = stack.logged('review requested').map((fields) => String(fields.admission))
    const admitted = admissions.filter((a) => a === 'started' || a === 'waiting').length
    const turnedAway = admissions.filter((a) => a === 'queue-full').length
    const verdicts = stack.posts.filter((post) => post.event === 'APPROVED' || post.event === 'REQUEST_CHANGES').length
    const comments = stack.posts.filter((post) => post.event === 'COMMENT').length
    broken = unanswered > 0 || peakRunning > limit || peakInHand > limit + WAITING_PLACES || runsPeak > limit
    const allMs = sent.map((one) => one.ms).filter(Number.isFinite)
    report = [
      '# A burst of 1,000 signed deliveries in one second',
      '',
      `Run on ${new Date().toISOString().slice(0, 10)} with \`${COMMAND}\` (${Math.round((Date.now() - startedAt) / 1000)} s in all).`,
      '',
      machineLine(loadBefore),
      '',
      'Setup: one process holds a real nats-server, the fake Forgejo of the tests (one repo, 10 rules), `createController` wired as entrypoints/controller.ts wires it and listening on 127.0.0.1, ' +
        `and \`createClassifier\` serving the run subject on a model runtime that answers each question after ${ANSWER_MS} ms (a review of ${RULES} rules holds its place for about ${fmt((2 * ANSWER_MS) / 1000, 1)} s, warm first). ` +
        `\`max_concurrent_reviews\` is the default ${limit}, with ${WAITING_PLACES} waiting places. ` +
        `The ${DELIVERIES} deliveries go out at an even pace over ${BURST_MS} ms in a fixed shuffled order (the last one left after ${fmt(sentMs)} ms), each signed over its exact bytes as Forgejo signs them, but the forged ones: ` +
        `${MIX.new} review requests for PRs not seen before, ${MIX.redelivery} redeliveries of one of those already sent (same head, so the same review), ${MIX['other reviewer']} requests for another reviewer, ` +
        `${MIX.removal} \`review_request_removed\` and ${MIX.forged} with a wrong signature.`,
      '',
      table.join('\n'),
      '',
      `Every delivery answered: **${unanswered === 0 ? 'yes' : `no, ${unanswered} without an answer`}**; all ${sent.length} answers were in ${fmt(answeredMs)} ms after the first was sent, ` +
        `response time p50 ${fmt(percentile(allMs, 50), 1)} ms, p99 ${fmt(percentile(allMs, 99), 1)} ms, max ${fmt(Math.max(...allMs), 1)} ms, against ${fmt(median(floorMs), 2)} ms (p50 of ${FLOOR_DELIVERIES}) for a delivery alone on the idle controller.`,
      '',
      `Admission, sampled every millisecond from the pipeline until it was idle (${fmt(drainedMs / 1000, 1)} s after the first delivery): at most **${peakRunning} running** (limit ${limit}) and **${peakInHand} in hand**, running and waiting (limit ${limit} + ${WAITING_PLACES}); ` +
        (peakWaiting > WAITING_PLACES
          ? `the pipeline's own waiting count peaked at ${peakWaiting}: a request admitted onto a free place sits in its queue until the grant loop (after its settings read) starts it, so for that moment it counts as waiting. `
          : `the pipeline's own waiting count peaked at ${peakWaiting}. `) +
        `At most ${runsPeak} runs in the classifier at once. Of the deliveries that reached admission, ${admitted} were taken in (started or waiting) and ${turnedAway} turned away; ` +
        `the forge got ${verdicts} reviews with a verdict and ${comments} \`**No verdict:**\` comments (queue full, or an admitted review that could not run). Bounds held: **${broken ? 'no' : 'yes'}**.`,
      '',
      '| memory of the whole process (bench, controller, classifier, fake forge) | RSS MiB | JS heap used MiB |',
      '|---|---:|---:|',
      `| before the burst (after a full GC) | ${mib(before.rss)} | ${mib(before.heap)} |`,
      `| when every delivery had its answer | ${mib(duringBurst.rss)} | ${mib(duringBurst.heap)} |`,
      `| once the pipeline was idle (after a full GC) | ${mib(after.rss)} | ${mib(after.heap)} |`,
      '',
    ].join('\n')
  } finally {
    await stack.stop()
  }
  publish(RESULTS_PATH, report, args['no-write'] !== true)
  if (broken) process.exitCode = 1
}

await main()
