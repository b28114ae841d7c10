/**
 * A classifier killed with SIGKILL leaves its `claude` processes running in
 * their own process groups (issue 11, item 6); the next classifier started
 * on the same WORK_DIR ends them and removes the dead one's directories,
 * and leaves a live classifier's sessions alone. Real classifier processes
 * on a real nats-server, the real `claude` against a fake provider that
 * never answers.
 */

import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRecordingLogger } from '../../adapters/memory/logger.ts'
import { connectNats, type NatsClient } from '../../adapters/nats/connection.ts'
import { createNatsRunQueue, runSubject } from '../../adapters/nats/queue.ts'
import { RUNTIME_KEY_SECRETS } from '../../core/settings/service-account.ts'
import type { Classification } from '../../core/wire/types.ts'
import { processAlive } from '../adapters/claude/support.ts'
import { aClassification, aRunRequest } from '../support/builders.ts'
import { cleanUp } from '../support/cleanup.ts'
import { type FakeAnthropic, startFakeAnthropic } from '../support/fake-anthropic.ts'
import { type NatsServer, startNatsServer } from '../support/nats-server.ts'
import { makeSecretsDir, type ServiceProcess, startClassifierProcess } from '../support/service-process.ts'
import { waitFor } from '../support/waits.ts'

setDefaultTimeout(120_000)

const API_KEY = 'sk-ant-leftovers-secret-2b7e'

let nats: NatsServer
let fake: FakeAnthropic
let secretsDir: string
let workDir: string
let client: NatsClient
const started: ServiceProcess[] = []
/** Every claude pid seen, so the teardown can end what a failed test left. */
const seenPids = new Set<number>()

function rules(prefix: string, count: number): Classification[] {
  return Array.from({ length: count }, (_, i) => aClassification({ name: `${prefix}-${i + 1}` }))
}

function startClassifier(swarm: string): ServiceProcess {
  const proc = startClassifierProcess({
    NATS_URL: nats.url,
    SWARM: swarm,
    SECRETS_DIR: secretsDir,
    ANTHROPIC_BASE_URL: fake.url,
    CLASSIFICATION_TIMEOUT_S: '600',
    WORK_DIR: workDir,
    LOG_LEVEL: 'debug',
  })
  started.push(proc)
  return proc
}

type Logged = { msg?: string; pid?: number; pgid?: number; runtime?: string; instance_pid?: number }

function logged(proc: ServiceProcess, msg: string): Logged[] {
  return proc.lines
    .filter((line) => line.includes(`"${msg}"`))
    .map((line) => JSON.parse(line) as Logged)
    .filter((entry) => entry.msg === msg)
}

/** The pids of the claude sessions a classifier has started (or, `asked`, sent a question to), from its debug log. */
function sessionPids(proc: ServiceProcess, which: 'started' | 'asked' = 'started'): number[] {
  const msg = which === 'started' ? 'claude session started' : 'claude question sent'
  const pids = logged(proc, msg).map((entry) => Number(entry.pid))
  for (const pid of pids) seenPids.add(pid)
  return pids
}

/** Sends a run on `swarm` and leaves it hanging: the fake answers only the question of `a-1`. */
function sendRun(swarm: string, id: string, classifications: Classification[]): void {
  const queue = createNatsRunQueue(client, { subject: runSubject(swarm) })
  void queue.request(aRunRequest({ id, classifications }), 300_000).catch(() => undefined)
}

const instances = () => readdirSync(join(workDir, 'instances')).sort()

beforeAll(async () => {
  nats = await startNatsServer()
  fake = startFakeAnthropic({
    mode: 'hang',
    text: '{"verdict":"match","certainty":90,"reason":"ok"}',
    responder: (body) => (JSON.stringify(body).includes('Name: a-1') ? { mode: 'ok' } : null),
  })
  secretsDir = makeSecretsDir({ [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: API_KEY } })
  workDir = mkdtempSync(join(tmpdir(), 'rc-leftovers-'))
  client = await connectNats({
    url: nats.url,
    name: 'leftovers-test',
    firstConnectTimeoutMs: 5_000,
    reconnectTimeWaitMs: 100,
    logger: createRecordingLogger(),
  })
})

afterAll(async () => {
  await cleanUp(
    async () => {
      for (const proc of started) {
        proc.kill('SIGKILL')
        await proc.exited
      }
    },
    () => {
      for (const pid of seenPids) {
        try {
          process.kill(-pid, 'SIGKILL')
        } catch {
          // gone, as it should be
        }
      }
    },
    client === undefined ? null : () => client.close(),
    fake === undefined ? null : () => fake.stop(),
    nats === undefined ? null : () => nats.cleanup(),
    secretsDir === undefined ? null : () => rmSync(secretsDir, { recursive: true, force: true }),
    workDir === undefined ? null : () => rmSync(workDir, { recursive: true, force: true }),
  )
})

describe('a classifier killed with sessions in hand', () => {
  it("has its process groups ended and its directories removed by the next classifier, which leaves a live one's alone", async () => {
    // A: takes a run of four rules; the first is answered, the other three are asked and hang at the provider.
    const a = startClassifier('left-a')
    await a.waitForLine('review classifier listening')
    const [aInstance] = instances()
    sendRun('left-a', 'run-a', rules('a', 4))
    await waitFor(() => sessionPids(a, 'asked').length === 4, "a's four questions", 30_000)
    await waitFor(() => fake.stats().messages >= 4, "a's questions at the provider", 30_000)
    const aPids = sessionPids(a)
    const aHanging = sessionPids(a, 'asked').slice(1)

    // B, on the same WORK_DIR while A lives: leaves A alone, and takes a run of its own (its first
    // question hangs, its second waits ahead on its stdin).
    const b = startClassifier('left-b')
    await b.waitForLine('review classifier listening')
    expect(logged(b, 'leftover model process group ended')).toEqual([])
    for (const pid of aHanging) expect(await processAlive(pid)).toBe(true)
    const bInstance = instances().find((name) => name !== aInstance)
    sendRun('left-b', 'run-b', rules('b', 2))
    await waitFor(() => sessionPids(b).length === 2, "b's two sessions", 30_000)
    const bPids = sessionPids(b)

    // A dies without a word; the claude processes still waiting for the provider do not.
    a.kill('SIGKILL')
    await a.exited
    for (const pid of aHanging) expect(await processAlive(pid)).toBe(true)
    expect(existsSync(join(workDir, 'instances', String(aInstance)))).toBe(true)

    // C starts on the same WORK_DIR: A's groups end, one line each, before it listens; B's are untouched.
    const c = startClassifier('left-c')
    await c.waitForLine('review classifier listening')
    const ended = logged(c, 'leftover model process group ended')
    expect(ended.map((entry) => entry.pid).sort()).toEqual([...aHanging].sort())
    for (const entry of ended) expect(entry).toMatchObject({ pgid: entry.pid, runtime: 'claude' })
    for (const pid of aPids) expect(await processAlive(pid)).toBe(false)
    expect(logged(c, 'leftovers of a dead classifier removed')).toHaveLength(1)
    expect(existsSync(join(workDir, 'instances', String(aInstance)))).toBe(false)
    for (const pid of bPids) expect(await processAlive(pid)).toBe(true)
    expect(instances()).toContain(String(bInstance))
    expect(readdirSync(join(workDir, 'instances', String(bInstance), 'sessions')).sort()).toEqual(
      bPids.map((pid) => `${pid}.json`).sort(),
    )
  })
})
