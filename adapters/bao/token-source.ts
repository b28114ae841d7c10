/**
 * Where the OpenBao adapter gets its token: a fixed `BAO_TOKEN`, or a
 * `BAO_TOKEN_FILE` that an agent (bao agent, a Kubernetes projected secret)
 * rewrites as the token rotates. The file is read on every use, so a rotated
 * token counts from the next call without a restart.
 *
 * No message here ever holds a token: a bad one is described, never quoted.
 */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { appError } from '../../core/base/errors.ts'
import { err, ok, type Result } from '../../core/base/result.ts'

export type TokenSource = {
  /** The token to send with the next request; `unavailable` when it can't be had. */
  current(): Promise<string>
}

/**
 * What an HTTP header may carry and a bao token is made of (`s.…`, `hvs.…`,
 * `hvb.…`): visible ASCII. Checked up front so a stray newline fails here with
 * a clear message instead of inside `fetch`, whose message might quote it.
 */
const TOKEN_SHAPE = /^[\x21-\x7e]+$/

export function fixedTokenSource(token: string): TokenSource {
  return {
    async current() {
      return token
    },
  } satisfies TokenSource
}

/** Reads `file` on every call; surrounding whitespace (an editor's newline) is not part of the token. */
export function fileTokenSource(file: string): TokenSource {
  return {
    async current() {
      let text: string
      try {
        text = await readFile(file, 'utf8')
      } catch (error) {
        throw appError('unavailable', `the OpenBao token file ${file} can't be read (${errorCode(error)})`, error)
      }
      const token = text.trim()
      if (token === '') throw appError('unavailable', `the OpenBao token file ${file} is empty`)
      if (!TOKEN_SHAPE.test(token)) {
        throw appError(
          'unavailable',
          `the OpenBao token file ${file} holds characters a token can't have (whitespace or control characters inside it)`,
        )
      }
      return token
    },
  } satisfies TokenSource
}

/**
 * The token source the environment names, or one line naming the variable
 * that is wrong. Only called when `BAO_ADDR` is set; exactly one of
 * `BAO_TOKEN` and `BAO_TOKEN_FILE` must then be set (an empty value counts as
 * unset). A relative `BAO_TOKEN_FILE` is taken from the working directory at
 * start, so a later `chdir` can't change which file is read.
 */
export function tokenSourceFromEnv(env: Record<string, string | undefined>): Result<TokenSource, string> {
  const token = (env.BAO_TOKEN ?? '').trim()
  const file = env.BAO_TOKEN_FILE ?? ''
  if (token !== '' && file !== '') {
    return err('BAO_TOKEN and BAO_TOKEN_FILE are both set; set only one of them')
  }
  if (token !== '') {
    if (!TOKEN_SHAPE.test(token)) {
      return err("BAO_TOKEN holds characters an OpenBao token can't have (whitespace or control characters)")
    }
    return ok(fixedTokenSource(token))
  }
  if (file !== '') return ok(fileTokenSource(resolve(file)))
  return err('BAO_ADDR is set, so BAO_TOKEN or BAO_TOKEN_FILE must be set too')
}

function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code === 'ENOENT' ? 'it does not exist' : error.code
  }
  return 'read failed'
}
