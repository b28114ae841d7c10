#!/usr/bin/env bun
/**
 * The command-line tool for rule authors:
 *   validate [PATH]                      check a rules file and print its rules
 *   prompt --rules PATH --diff FILE ...  print exactly what the model would get
 * Exit codes: 0 fine, 1 the input is wrong (problems printed), 2 usage error.
 * Each command lives in its own file under cli/.
 */
import { RULES_JSON_PATH, RULES_YML_PATH } from '../core/rules-file.ts'
import { promptCommand } from './cli/prompt.ts'
import { type CliIo, InputError, UsageError } from './cli/shared.ts'
import { validateCommand } from './cli/validate.ts'

export type { CliIo } from './cli/shared.ts'

const USAGE = `usage:
  review-classifier validate [PATH]
      Checks a rules file (default: ${RULES_YML_PATH} or ${RULES_JSON_PATH}
      in the current directory), prints its rules as a table and exits 0,
      or prints every problem and exits 1.
  review-classifier prompt --rules PATH --diff FILE [--commits FILE]
                           [--repo OWNER/NAME] [--pr N] [--title TEXT] [--json]
      Prints the system prompt and the content blocks each rule's question
      sends to the model. --diff takes a unified diff file (git diff BASE...HEAD).
      --commits takes the commit messages oldest
      first: a .json file holding an array of strings or of {"message": ...},
      or text with the messages separated by NUL characters, as
      'git log -z --reverse --format=%B BASE..HEAD' writes them.
      --json prints one JSON object instead of the readable form.
`

function isUsageError(error: unknown): error is Error {
  return (
    error instanceof UsageError ||
    (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
  )
}

/** Runs one command line; resolves with the exit code. Never rejects for bad input. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv
  try {
    switch (command) {
      case 'validate':
        return validateCommand(rest, io)
      case 'prompt':
        return promptCommand(rest, io)
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE)
        return command === undefined ? 2 : 0
      default:
        throw new UsageError(`unknown command "${command}"`)
    }
  } catch (error) {
    if (error instanceof InputError) {
      io.err(`${error.message}\n`)
      return 1
    }
    if (isUsageError(error)) {
      io.err(`${error.message}\n\n${USAGE}`)
      return 2
    }
    throw error
  }
}

if (import.meta.main) {
  process.exitCode = await runCli(process.argv.slice(2), {
    cwd: process.cwd(),
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  })
}
