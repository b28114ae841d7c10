/**
 * The classifier process end to end: `runClassifier` as a real process on a
 * real nats-server (test/support/service-world.ts), a run request in on the
 * subject, the run reply back. The process's life is the subject here (its
 * configuration, its key, a bad request, SIGTERM, SIGKILL, a NATS restart),
 * not a runtime's: its model is the scripted one (the in-memory runtime,
 * each answer asked of the test over NATS), except where the production
 * entry fails before any model would start. The real runtimes answer a
 * review end to end in review-runtimes.e2e.test.ts.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRecordingLogger } from '../../adapters/memory/logger.ts'
import { connectNats, type NatsClient } from '../../adapters/nats/connection.ts'
import { createNatsRunQueue, runSubject } from '../../adapters/nats/queue.ts'
import { decodeRunReply } from '../../core/run/wire-decode.ts'
import { RUNTIME_KEY_SECRETS } from '../../core/settings/service-account.ts'
import type { Classification, RunReply, RunRequest } from '../../core/wire/types.ts'
import { aClassification, aRunRequest } from '../support/builders.ts'
import { cleanUp } from '../support/cleanup.ts'
import type { Verdict } from '../support/scripted-model.ts'
import { makeSecretsDir, type ServiceProcess, startServiceProcess } from '../support/service-process.ts'
import { RUNTIME_KEYS, type ServiceWorld, startServiceWorld } from '../support/service-world.ts'

setDefaultTimeout(120_000)

const SWARM = 'e2e'
const MATCH: Verdict = { verdict: 'match', certainty: 93, reason: 'Every timestamp carries a zone.' }

let world: ServiceWorld
let client: NatsClient
/** What each test started, killed after it. */
const started: ServiceProcess[] = []

function rules(count: number): Classification[] {
  return Array.from({ length: count }, (_, i) =>
    aClassification({ name: `rule-${i + 1}`, description: `Rule number ${i + 1} holds.` }),
  )
}

/** A classifier on the scripted model (or the production entry, `real`), once it listens. */
async function startClassifier(extra: Record<string, string> = {}, kind: 'scripted' | 'real' = 'scripted') {
  const proc = await world.startClassifier({ LOG_LEVEL: 'info', ...extra }, kind)
  started.push(proc)
  return proc
}

async function ask(request: RunRequest, timeoutMs = 60_000): Promise<RunReply> {
  const queue = createNatsRunQueue(client, { subject: runSubject(SWARM) })
  const decoded = decodeRunReply(await queue.request(request, timeoutMs))
  if (!decoded.ok) throw new Error(decoded.error)
  return decoded.value
}

beforeAll(async () => {
  world = await startServiceWorld({ swarm: SWARM, repos: null, classifier: null, controllerEnv: null })
  client = await connectNats({
    url: world.nats.url,
    name: 'e2e-controller',
    firstConnectTimeoutMs: 5_000,
    reconnectTimeWaitMs: 100,
    logger: createRecordingLogger(),
  })
})

afterEach(async () => {
  for (const proc of started.splice(0)) {
    proc.kill('SIGKILL')
    await proc.exited
  }
  world.model.script(() => MATCH)
})

afterAll(async () => {
  await cleanUp(client === undefined ? null : () => client.close(), world === undefined ? null : () => world.stop())
})

describe('classifier process', () => {
  it('with nine of ten classifications timing out at CLASSIFICATION_TIMEOUT_S, says so and never approves', async () => {
    // Ten places, so the nine that hang wait out one deadline together.
    await startClassifier({ CLASSIFICATION_TIMEOUT_S: '3', MAX_SESSIONS: '10' })
    world.model.script((asked) => (asked.rule === 'rule-1' ? MATCH : 'hang'))
    const reply = await ask(aRunRequest({ id: 'e2e-9', classifications: rules(10) }))
    // The run's error, when there is one, says why it failed as a whole.
    expect(reply.ok ? true : reply.error).toBe(true)
    expect(reply.overall).toBe('no-verdict')
    expect(reply.rows[0]?.verdict).toBe('match')
    expect(reply.rows.slice(1).map((r) => r.error?.kind)).toEqual(Array(9).fill('timeout'))
    expect(reply.rows.slice(1).map((r) => r.error?.detail)).toEqual(Array(9).fill('no answer within 3000 ms'))
  })

  it('fails a run whose runtime has no key, naming the secret, before any model starts', async () => {
    const empty = makeSecretsDir({})
    try {
      // The production entry: with no key, no claude is started.
      await startClassifier({ SECRETS_DIR: empty }, 'real')
      const reply = await ask(aRunRequest({ id: 'e2e-nokey' }))
      expect(reply).toMatchObject({ id: 'e2e-nokey', ok: false, overall: 'no-verdict' })
      expect(reply.error).toContain(RUNTIME_KEY_SECRETS['api-key'].path)
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })

  it('refuses to start on a WORK_DIR others can write, with one line naming it', async () => {
    const open = mkdtempSync(join(tmpdir(), 'rc-open-work-'))
    chmodSync(open, 0o777)
    try {
      const proc = startServiceProcess('classifier', { ...world.env, WORK_DIR: open })
      started.push(proc)
      expect(await proc.exited).toBe(1)
      expect(proc.lines.filter((line) => line.trim() !== '')).toEqual([
        `classifier: configuration error: WORK_DIR ${open} is writable by group or others (mode 0777); chmod 700 it or set WORK_DIR to a private directory`,
      ])
    } finally {
      rmSync(open, { recursive: true, force: true })
    }
  })

  it('answers a bad request with ok false and keeps serving', async () => {
    await startClassifier()
    const bad = await ask({ ...aRunRequest({ id: 'e2e-bad' }), model: '-p' })
    expect(bad).toMatchObject({ id: 'e2e-bad', ok: false })
    expect(bad.error).toContain('model')
    const good = await ask(aRunRequest({ id: 'e2e-after' }))
    expect(good.ok).toBe(true)
  })

  it('on SIGTERM answers the run in hand, then exits 0', async () => {
    const proc = await startClassifier()
    // The answer is held until the classifier has begun its drain: the run is in hand at the SIGTERM.
    const release = world.model.hold(() => true)
    const asked = world.model.asked.length
    const pending = ask(aRunRequest({ id: 'e2e-drain' }))
    await world.waitFor(() => world.model.asked.length > asked, "the run's question at the model", 60_000)
    proc.kill('SIGTERM')
    await proc.waitForLine('review classifier draining').finally(release)
    const reply = await pending.catch((error: unknown) => {
      throw new Error(`${String(error)}\n${proc.lines.join('\n')}`)
    })
    expect(reply).toMatchObject({ id: 'e2e-drain', ok: true, overall: 'approve' })
    expect(await proc.exited).toBe(0)
    // Once drained, nothing listens: the next request meets "no responders" at once.
    await expect(ask(aRunRequest({ id: 'e2e-none' }), 5_000)).rejects.toThrow('classifier not running')
  })

  it('a worker killed mid-run leaves the requester a timeout, and a new worker takes the next run', async () => {
    const proc = await startClassifier()
    world.model.script(() => 'hang')
    const asked = world.model.asked.length
    // Settled into a value at once: a rejection nobody holds yet fails the test on its own.
    const pending = ask(aRunRequest({ id: 'e2e-killed' }), 5_000).then(
      (reply) => ({ reply }),
      (error: unknown) => ({ error }),
    )
    // Mid-run: the worker took the run and its question is at the model.
    await world.waitFor(() => world.model.asked.length > asked, "the run's question at the model", 60_000)
    proc.kill('SIGKILL')
    expect(await pending).toMatchObject({ error: { code: 'timeout' } })
    world.model.script(() => MATCH)
    await startClassifier()
    expect((await ask(aRunRequest({ id: 'e2e-next' }))).ok).toBe(true)
  })

  it('keeps serving after NATS restarts mid-run', async () => {
    const proc = await startClassifier()
    const release = world.model.hold(() => true)
    const asked = world.model.asked.length
    const pending = ask(aRunRequest({ id: 'e2e-restart' }), 5_000).then(
      (reply) => ({ reply }),
      (error: unknown) => ({ error }),
    )
    await world.waitFor(() => world.model.asked.length > asked, "the run's question at the model", 60_000)
    await world.nats.restart()
    release()
    // The run in flight either gets its reply after both sides reconnect or
    // times out (core request/reply is at most once); it never hangs.
    const outcome = await pending
    if ('reply' in outcome) expect(outcome.reply.id).toBe('e2e-restart')
    await proc.waitForLine('reconnected', 20_000)
    let after: RunReply | null = null
    for (let attempt = 0; attempt < 20 && after === null; attempt += 1) {
      try {
        after = await ask(aRunRequest({ id: 'e2e-after-restart' }), 20_000)
      } catch {
        await Bun.sleep(250)
      }
    }
    expect(after?.ok).toBe(true)
  })
})

describe('classifier process on the ACP runtime', () => {
  it('makes no provider call for a run whose acp.base_url is not in ACP_BASE_URLS, and says so', async () => {
    // The production entry: the run fails before its key is read, so no opencode is started.
    const proc = await startClassifier({ ACP_BASE_URLS: 'https://llm.example/v1' }, 'real')
    const baseUrl = 'https://127.0.0.1:1/v1'
    const acp = { base_url: baseUrl, model: 'fake-model', prices: { input: 0.5, output: 2 } }
    const reply = await ask(aRunRequest({ id: 'e2e-acp-off-list', runtime: 'acp', acp, classifications: rules(2) }))
    expect(reply).toMatchObject({ id: 'e2e-acp-off-list', ok: false, overall: 'no-verdict', rows: [] })
    expect(reply.error).toBe(
      `the run's acp.base_url ${JSON.stringify(baseUrl)} is not in the classifier's ACP_BASE_URLS, so no provider was called`,
    )
    expect(await proc.waitForLine('review classifier run failed')).not.toContain(RUNTIME_KEYS.acp)
    expect(proc.lines.filter((line) => line.includes('opencode'))).toEqual([])
  })
})
