#!/usr/bin/env bun
/**
 * The command-line tool for rule authors:
 *   check [--base REF] [--rules PATH] ... run the rules against the local branch
 *   check --examples ...                  score the rules on the labelled PRs
 *   validate [PATH]                       check the rules (and examples) file, print them
 *   prompt --rules PATH --diff FILE ...   print exactly what the model would get
 * Exit codes of validate and prompt: 0 fine, 1 the input is wrong (problems
 * printed), 2 usage error; of prompt also 3, the PR is over the size budget.
 * Of check: 0 approve, 1 request changes, 2 no verdict for any reason, a
 * usage error included, so 1 means one thing.
 * Each command lives in its own file under cli/.
 */
import { EXAMPLES_YML_PATH } from '../core/repo-files/examples-file.ts'
import { RULES_YML_PATH } from '../core/repo-files/rules-file.ts'
import { DEFAULT_SETTINGS } from '../core/settings/settings.ts'
import { checkCommand } from './cli/check.ts'
import { type CliIo, InputError, UsageError } from './cli/io.ts'
import { promptCommand } from './cli/prompt.ts'
import { validateCommand } from './cli/validate.ts'

export type { CliIo } from './cli/io.ts'

const USAGE = `usage:
  review-classifier check [--base REF] [--head REF] [--rules PATH] [--json]
                          [--repo OWNER/NAME] [--title TEXT] [--pr N]
                          [--runtime api-key|subscription|acp]
                          [--model MODEL] [--effort LEVEL]
                          [--acp-base-url URL --acp-model MODEL]
      Runs the repo's rules against the commits on --head since its merge
      base with --base, prepared as the service prepares a PR (the same
      prompt, size budget and aggregation), and prints the review's table.
      Nothing is posted; no queue, forge or secret store is needed.
      --base   default: origin's default branch as git last fetched it
               (refs/remotes/origin/HEAD), else main.
      --head   default: HEAD. Only commits count, not uncommitted changes.
      --rules  default: ${RULES_YML_PATH} (or .json)
               as --base holds it, where the service reads it; name a file
               to try rules you are editing.
      --repo   default: owner/name from the origin URL, else local/<folder>.
      --title  default: the only commit's subject, else the branch's name.
      --pr     default: 1 (the prompt names a PR number; none is needed).
      The API key runtime (claude) needs ANTHROPIC_API_KEY, and uses
      ANTHROPIC_BASE_URL when set; --model defaults to ${DEFAULT_SETTINGS.model}, --effort
      (low, medium, high, xhigh, max) to the model's own. The subscription
      runtime (claude on a Claude subscription) needs CLAUDE_CODE_OAUTH_TOKEN
      (what \`claude setup-token\` prints), on the same --model and --effort.
      Without --runtime, the one of the two that is set is used; both set
      is a usage error.
      --acp-base-url (https://) and --acp-model use the ACP runtime
      (opencode) instead, with the key in ACP_API_KEY.
      Progress goes to stderr (LOG_LEVEL=debug adds the service's log).
      --json prints one JSON object with every row and the overall verdict
      on stdout instead of the table.
      Exit codes: 0 approve, 1 request changes, 2 no verdict: a rule with
      no answer, rules that don't load, no key, not a git repo, an unknown
      ref, or a usage error.
  review-classifier check --examples [--base REF] [--rules PATH] [--repeat N] [--json]
      Runs the rules against every PR labelled in the examples file
      (.hyperhive/review-classifier.examples.yml or .json, as --base holds
      it) and prints each rule's score: agree, disagree, abstain, false
      passes, flips, margin, suggested threshold. Each PR is read from
      refs/pull/<n>/head, fetched from origin, against its merge base with
      --base. --repeat (1 to 10, default 1) asks each PR that many times.
      Exit codes: 0 no answer disagrees with its label, 1 one does, 2 no
      verdict (a labelled PR with no answer, or anything check stops on).
  review-classifier validate [PATH]
      With no PATH, checks the rules file
      (${RULES_YML_PATH} or .json) in the current
      directory and, when there is one, the examples file
      (${EXAMPLES_YML_PATH} or .json), each
      even when the other has problems. Prints each as a table, and lists
      the labels naming no classification of the rules file (a warning:
      they are left out of the score). A PATH is checked alone: a name
      ending .examples.yml, .examples.yaml or .examples.json as an examples
      file (its labels against the current directory's rules file, if
      any), any other as a rules file. Exits 0 when every file checked is
      valid, or prints every problem (file, entry, what is wrong) and
      exits 1.
  review-classifier prompt --rules PATH --diff FILE [--commits FILE]
                           [--repo OWNER/NAME] [--pr N] [--title TEXT] [--json]
      Prints the system prompt and the content blocks each rule's question
      sends to the model. --diff takes a unified diff file (git diff BASE...HEAD).
      --commits takes the commit messages oldest
      first: a .json file holding an array of strings or of {"message": ...},
      or text with the messages separated by NUL characters, as
      'git log -z --reverse --format=%B BASE..HEAD' writes them.
      Either file may hold bytes that are not UTF-8: they are read as
      U+FFFD, as the service reads a PR's diff, and one line on stderr
      says so.
      --json prints one JSON object instead of the readable form.
      Exit codes: 0 printed, 1 the input is wrong (a file that can't be
      read, rules that don't load), 2 usage error, 3 the PR is over the
      size budget (nothing printed but the budget: a run on it redacts
      nothing and calls no model).
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
      case 'check':
        return await checkCommand(rest, io)
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
  // Ctrl-C once: check stops its model sessions (each in its own process group) and reports no verdict; twice: exit now.
  const interrupt = new AbortController()
  const onSignal = (): void => {
    if (interrupt.signal.aborted) process.exit(130)
    interrupt.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  process.exitCode = await runCli(process.argv.slice(2), {
    cwd: process.cwd(),
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    env: process.env,
    terminal: {
      outColumns: process.stdout.isTTY ? process.stdout.columns : null,
      errIsTty: process.stderr.isTTY === true,
      errColumns: process.stderr.isTTY ? process.stderr.columns : null,
    },
    signal: interrupt.signal,
  })
  process.exit()
}
