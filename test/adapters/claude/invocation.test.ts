/**
 * How the runtime starts and reads a process, with stand-in binaries (small
 * shell scripts) where the real CLI cannot show it: the exact environment
 * and stdin it gets, a process group that ignores SIGTERM, a stderr that
 * leaks a key. Plus the pure pieces: arguments, attributes, redaction.
 */
import { afterEach, beforeEach, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  claudeArgs,
  claudeStdinLine,
  otelResourceAttributes,
  pickPassEnv,
  thinkingBudgetTokens,
} from '../../../adapters/claude/invocation.ts'
import { DETAIL_MAX_CHARS, failureDetail, findResultLine, redactSecrets } from '../../../adapters/claude/outcome.ts'
import { type ClaudeRuntimeConfig, createClaudeRuntime } from '../../../adapters/claude/runtime.ts'
import { createRecordingLogger, type RecordingLogger } from '../../../adapters/memory/logger.ts'
import type { ModelRuntime } from '../../../ports/model-runtime.ts'
import { aClassifyInput } from '../../support/builders.ts'
import { classifyOnce } from '../../support/classify-once.ts'
import { ROOMY_DEADLINE_MS } from '../../support/waits.ts'
import { aWorkDir, groupAlive, processAlive, SECRET_KEY, startedPids } from './support.ts'

// A stand-in answers at once; the room is for a loaded machine's process starts.
setDefaultTimeout(180_000)

const RESULT_LINE = JSON.stringify({
  type: 'result',
  subtype: 'success',
  is_error: false,
  result: 'stub answer',
  usage: { input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 5, cache_creation_input_tokens: 6 },
})

describe('createClaudeRuntime with a stand-in binary', () => {
  let work: { path: string; remove(): Promise<void> }
  let logger: RecordingLogger
  beforeEach(async () => {
    work = await aWorkDir()
    logger = createRecordingLogger()
  })
  afterEach(async () => {
    await work.remove()
  })

  async function runtimeWith(script: string, config: Partial<ClaudeRuntimeConfig> = {}): Promise<ModelRuntime> {
    const bin = join(work.path, 'claude-stub')
    await writeFile(bin, `#!/bin/sh\nout='${work.path}'\n${script}\n`)
    await chmod(bin, 0o755)
    return createClaudeRuntime({ claudeBin: bin, workDir: join(work.path, 'work'), passEnv: {}, ...config }, logger)
  }

  it('starts the process with only its own variables, the arguments and the one stdin line, in the shared directory', async () => {
    const runtime = await runtimeWith(
      `env > "$out/env"; for a in "$@"; do printf '%s\\0' "$a"; done > "$out/args"; cat > "$out/stdin"; pwd > "$out/cwd"; ls -d "$HOME" "$TMPDIR" > "$out/dirs"; printf '%s\\n' '${RESULT_LINE}'`,
      {
        passEnv: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:8' },
        otlpEndpoint: 'http://127.0.0.1:4317',
        maxRetries: 1,
      },
    )
    const input = aClassifyInput({
      apiKey: SECRET_KEY,
      effort: 'high',
      labels: { repo: 'acme/widgets', pr: 7 },
      deadlineMs: ROOMY_DEADLINE_MS,
    })
    const result = await classifyOnce(runtime, input)
    expect(result).toEqual({
      ok: true,
      value: { text: 'stub answer', usage: { input: 3, output: 4, cache_read: 5, cache_write: 6 } },
    })

    const env = Object.fromEntries(
      (await readFile(join(work.path, 'env'), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    )
    // The shell adds PWD (and may add SHLVL/_); everything else is ours.
    const { PWD: _pwd, SHLVL: _shlvl, _: _underscore, HOME, TMPDIR, ...rest } = env
    expect(rest).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      ANTHROPIC_API_KEY: SECRET_KEY,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      HTTPS_PROXY: 'http://127.0.0.1:8',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_MAX_RETRIES: '1',
      CLAUDE_CODE_MAX_OUTPUT_TOKENS: '1024',
      MAX_THINKING_TOKENS: '0',
      OTEL_RESOURCE_ATTRIBUTES: 'repo=acme/widgets,pr=7',
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317',
    })
    expect(HOME).not.toBe(TMPDIR)
    expect([HOME, TMPDIR].every((dir) => dir?.startsWith(join(work.path, 'work', 'session-')))).toBe(true)
    expect((await readFile(join(work.path, 'dirs'), 'utf8')).trim().split('\n')).toEqual([HOME ?? '', TMPDIR ?? ''])

    expect((await readFile(join(work.path, 'args'), 'utf8')).split('\0').slice(0, -1)).toEqual(claudeArgs(input))
    expect(await readFile(join(work.path, 'stdin'), 'utf8')).toBe(claudeStdinLine(input.context, input.question))
    expect((await readFile(join(work.path, 'cwd'), 'utf8')).trim()).toBe(join(work.path, 'work', 'cwd'))
    expect(await readdir(join(work.path, 'work'))).toEqual(['cwd'])
  })

  it('sets no telemetry variables without a collector', async () => {
    const runtime = await runtimeWith(`env > "$out/env"; printf '%s\\n' '${RESULT_LINE}'`)
    await classifyOnce(runtime, aClassifyInput({ deadlineMs: ROOMY_DEADLINE_MS }))
    const names = (await readFile(join(work.path, 'env'), 'utf8')).split('\n').map((line) => line.split('=')[0])
    expect(names.filter((name) => name?.startsWith('OTEL_') || name === 'CLAUDE_CODE_ENABLE_TELEMETRY')).toEqual([
      'OTEL_RESOURCE_ATTRIBUTES',
    ])
  })

  it('kills the whole process group when the process ignores SIGTERM', async () => {
    const runtime = await runtimeWith(`trap '' TERM; sleep 60 & echo $! > "$out/child"; wait`, { killGraceMs: 300 })
    const result = await classifyOnce(runtime, aClassifyInput({ deadlineMs: 1_000 }))
    expect(result).toEqual({ ok: false, error: { kind: 'timeout', detail: 'no answer within 1000 ms' } })
    const child = Number((await readFile(join(work.path, 'child'), 'utf8')).trim())
    const pids = [...startedPids(logger), child]
    expect(await Promise.all(pids.map(processAlive))).toEqual([false, false])
    expect(await Promise.all(startedPids(logger).map(groupAlive))).toEqual([false])
    expect(await readdir(join(work.path, 'work'))).toEqual(['cwd'])
  })

  it('redacts the key from a failure and keeps it to one short line', async () => {
    const runtime = await runtimeWith(
      `cat > /dev/null; for i in 1 2 3; do echo "bad key $ANTHROPIC_API_KEY and sk-other-secret-123"; done >&2; head -c 2000 /dev/zero | tr '\\0' x >&2; exit 1`,
    )
    const result = await classifyOnce(runtime, aClassifyInput({ apiKey: SECRET_KEY, deadlineMs: ROOMY_DEADLINE_MS }))
    const detail = result.ok ? '' : result.error.detail
    expect(result.ok ? 'answered' : result.error.kind).toBe('runtime')
    expect(detail).toStartWith('claude exited with code 1: no result line: stderr: ')
    expect(detail).not.toContain(SECRET_KEY)
    expect(detail).not.toContain('sk-')
    expect(detail).not.toContain('\n')
    expect(detail.length).toBeLessThanOrEqual(DETAIL_MAX_CHARS)
  })

  it('fails a run that exits non-zero even with a successful result line, and one that exits 0 without any', async () => {
    const nonZero = await runtimeWith(`cat > /dev/null; printf '%s\\n' '${RESULT_LINE}'; exit 3`)
    expect(await classifyOnce(nonZero, aClassifyInput({ deadlineMs: ROOMY_DEADLINE_MS }))).toEqual({
      ok: false,
      error: { kind: 'runtime', detail: 'claude exited with code 3: stub answer' },
    })
    const silent = await runtimeWith(`cat > /dev/null; exit 0`)
    expect(await classifyOnce(silent, aClassifyInput({ deadlineMs: ROOMY_DEADLINE_MS }))).toEqual({
      ok: false,
      error: { kind: 'runtime', detail: 'claude exited with code 0: no result line' },
    })
  })

  it('reports a binary that cannot start as a runtime failure and leaves no session directory', async () => {
    const runtime = createClaudeRuntime(
      { claudeBin: join(work.path, 'missing-claude'), workDir: join(work.path, 'work'), passEnv: {} },
      logger,
    )
    const result = await classifyOnce(runtime, aClassifyInput({ deadlineMs: ROOMY_DEADLINE_MS }))
    expect(result.ok ? 'answered' : result.error.detail).toStartWith('could not run claude: ')
    expect(await readdir(join(work.path, 'work'))).toEqual(['cwd'])
  })

  it('does not start a session whose signal has already aborted', async () => {
    const runtime = await runtimeWith(`touch "$out/started"; printf '%s\\n' '${RESULT_LINE}'`)
    expect(
      await classifyOnce(runtime, aClassifyInput({ signal: AbortSignal.abort(), deadlineMs: ROOMY_DEADLINE_MS })),
    ).toEqual({
      ok: false,
      error: { kind: 'runtime', detail: 'cancelled' },
    })
    expect(startedPids(logger)).toEqual([])
  })
})

describe('claude invocation pieces', () => {
  it('leaves the answer room under the output cap, and turns thinking off below the least budget', () => {
    expect([256, 1024, 1535, 1536, 4096, 8192].map(thinkingBudgetTokens)).toEqual([0, 0, 0, 1024, 3584, 7680])
  })

  it('passes the effort only when one is set', () => {
    const base = { system: 'S', model: 'haiku' }
    expect(claudeArgs({ ...base, effort: null })).not.toContain('--effort')
    expect(claudeArgs({ ...base, effort: 'max' }).join(' ')).toContain('--effort max')
    expect(claudeArgs({ ...base, effort: null })).toEqual([
      '--print',
      '--setting-sources',
      '',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--tools',
      '',
      '--strict-mcp-config',
      '--system-prompt',
      'S',
      '--model',
      'haiku',
      '--no-session-persistence',
    ])
  })

  it('percent-encodes resource attribute values outside the baggage octets', () => {
    expect(otelResourceAttributes({ repo: 'owner/name', pr: 12 })).toBe('repo=owner/name,pr=12')
    expect(otelResourceAttributes({ repo: 'a,b=c d%é;"\\', pr: 1 })).toBe('repo=a%2Cb%3Dc%20d%25%C3%A9%3B%22%5C,pr=1')
    expect(decodeURIComponent('a%2Cb%3Dc%20d%25%C3%A9%3B%22%5C')).toBe('a,b=c d%é;"\\')
  })

  it('picks only the pass-through variables', () => {
    expect(
      pickPassEnv({
        ANTHROPIC_BASE_URL: 'http://x',
        HOME: '/root',
        ANTHROPIC_API_KEY: 'sk-x',
        NO_PROXY: '',
        SSL_CERT_FILE: '/ca.pem',
      }),
    ).toEqual({
      ANTHROPIC_BASE_URL: 'http://x',
      SSL_CERT_FILE: '/ca.pem',
    })
  })

  it('redacts the key and key-shaped text before cutting', () => {
    expect(redactSecrets('key abc123 and sk-ant-x_y-z end', 'abc123')).toBe('key [redacted] and [redacted] end')
    const cut = failureDetail(`${'a'.repeat(DETAIL_MAX_CHARS - 5)} secretkey`, 'secretkey')
    expect(cut).not.toContain('secr')
    expect(cut.length).toBeLessThanOrEqual(DETAIL_MAX_CHARS)
  })

  it('reads the last valid result line and ignores anything else', () => {
    const stdout = [
      '{"type":"system","subtype":"init"}',
      'not json "result"',
      '{"type":"result","is_error":true,"result":"x","api_error_status":401}',
      '',
    ].join('\n')
    expect(findResultLine(stdout)).toEqual({ type: 'result', is_error: true, result: 'x', api_error_status: 401 })
    expect(findResultLine('{"type":"result","is_error":"no"}')).toBeNull()
  })
})
