/**
 * Each fence docs/decisions.md puts around opencode, checked on the real process:
 * two classifications of one PR run as one run (one process, two sessions),
 * and while each one's request is at the fake provider the test looks at the
 * live process (its environment, children, listening port and files). A
 * second run then shows each process gets a password of its own. The last test shows the proxy catcher
 * does see opencode's outbound calls when the fences are down, so its
 * silence above means something.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAcpConnection } from '../../../adapters/opencode/acp-client.ts'
import { KEY_ENV_NAME, opencodeEnv, runDirs } from '../../../adapters/opencode/config.ts'
import type { ClassifyResult } from '../../../ports/model-runtime.ts'
import { type RecordedRequest, startFakeOpenAI } from '../../support/fake-openai.ts'
import { waitFor } from '../../support/waits.ts'
import { lastStarted, OPENCODE_BIN, type OpencodeHarness, PARENT_AGENTS_MD, startOpencodeHarness } from './harness.ts'
import { type LiveSnapshot, snapshot } from './live-process.ts'

// Three classifications on two new opencode processes (~3 CPU seconds each to start) in the set-up.
setDefaultTimeout(240_000)

const API_KEY = 'sk-fence-test-b81c0f'
const SYSTEM = 'You classify pull requests for the fence test.'
const CONTEXT = 'Pull request #7 in acme/widgets.\n=====BEGIN PR DATA=====\n+now(UTC)\n=====END PR DATA=====\n'
const QUESTIONS = ['Rule one: datetimes carry a zone.', 'Rule two: no print statements.'] as const
const ANSWER = '{"verdict":"match","certainty":80,"reason":"fake"}'

type Observed = {
  pid: number
  request: RecordedRequest
  live: LiveSnapshot
  configPort: { status: number; body: string } | null
}

const RUN_ID = 'fence-run'

describe('opencode fences', () => {
  let harness: OpencodeHarness
  const observed: Observed[] = []
  const results: ClassifyResult[] = []
  let runRequests: RecordedRequest[] = []
  let runDir = ''
  let runDirAfterEnd: string[] | null = null
  let otherRunPassword: string | undefined

  beforeAll(async () => {
    harness = await startOpencodeHarness()
    harness.fake.setMode({ kind: 'answer', text: ANSWER })
    harness.fake.onRequest(async (request) => {
      const { pid, dir } = lastStarted(harness.logger)
      const live = await snapshot(pid, dir)
      const port = live.listenPorts[0]
      const configPort =
        port === undefined
          ? null
          : await fetch(`http://127.0.0.1:${port}/config`).then(async (response) => ({
              status: response.status,
              body: await response.text(),
            }))
      observed.push({ pid, request, live, configPort })
    })
    for (const question of QUESTIONS) {
      results.push(
        await harness.classify({ runId: RUN_ID, apiKey: API_KEY, system: SYSTEM, context: CONTEXT, question }),
      )
    }
    runRequests = harness.fake.requests()
    runDir = lastStarted(harness.logger).dir
    await harness.runtime.endRun(RUN_ID)
    runDirAfterEnd = await readdir(runDir).catch(() => null)
    harness.fake.onRequest(async () => {
      const { pid, dir } = lastStarted(harness.logger)
      otherRunPassword = (await snapshot(pid, dir)).environ.get('OPENCODE_SERVER_PASSWORD')
    })
    await harness.classify({ apiKey: API_KEY, system: SYSTEM, context: CONTEXT, question: QUESTIONS[0] })
    harness.fake.onRequest(null)
  })

  afterAll(async () => {
    const ended = harness.logger.withMessage('opencode session ended').map((entry) => entry.fields)
    // Measured, not asserted: machines are noisy.
    console.log(
      `opencode per session (the first starts the run's process): ${ended.map((f) => `${f.wall_ms} ms, peak RSS ${f.peak_rss_mib} MiB`).join('; ')}`,
    )
    await harness.cleanup()
  })

  const bodies = () => observed.map((o) => Object(o.request.body))
  const messages = (index: number): unknown[] => {
    const value = Reflect.get(bodies()[index] ?? {}, 'messages')
    return Array.isArray(value) ? value : []
  }
  const systemText = (index: number) => String(Reflect.get(Object(messages(index)[0]), 'content'))
  const config = (index: number) => JSON.parse(observed[index]?.live.configText ?? '{}')

  it('answers both classifications', () => {
    expect(results.map((r) => (r.ok ? r.value.text : r.error.detail))).toEqual([ANSWER, ANSWER])
  })

  it('makes exactly one provider request per classification: no title call, no model list', () => {
    expect(runRequests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/chat/completions',
      'POST /v1/chat/completions',
    ])
  })

  it("runs the run's classifications on one process, as two sessions, and its end stops the process and removes its directory", () => {
    expect(new Set(observed.map((o) => o.pid)).size).toBe(1)
    const sessions = harness.logger.withMessage('opencode session ended').filter((entry) => entry.fields.run === RUN_ID)
    expect(new Set(sessions.map((entry) => entry.fields.session)).size).toBe(2)
    expect(
      harness.logger.withMessage('opencode process started').filter((entry) => entry.fields.run === RUN_ID),
    ).toHaveLength(1)
    expect(runDirAfterEnd).toBeNull()
    expect(existsSync(`/proc/${observed[0]?.pid}`)).toBe(false)
  })

  it('offers the model no tool', () => {
    for (const body of bodies()) {
      expect(Reflect.get(body, 'tools') ?? []).toEqual([])
      expect(Reflect.get(body, 'tool_choice')).toBeUndefined()
    }
  })

  it('sends our system prompt first, then only opencode model line and environment block', () => {
    const system = systemText(0)
    expect(system.startsWith(`${SYSTEM}\nYou are powered by the model named Qwen/Qwen3-35B.`)).toBe(true)
    expect(system).toContain(`Working directory: ${join(harness.workDir, 'empty')}`)
    expect(systemText(1)).toBe(system)
  })

  it('sends the PR and the question as one user message of two parts, the PR part identical across classifications', () => {
    for (const [index, question] of QUESTIONS.entries()) {
      expect(messages(index).slice(1)).toEqual([
        {
          role: 'user',
          content: [
            { type: 'text', text: CONTEXT },
            { type: 'text', text: question },
          ],
        },
      ])
    }
  })

  it('sends the key in the Authorization header only, and keeps it out of every file', () => {
    for (const { request, live } of observed) {
      expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`)
      const elsewhere = JSON.stringify({ ...request.headers, authorization: '' }) + JSON.stringify(request.body)
      expect(elsewhere).not.toContain(API_KEY)
      expect(live.files.filter((file) => file.text.includes(API_KEY)).map((file) => file.path)).toEqual([])
      expect(live.files.map((file) => file.path)).toContain('opencode.json')
    }
    expect(config(0).provider.acp.options.apiKey).toBe(`{env:${KEY_ENV_NAME}}`)
    expect(observed[0]?.live.environ.get(KEY_ENV_NAME)).toBe(API_KEY)
  })

  it('enables only our provider, so an unknown model cannot fall back to a public one', () => {
    expect(config(0).enabled_providers).toEqual(['acp'])
    expect(bodies().map((body) => Reflect.get(body, 'model'))).toEqual(['Qwen/Qwen3-35B', 'Qwen/Qwen3-35B'])
  })

  it('runs a primary agent of our own with no permission, so its prompt goes out and not build', () => {
    expect(config(0).agent.classifier).toEqual({ mode: 'primary', prompt: SYSTEM })
    expect(config(0).default_agent).toBe('classifier')
    // build's coding prompt alone is ~8.8k characters: ours is all that precedes opencode's model line.
    expect(systemText(0).split('\nYou are powered by the model')[0]).toBe(SYSTEM)
    expect(systemText(0).length).toBeLessThan(SYSTEM.length + 600)
  })

  it('denies every tool through OPENCODE_PERMISSION', () => {
    expect(observed[0]?.live.environ.get('OPENCODE_PERMISSION')).toBe('{"*":"deny"}')
  })

  it('pre-fills the plugin directory, so no npm install runs and nothing reaches the registry', () => {
    for (const { live } of observed) {
      expect(live.pluginModules).toEqual([])
      expect(live.children).toEqual([])
    }
    expect(harness.fake.proxied().filter((line) => line.includes('registry.npmjs.org'))).toEqual([])
  })

  it('fetches no model catalogue', () => {
    expect(observed[0]?.live.environ.get('OPENCODE_DISABLE_MODELS_FETCH')).toBe('1')
    expect(harness.fake.proxied().filter((line) => line.includes('models.opencode.ai'))).toEqual([])
  })

  it('reaches nothing but the provider', () => {
    expect(harness.fake.proxied()).toEqual([])
  })

  it('reads no project config or AGENTS.md above its working directory', () => {
    expect(observed[0]?.live.environ.get('OPENCODE_DISABLE_PROJECT_CONFIG')).toBe('1')
    expect(systemText(0)).not.toContain(PARENT_AGENTS_MD)
    expect(systemText(0)).not.toContain('PARENT CONFIG PROMPT')
  })

  it('guards its local HTTP port with a fresh password per process', () => {
    const passwords = observed.map((o) => o.live.environ.get('OPENCODE_SERVER_PASSWORD') ?? '')
    expect(passwords.every((password) => password.length >= 16)).toBe(true)
    // One process for the run, and the next run's process has a password of its own.
    expect(new Set(passwords).size).toBe(1)
    expect(otherRunPassword?.length).toBeGreaterThanOrEqual(16)
    expect(passwords).not.toContain(otherRunPassword)
    for (const { configPort } of observed) {
      expect(configPort?.status).toBe(401)
      expect(configPort?.body ?? '').not.toContain(API_KEY)
    }
  })

  it('passes nothing of the classifier environment beyond the proxy and CA variables', () => {
    const environ = observed[0]?.live.environ ?? new Map<string, string>()
    expect(environ.get('NODE_EXTRA_CA_CERTS')).toBe(harness.fake.caFile)
    expect(environ.has('NOT_PASSED')).toBe(false)
    expect(environ.has('PATH')).toBe(false)
    expect(environ.get('HOME')?.startsWith(join(harness.workDir, 'runs'))).toBe(true)
  })
})

describe('the proxy catcher', () => {
  it("records opencode's outbound calls when the fences are down", async () => {
    const fake = await startFakeOpenAI()
    const root = await mkdtemp(join(tmpdir(), 'opencode-unfenced-'))
    const dirs = runDirs(root)
    const cwd = join(root, 'cwd')
    for (const dir of [dirs.home, dirs.opencodeConfig, dirs.data, dirs.state, dirs.cache, dirs.tmp, cwd])
      await mkdir(dir, { recursive: true })
    const env = opencodeEnv({
      dirs,
      apiKey: 'unused',
      serverPassword: 'unused-password',
      passEnv: { HTTPS_PROXY: fake.proxyUrl },
    })
    // No plugin seed and the catalogue fetch back on: both try to go out.
    delete env.OPENCODE_DISABLE_MODELS_FETCH
    delete env.OPENCODE_CONFIG
    const child = spawn(OPENCODE_BIN, ['acp'], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'], detached: true })
    try {
      const connection = createAcpConnection((line) => child.stdin.write(line), {
        onNotification: () => undefined,
        onRequest: (method) => ({ ok: false, error: { code: -32601, message: method } }),
      })
      child.stdout.setEncoding('utf8')
      child.stdout.on('data', (chunk: string) => connection.receive(chunk))
      await connection.request('initialize', { protocolVersion: 1, clientCapabilities: {} })
      await connection.request('session/new', { cwd, mcpServers: [] })
      const wanted = ['CONNECT models.opencode.ai:443 HTTP/1.1', 'CONNECT registry.npmjs.org:443 HTTP/1.1']
      const seen = () => wanted.filter((line) => fake.proxied().includes(line))
      // Both follow session/new at once; the bound is for a loaded machine. On a miss the assertion names what is missing.
      await waitFor(() => seen().length === wanted.length, 'both outbound attempts', 60_000).catch(() => undefined)
      expect(seen()).toEqual(wanted)
    } finally {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
      await new Promise((resolve) =>
        child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('close', resolve),
      )
      await fake.stop()
      await rm(root, { recursive: true, force: true })
    }
  })
})
