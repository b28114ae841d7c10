import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type TokenSource, tokenSourceFromEnv } from '../../../adapters/bao/token-source.ts'

const TOKEN = 'hvs.CAESIenvTokenForTests31aa'

function sourceOf(env: Record<string, string | undefined>): TokenSource {
  const result = tokenSourceFromEnv(env)
  if (!result.ok) throw new Error(`expected a token source, got: ${result.error}`)
  return result.value
}

function configErrorOf(env: Record<string, string | undefined>): string {
  const result = tokenSourceFromEnv(env)
  if (result.ok) throw new Error('expected a configuration error')
  return result.error
}

describe('tokenSourceFromEnv', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bao-token-env-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('gives BAO_TOKEN as it is', async () => {
    expect(await sourceOf({ BAO_TOKEN: TOKEN }).current()).toBe(TOKEN)
  })

  it('reads BAO_TOKEN_FILE on every use, without its trailing newline', async () => {
    const file = join(dir, 'token')
    await writeFile(file, `${TOKEN}\n`)
    const source = sourceOf({ BAO_TOKEN_FILE: file })
    expect(await source.current()).toBe(TOKEN)
    await writeFile(file, 'hvs.rotated')
    expect(await source.current()).toBe('hvs.rotated')
  })

  it('names both variables when neither is set (an empty value counts as unset)', () => {
    for (const env of [{}, { BAO_TOKEN: '', BAO_TOKEN_FILE: '' }]) {
      const message = configErrorOf(env)
      expect(message).toContain('BAO_TOKEN')
      expect(message).toContain('BAO_TOKEN_FILE')
    }
  })

  it('refuses both set at once', () => {
    expect(configErrorOf({ BAO_TOKEN: TOKEN, BAO_TOKEN_FILE: join(dir, 'token') })).toContain('only one')
  })

  it('refuses a BAO_TOKEN with whitespace inside, without quoting it', () => {
    const message = configErrorOf({ BAO_TOKEN: `${TOKEN} extra` })
    expect(message).toContain('BAO_TOKEN')
    expect(message).not.toContain(TOKEN)
  })

  it('does not check the file at start, so an agent may write it later', async () => {
    const file = join(dir, 'later')
    const source = sourceOf({ BAO_TOKEN_FILE: file })
    await writeFile(file, TOKEN)
    expect(await source.current()).toBe(TOKEN)
  })
})
