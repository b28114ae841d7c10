/**
 * The embedded secret store for one machine (docs/decisions.md, "Secrets": used when
 * `BAO_ADDR` is unset): a directory with one file per path and field,
 * `<dir>/<path>/<field>`, read on every use so a key written by hand counts
 * from the next call.
 *
 * A secret file must be private to its owner (no group or other bits), the
 * same rule ssh applies to a private key: a key others can read is treated as
 * refused, not served, and the message says how to fix it.
 *
 * The file holds the value as typed; one trailing newline (`\n` or `\r\n`,
 * what `echo` and most editors add) is not part of it. An empty file reads as
 * "no secret", like a missing one: an empty key is never usable, and "no key"
 * is the clearer failure for the caller to report.
 */
import { randomUUID } from 'node:crypto'
import { constants } from 'node:fs'
import { type FileHandle, mkdir, open, rename, unlink } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { appError } from '../../core/base/errors.ts'
import { secretPathSegments } from '../../core/settings/secret-path.ts'
import type { SecretStore } from '../../ports/secret-store.ts'

export type DirSecretStoreConfig = {
  /** `SECRETS_DIR` (default `.secrets/`); a relative one is taken from the working directory at creation. */
  dir: string
}

/** Far above any key or token; a bigger file is a mistake, not a secret to load into memory. */
const MAX_SECRET_BYTES = 64 * 1024

export function createDirSecretStore(config: DirSecretStoreConfig): SecretStore {
  const root = resolve(config.dir)

  function locate(path: string, field: string): { dir: string; file: string } {
    const dir = join(root, ...secretPathSegments(path, field))
    return { dir, file: join(dir, field) }
  }

  return {
    async read(path, field) {
      const { file } = locate(path, field)
      let handle: FileHandle
      try {
        // Non-blocking so a FIFO put there by mistake can't hang the read; it has no effect on a regular file.
        handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK)
      } catch (error) {
        const code = errorCode(error)
        // ENOTDIR: a segment of the path is a field file of a shorter path, so this secret doesn't exist.
        if (code === 'ENOENT' || code === 'ENOTDIR') return null
        if (code === 'EACCES' || code === 'EPERM') {
          throw appError(
            'forbidden',
            `secret file ${file} can't be read by this process (${code}); check its owner`,
            error,
          )
        }
        throw appError('unavailable', `secret file ${file} can't be opened (${code})`, error)
      }
      try {
        const stat = await handle.stat()
        // A directory here holds the fields of a longer path, not this field.
        if (stat.isDirectory()) return null
        if (!stat.isFile()) throw appError('unavailable', `secret file ${file} isn't a regular file`)
        if ((stat.mode & 0o077) !== 0) {
          throw appError(
            'forbidden',
            `secret file ${file} is open to group or others (mode ${(stat.mode & 0o777).toString(8)}); make it private with: chmod 600 ${file}`,
          )
        }
        if (stat.size > MAX_SECRET_BYTES) {
          throw appError(
            'unavailable',
            `secret file ${file} is larger than ${MAX_SECRET_BYTES} bytes; is it the right file?`,
          )
        }
        const value = stripOneNewline(await handle.readFile('utf8'))
        return value === '' ? null : value
      } finally {
        await handle.close()
      }
    },

    async write(path, field, value) {
      const { dir, file } = locate(path, field)
      // Only values that read back exactly as written are accepted.
      if (value === '')
        throw appError('invalid', `refusing to write an empty value to ${path}: it would read back as no secret`)
      if (value.endsWith('\n')) {
        throw appError(
          'invalid',
          `refusing to write a value ending in a newline to ${path}: the newline would not read back`,
        )
      }
      // Write a private temporary file beside the target and rename it over:
      // a reader sees the old value or the new one, never a partial file.
      const temporary = join(dir, `.${field}.${randomUUID()}.tmp`)
      try {
        await mkdir(dir, { recursive: true, mode: 0o700 })
        const handle = await open(temporary, 'wx', 0o600)
        try {
          await handle.chmod(0o600) // explicit, so the mode doesn't depend on the process's umask
          await handle.writeFile(value, 'utf8')
          await handle.sync()
        } finally {
          await handle.close()
        }
        await rename(temporary, file)
      } catch (error) {
        await unlink(temporary).catch(() => undefined)
        throw writeFailure(error, file)
      }
    },
  } satisfies SecretStore
}

function stripOneNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2)
  if (text.endsWith('\n')) return text.slice(0, -1)
  return text
}

function writeFailure(error: unknown, file: string): Error {
  const code = errorCode(error)
  if (code === 'EACCES' || code === 'EPERM') {
    return appError(
      'forbidden',
      `secret file ${file} can't be written by this process (${code}); check the directory's owner`,
      error,
    )
  }
  // The directory layout can't hold both a field file and a longer path through it (bao can).
  if (code === 'ENOTDIR' || code === 'EEXIST' || code === 'EISDIR') {
    return appError(
      'conflict',
      `secret file ${file} can't be written: a file or directory of another secret is in the way (${code})`,
      error,
    )
  }
  return appError('unavailable', `secret file ${file} can't be written (${code})`, error)
}

function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string')
    return error.code
  return 'unknown error'
}
