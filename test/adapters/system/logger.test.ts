import { describe, expect, it } from 'bun:test'
import { createJsonLogger, type JsonLoggerConfig, parseLogLevel } from '../../../adapters/system/logger.ts'
import { AppError, appError, isAppError } from '../../../core/base/errors.ts'

const fixedTime = new Date(Date.UTC(2026, 5, 30, 10, 0, 0, 123))

function capture(config: Omit<JsonLoggerConfig, 'write'> = {}) {
  const lines: string[] = []
  const logger = createJsonLogger({ now: () => fixedTime, ...config, write: (line) => void lines.push(line) })
  function parsed(): Record<string, unknown>[] {
    return lines.map((line) => JSON.parse(line))
  }
  return { logger, lines, parsed }
}

describe('createJsonLogger', () => {
  it('writes one JSON object per line: time, level, msg, then the fields as given', () => {
    const { logger, lines } = capture()
    logger.info('review classifier run finished', { trigger: 'review', repo: 'acme/app', pr: 42, rows: 3 })
    expect(lines).toHaveLength(1)
    expect(lines[0]?.endsWith('\n')).toBe(true)
    expect(lines[0]?.slice(0, -1)).not.toContain('\n')
    const entry = JSON.parse(lines[0] ?? '')
    expect(Object.keys(entry)).toEqual(['time', 'level', 'msg', 'trigger', 'repo', 'pr', 'rows'])
    expect(entry).toEqual({
      time: '2026-06-30T10:00:00.123Z',
      level: 'info',
      msg: 'review classifier run finished',
      trigger: 'review',
      repo: 'acme/app',
      pr: 42,
      rows: 3,
    })
  })

  it('stamps lines with the wall clock by default', () => {
    const lines: string[] = []
    const before = Date.now()
    createJsonLogger({ write: (line) => void lines.push(line) }).warn('x')
    const time = Date.parse(JSON.parse(lines[0] ?? '{}').time)
    expect(time).toBeGreaterThanOrEqual(before)
    expect(time).toBeLessThanOrEqual(Date.now())
  })

  it('writes at info and above by default, dropping debug', () => {
    const { logger, parsed } = capture()
    logger.debug('d')
    logger.info('i')
    logger.warn('w')
    logger.error('e')
    expect(parsed().map((e) => [e.level, e.msg])).toEqual([
      ['info', 'i'],
      ['warn', 'w'],
      ['error', 'e'],
    ])
  })

  it('filters by the configured level', () => {
    const debug = capture({ level: 'debug' })
    const warn = capture({ level: 'warn' })
    const error = capture({ level: 'error' })
    for (const { logger } of [debug, warn, error]) {
      logger.debug('d')
      logger.info('i')
      logger.warn('w')
      logger.error('e')
    }
    expect(debug.parsed().map((e) => e.level)).toEqual(['debug', 'info', 'warn', 'error'])
    expect(warn.parsed().map((e) => e.level)).toEqual(['warn', 'error'])
    expect(error.parsed().map((e) => e.level)).toEqual(['error'])
  })

  it('serialises errors as name, message and code, without the stack', () => {
    const { logger, lines, parsed } = capture()
    const plain = new TypeError('bad thing')
    const withCode = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED', errno: -111 })
    logger.error('failed', { error: appError('unavailable', 'forge down'), plain, withCode })
    expect(parsed()[0]).toMatchObject({
      error: { name: 'AppError', message: 'forge down', code: 'unavailable' },
      plain: { name: 'TypeError', message: 'bad thing' },
      withCode: { name: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:1', code: 'ECONNREFUSED' },
    })
    expect(parsed()[0]?.plain).toEqual({ name: 'TypeError', message: 'bad thing' })
    expect(lines[0]).not.toContain('stack')
    expect(lines[0]).not.toContain('errno')
    expect(lines[0]).not.toContain('logger.test.ts')
  })

  it('follows an error cause chain', () => {
    const { logger, parsed } = capture()
    const cause = Object.assign(new Error('14 UNAVAILABLE'), { code: 14 })
    logger.warn('failed', { error: new AppError('unavailable', 'export failed', { cause }) })
    expect(parsed()[0]?.error).toEqual({
      name: 'AppError',
      message: 'export failed',
      code: 'unavailable',
      cause: { name: 'Error', message: '14 UNAVAILABLE', code: 14 },
    })
  })

  it('adds stacks only when asked to', () => {
    const { logger, parsed } = capture({ errorStacks: true })
    logger.error('failed', { error: new Error('boom') })
    const error = parsed()[0]?.error
    expect(error).toMatchObject({ name: 'Error', message: 'boom' })
    expect(JSON.stringify(error)).toContain('logger.test.ts')
  })

  it('never throws on BigInt, cyclic, deep or hostile values, and keeps the rest of the line', () => {
    const { logger, parsed } = capture()
    const cyclic: Record<string, unknown> = { name: 'loop' }
    cyclic.self = cyclic
    const shared = { n: 1 }
    const hostile = {
      ok: 'yes',
      get broken(): string {
        throw new Error('getter exploded')
      },
    }
    let deep: Record<string, unknown> = { leaf: true }
    for (let i = 0; i < 20; i += 1) deep = { deep }
    const badToJson = {
      toJSON() {
        throw new Error('no')
      },
    }
    expect(() =>
      logger.info('odd values', {
        big: 12345678901234567890n,
        cyclic,
        twice: [shared, shared],
        hostile,
        deep,
        nan: Number.NaN,
        inf: Number.POSITIVE_INFINITY,
        missing: undefined,
        fn: () => 1,
        sym: Symbol('s'),
        when: new Date(Date.UTC(2026, 0, 2)),
        invalidDate: new Date('nope'),
        map: new Map([['k', 1n]]),
        set: new Set(['a']),
        bytes: new Uint8Array(5),
        url: new URL('https://forge.example/acme/app/pulls/1'),
        badToJson,
        nullish: null,
        after: 'still here',
      }),
    ).not.toThrow()
    const entry = parsed()[0]
    expect(entry).toMatchObject({
      big: '12345678901234567890',
      cyclic: { name: 'loop', self: '[circular]' },
      twice: [{ n: 1 }, { n: 1 }],
      hostile: { ok: 'yes', broken: '[unreadable]' },
      nan: 'NaN',
      inf: 'Infinity',
      fn: '[function]',
      sym: 'Symbol(s)',
      when: '2026-01-02T00:00:00.000Z',
      invalidDate: 'Invalid Date',
      map: [['k', '1']],
      set: ['a'],
      bytes: '[5 bytes]',
      url: 'https://forge.example/acme/app/pulls/1',
      badToJson: '[unreadable]',
      nullish: null,
      after: 'still here',
    })
    expect(entry).not.toHaveProperty('missing')
    expect(JSON.stringify(entry?.deep)).toContain('[too deep]')
  })

  it('never lets a field replace the line’s own time, level or msg', () => {
    const { logger, parsed } = capture()
    logger.warn('real message', { msg: 'fake', level: 'debug', time: 'then' })
    expect(parsed()[0]).toEqual({
      time: '2026-06-30T10:00:00.123Z',
      level: 'warn',
      msg: 'real message',
      field_msg: 'fake',
      field_level: 'debug',
      field_time: 'then',
    })
  })

  it('cuts a very long field so one line stays readable', () => {
    const { logger, parsed } = capture()
    logger.warn('provider error', { body: 'x'.repeat(100_000) })
    const body = String(parsed()[0]?.body)
    expect(body.length).toBeLessThan(20_000)
    expect(body.endsWith('[truncated]')).toBe(true)
  })

  it('does not throw when the write itself fails', () => {
    const logger = createJsonLogger({
      write: () => {
        throw new Error('EPIPE')
      },
    })
    expect(() => logger.error('x')).not.toThrow()
  })

  it('writes to stdout by default', async () => {
    const script = `
      const { createJsonLogger } = await import(${JSON.stringify(new URL('../../../adapters/system/logger.ts', import.meta.url).pathname)})
      const logger = createJsonLogger()
      logger.debug('hidden')
      logger.info('shown', { n: 1 })
    `
    const child = Bun.spawn([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'pipe' })
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited])
    expect(code).toBe(0)
    const lines = stdout.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 'info', msg: 'shown', n: 1 })
  })
})

describe('createJsonLogger redaction', () => {
  const secret = 'sk-ant-api03-SECRETSECRET'

  it('replaces a listed secret wherever it appears: msg, fields, keys, nested values, errors and causes', () => {
    const { logger, lines, parsed } = capture({ redact: [secret] })
    const providerError = new AppError('unauthorized', `invalid x-api-key ${secret}`, {
      cause: Object.assign(new Error(`401 from provider: key ${secret} rejected`), { code: `E_${secret}` }),
    })
    logger.error(`startup ${secret}`, {
      error: providerError,
      nested: { headers: [`Bearer ${secret}`] },
      [secret]: 'as a key',
      big: 1n,
    })
    expect(lines[0]).not.toContain(secret)
    expect(lines[0]).not.toContain('SECRETSECRET')
    const entry = parsed()[0]
    expect(entry).toMatchObject({
      msg: 'startup [redacted]',
      error: {
        message: 'invalid x-api-key [redacted]',
        cause: { message: '401 from provider: key [redacted] rejected', code: 'E_[redacted]' },
      },
      nested: { headers: ['Bearer [redacted]'] },
      '[redacted]': 'as a key',
    })
  })

  it('redacts secrets that JSON would escape (quotes, backslashes, newlines)', () => {
    const awkward = 'pa"ss\\wo\nrd-123'
    const { logger, lines, parsed } = capture({ redact: [awkward] })
    logger.warn('x', { detail: `before ${awkward} after` })
    expect(parsed()[0]?.detail).toBe('before [redacted] after')
    expect(lines[0]).not.toContain(JSON.stringify(awkward).slice(1, -1))
  })

  it('replaces the longer of two overlapping secrets whole', () => {
    const { logger, lines } = capture({ redact: ['abcd1234', 'abcd1234efgh5678'] })
    logger.info('x', { v: 'key=abcd1234efgh5678' })
    expect(lines[0]).not.toContain('efgh5678')
    expect(JSON.parse(lines[0] ?? '').v).toBe('key=[redacted]')
  })

  it('redacts before cutting a long field, so no prefix of the secret survives the cut', () => {
    const { logger, lines } = capture({ redact: [secret] })
    logger.info('x', { body: `${'y'.repeat(16_380)}${secret}` })
    expect(lines[0]).not.toContain('sk-a')
  })

  it('picks up a secret the owner adds after creating the logger', () => {
    const redact: string[] = []
    const { logger, lines } = capture({ redact })
    redact.push(secret)
    logger.info('x', { echoed: secret })
    expect(lines[0]).not.toContain(secret)
  })

  it('ignores an empty secret instead of mangling every line', () => {
    const { logger, parsed } = capture({ redact: [''] })
    logger.info('hello', { a: 'b' })
    expect(parsed()[0]).toMatchObject({ msg: 'hello', a: 'b' })
  })
})

describe('parseLogLevel', () => {
  it('defaults to info when unset or empty', () => {
    expect(parseLogLevel(undefined)).toBe('info')
    expect(parseLogLevel('')).toBe('info')
    expect(parseLogLevel('  ')).toBe('info')
  })

  it('accepts the four levels in any case', () => {
    expect(parseLogLevel('debug')).toBe('debug')
    expect(parseLogLevel('INFO')).toBe('info')
    expect(parseLogLevel(' Warn ')).toBe('warn')
    expect(parseLogLevel('error')).toBe('error')
  })

  it('rejects anything else as a configuration error', () => {
    for (const text of ['verbose', 'warning', 'trace', '1']) {
      let thrown: unknown
      try {
        parseLogLevel(text)
      } catch (error) {
        thrown = error
      }
      expect(isAppError(thrown, 'invalid')).toBe(true)
      expect(String(thrown)).toContain('LOG_LEVEL')
    }
  })
})
