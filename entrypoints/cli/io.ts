import type { Runtime } from '../../core/wire/types.ts'
import type { ModelRuntime } from '../../ports/model-runtime.ts'

/** The command-line tool's I/O as every command gets it, and its two kinds of failure. */
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
  /**
   * The model runtimes `check` asks; left out, the real `claude` and `opencode`. Only a caller in
   * this process can set it (the tests' scripted model): nothing the command line or the
   * environment holds reaches it.
   */
  runtimes?: Record<Runtime, ModelRuntime>
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
