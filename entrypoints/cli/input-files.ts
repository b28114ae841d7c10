/** Reading the files a user names on the command line: a text file, a rules or examples file, each failure one clear line. */
import { readFileSync, statSync } from 'node:fs'
import { RULES_FILE } from '../../core/repo-files/rules-file.ts'
import { parseSourceFile, type RepoSourceFile, SOURCE_MAX_BYTES } from '../../core/repo-files/source-file.ts'
import { formatSourceProblems } from '../../core/repo-files/source-tree.ts'
import { type DecodedText, decodeUtf8 } from '../../core/run/utf8.ts'
import type { Classification } from '../../core/wire/types.ts'
import { InputError } from './io.ts'

/** Reads a file the user named, turning every failure into one clear line; UTF-8 only. */
export function readTextFile(path: string, what: string, maxBytes?: number): string {
  const bytes = readBytes(path, what, maxBytes)
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new InputError(`${what} ${path} is not valid UTF-8 text`)
  }
}

/**
 * Reads a file of a PR's text (a diff, commit messages) as the service reads
 * a PR's diff: bytes that are not UTF-8 become U+FFFD rather than a refusal
 * (core/run/utf8.ts); the caller says so when `valid` is false.
 */
export function readPrTextFile(path: string, what: string): DecodedText {
  return decodeUtf8(readBytes(path, what))
}

function readBytes(path: string, what: string, maxBytes?: number): Uint8Array {
  let size: number
  try {
    const stat = statSync(path)
    if (!stat.isFile()) throw new InputError(`${what} ${path} is not a file`)
    size = stat.size
  } catch (error) {
    if (error instanceof InputError) throw error
    throw new InputError(`${what} ${path} cannot be read: ${describeFsError(error)}`)
  }
  if (maxBytes !== undefined && size > maxBytes) {
    throw new InputError(`${what} ${path} is ${size} bytes, over the ${maxBytes}-byte limit; it is not read`)
  }
  try {
    return readFileSync(path)
  } catch (error) {
    throw new InputError(`${what} ${path} cannot be read: ${describeFsError(error)}`)
  }
}

function describeFsError(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') {
    return error.code === 'ENOENT' ? 'no such file' : error.code === 'EACCES' ? 'permission denied' : error.code
  }
  return 'unknown error'
}

/** Loads and checks one of the repo's files; problems become an InputError listing every one, a line each. */
export function loadSource<T, Key extends string>(path: string, file: RepoSourceFile<T, Key>): T {
  const text = readTextFile(path, file.name, SOURCE_MAX_BYTES)
  const parsed = parseSourceFile(file, path, text)
  if (!parsed.ok) throw new InputError(formatSourceProblems(parsed.error))
  return parsed.value
}

/** Loads and checks a rules file, as {@link loadSource} does. */
export function loadRules(path: string): Classification[] {
  return loadSource(path, RULES_FILE)
}
