/** What the command-line tool's commands share: its I/O, its two kinds of failure, reading the files a user names. */
import { readFileSync, statSync } from 'node:fs'
import { formatRulesProblems, parseRulesFile, RULES_MAX_BYTES } from '../../core/rules-file.ts'
import type { Classification } from '../../core/types.ts'

export type CliIo = {
  cwd: string
  out: (text: string) => void
  err: (text: string) => void
  /** The environment `check` reads its keys, pass-through variables and git's from; empty when left out. */
  env?: Record<string, string | undefined>
  /** What the terminal allows; left out, output is laid out as for a pipe or a log. */
  terminal?: TerminalInfo
  /** Aborted on Ctrl-C: `check` stops its model sessions and reports no verdict. */
  signal?: AbortSignal
}

export type TerminalInfo = {
  /** stdout's columns when it is a terminal; null for a pipe or a file (no width limit). */
  outColumns: number | null
  /** stderr is a terminal: progress may redraw one status line in place. */
  errIsTty: boolean
  /** stderr's columns when it is a terminal. */
  errColumns: number | null
}

/** The command line is wrong: the message and the usage are printed. */
export class UsageError extends Error {}

/** The input is wrong (a file, the repo, a key): its one clear message is printed. */
export class InputError extends Error {}

/** Reads a file the user named, turning every failure into one clear line. */
export function readTextFile(path: string, what: string, maxBytes?: number): string {
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
  const bytes = readFileSync(path)
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new InputError(`${what} ${path} is not valid UTF-8 text`)
  }
}

function describeFsError(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') {
    return error.code === 'ENOENT' ? 'no such file' : error.code === 'EACCES' ? 'permission denied' : error.code
  }
  return 'unknown error'
}

/** Loads and checks a rules file; problems become an InputError listing every one, a line each. */
export function loadRules(path: string): Classification[] {
  const text = readTextFile(path, 'rules file', RULES_MAX_BYTES)
  const parsed = parseRulesFile(path, text)
  if (!parsed.ok) throw new InputError(formatRulesProblems(parsed.error))
  return parsed.value
}
