import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createDirSecretStore } from '../../../adapters/secrets-dir/secret-store.ts'
import { type ErrorCode, isAppError } from '../../../core/base/errors.ts'
import { secretStoreContract } from '../../ports/secret-store.contract.ts'

const SECRET_VALUE = 'sk-ant-api03-dir-secret-8e21'
const API_KEY = 'swarm/services/review-classifier/anthropic-api-key'
const FORGE_TOKEN = 'swarm/services/review-classifier/forge/token'

/** Writes a secret file as an operator would: `echo value > file; chmod 600 file`. */
async function seedFile(root: string, path: string, field: string, content: string, mode = 0o600): Promise<string> {
  const file = join(root, path, field)
  await mkdir(dirname(file), { recursive: true, mode: 0o700 })
  await writeFile(file, content)
  await chmod(file, mode)
  return file
}

async function expectFailure(promise: Promise<unknown>, code: ErrorCode): Promise<string> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail')
    },
    (failure: unknown) => failure,
  )
  expect(isAppError(error) ? error.code : error).toBe(code)
  const message = isAppError(error) ? error.message : ''
  expect(message).not.toContain(SECRET_VALUE)
  return message
}

secretStoreContract('secrets directory', async () => {
  const root = await mkdtemp(join(tmpdir(), 'secrets-dir-contract-'))
  return {
    store: createDirSecretStore({ dir: root }),
    seed: async (path, field, value) => {
      await seedFile(root, path, field, `${value}\n`)
    },
    forbid: async (path) => {
      for (const field of await readdir(join(root, path))) await chmod(join(root, path, field), 0o644)
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  }
})

describe('createDirSecretStore', () => {
  let root: string
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'secrets-dir-'))
  })
  afterEach(async () => {
    await rm(root, { recursive: true, force: true })
  })

  it('reads <dir>/<path>/<field>', async () => {
    await seedFile(root, API_KEY, 'api_key', SECRET_VALUE)
    expect(await createDirSecretStore({ dir: root }).read(API_KEY, 'api_key')).toBe(SECRET_VALUE)
  })

  it('drops exactly one trailing newline, \\n or \\r\\n', async () => {
    const store = createDirSecretStore({ dir: root })
    const cases: [string, string][] = [
      [`${SECRET_VALUE}\n`, SECRET_VALUE],
      [`${SECRET_VALUE}\r\n`, SECRET_VALUE],
      [`${SECRET_VALUE}\n\n`, `${SECRET_VALUE}\n`],
      [` ${SECRET_VALUE} `, ` ${SECRET_VALUE} `],
    ]
    for (const [content, expected] of cases) {
      await seedFile(root, API_KEY, 'api_key', content)
      expect(await store.read(API_KEY, 'api_key')).toBe(expected)
    }
  })

  it('answers null for an empty file, or one holding only a newline', async () => {
    const store = createDirSecretStore({ dir: root })
    await seedFile(root, API_KEY, 'api_key', '')
    expect(await store.read(API_KEY, 'api_key')).toBeNull()
    await seedFile(root, API_KEY, 'api_key', '\n')
    expect(await store.read(API_KEY, 'api_key')).toBeNull()
  })

  it('answers null when the directory itself does not exist yet', async () => {
    const store = createDirSecretStore({ dir: join(root, 'not-yet') })
    expect(await store.read(API_KEY, 'api_key')).toBeNull()
  })

  it("answers null where a directory or a shorter path's field file stands in the way", async () => {
    const store = createDirSecretStore({ dir: root })
    await seedFile(root, FORGE_TOKEN, 'token', SECRET_VALUE)
    // `…/forge` field `token` is the directory holding `…/forge/token`'s fields.
    expect(await store.read('swarm/services/review-classifier/forge', 'token')).toBeNull()
    // `…/forge/token/token` is a file, so nothing lies below it.
    expect(await store.read(`${FORGE_TOKEN}/token`, 'token')).toBeNull()
  })

  it('refuses a secret file open to group or others, naming the file and the chmod fix', async () => {
    const store = createDirSecretStore({ dir: root })
    for (const mode of [0o640, 0o604, 0o620, 0o644]) {
      const file = await seedFile(root, API_KEY, 'api_key', SECRET_VALUE, mode)
      const message = await expectFailure(store.read(API_KEY, 'api_key'), 'forbidden')
      expect(message).toContain(file)
      expect(message).toContain(`chmod 600 ${file}`)
    }
    await chmod(join(root, API_KEY, 'api_key'), 0o400)
    expect(await store.read(API_KEY, 'api_key')).toBe(SECRET_VALUE)
  })

  it('writes a 0600 file in 0700 directories it creates, leaving no temporary file', async () => {
    const dir = join(root, 'made-by-write')
    const store = createDirSecretStore({ dir })
    await store.write(FORGE_TOKEN, 'token', SECRET_VALUE)
    expect(await store.read(FORGE_TOKEN, 'token')).toBe(SECRET_VALUE)
    const file = join(dir, FORGE_TOKEN, 'token')
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    for (let folder = dirname(file); folder.startsWith(dir); folder = dirname(folder)) {
      expect((await stat(folder)).mode & 0o777).toBe(0o700)
    }
    expect(await readdir(join(dir, FORGE_TOKEN))).toEqual(['token'])
  })

  it('replaces a file the operator left open to others with a private one', async () => {
    await seedFile(root, FORGE_TOKEN, 'token', 'old', 0o644)
    const store = createDirSecretStore({ dir: root })
    await store.write(FORGE_TOKEN, 'token', SECRET_VALUE)
    expect(await store.read(FORGE_TOKEN, 'token')).toBe(SECRET_VALUE)
  })

  it('keeps each field in its own file, so writing one leaves the others', async () => {
    await seedFile(root, API_KEY, 'note', 'by hand')
    const store = createDirSecretStore({ dir: root })
    await store.write(API_KEY, 'api_key', SECRET_VALUE)
    expect(await store.read(API_KEY, 'note')).toBe('by hand')
  })

  it('leaves one whole value after concurrent writes', async () => {
    const store = createDirSecretStore({ dir: root })
    const values = Array.from({ length: 20 }, (_, index) => `${'v'.repeat(4096)}-${index}`)
    await Promise.all(values.map((value) => store.write(FORGE_TOKEN, 'token', value)))
    expect(values).toContain((await store.read(FORGE_TOKEN, 'token')) ?? '')
    expect(await readdir(join(root, FORGE_TOKEN))).toEqual(['token'])
  })

  it('refuses values that would not read back as written', async () => {
    const store = createDirSecretStore({ dir: root })
    await expectFailure(store.write(FORGE_TOKEN, 'token', ''), 'invalid')
    await expectFailure(store.write(FORGE_TOKEN, 'token', `${SECRET_VALUE}\n`), 'invalid')
    expect(await readdir(root)).toEqual([])
  })

  it('refuses traversal, absolute paths and empty segments with invalid, touching nothing', async () => {
    const inner = join(root, 'store')
    await mkdir(inner)
    await writeFile(join(root, 'outside'), SECRET_VALUE)
    await chmod(join(root, 'outside'), 0o600)
    const store = createDirSecretStore({ dir: inner })
    const bad: [string, string][] = [
      ['..', 'outside'],
      ['swarm/../..', 'outside'],
      [join(root), 'outside'],
      ['/etc', 'passwd'],
      ['swarm//x', 'f'],
      ['swarm/./x', 'f'],
      ['swarm/x/', 'f'],
      ['', 'f'],
      ['swarm/x', ''],
      ['swarm/x', '..'],
      ['swarm/x', '.'],
      ['swarm', '../outside'],
      ['swarm/x\u0000y', 'f'],
    ]
    for (const [path, field] of bad) {
      await expectFailure(store.read(path, field), 'invalid')
      await expectFailure(store.write(path, field, 'overwritten'), 'invalid')
    }
    expect(await readdir(inner)).toEqual([])
    expect(await Bun.file(join(root, 'outside')).text()).toBe(SECRET_VALUE)
  })

  it('answers conflict when a write would need a directory where a field file is', async () => {
    await seedFile(root, FORGE_TOKEN, 'token', SECRET_VALUE)
    const store = createDirSecretStore({ dir: root })
    await expectFailure(store.write(`${FORGE_TOKEN}/token`, 'token', 'x'), 'conflict')
    expect(await store.read(FORGE_TOKEN, 'token')).toBe(SECRET_VALUE)
  })
})
