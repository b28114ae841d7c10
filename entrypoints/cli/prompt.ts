/** `prompt --rules PATH --diff FILE ...`: prints exactly what the model would get for a PR. */

import { parseArgs } from 'node:util'
import { describeError } from '../../core/base/errors.ts'
import { redactSharedContext } from '../../core/redaction/redact.ts'
import { redactionHeadline, redactionSummary } from '../../core/redaction/redaction-report.ts'
import { budgetCheckOf, checkContextBudget } from '../../core/run/budget.ts'
import {
  assembleSharedContext,
  buildPromptFromContext,
  prepareContextParts,
  SYSTEM_PROMPT,
  streamJsonUserLine,
} from '../../core/run/prompt.ts'
import { OUT_OF_SCOPE_REASON, runScopes } from '../../core/run/scope.ts'
import { scopesAsSent } from '../../core/run/scope-question.ts'
import { invalidUtf8Note } from '../../core/run/utf8.ts'
import type { CommitMessage } from '../../core/wire/types.ts'
import { loadRules, readPrTextFile } from './input-files.ts'
import { type CliIo, InputError, UsageError } from './io.ts'

/**
 * `prompt`'s exit codes (README, "CLI"): an over-budget PR has its own, so
 * a script can tell "this PR would get no verdict" from "the input is wrong".
 */
export const PROMPT_EXIT = { ok: 0, input: 1, usage: 2, overBudget: 3 } as const

/** Commit messages from a .json array or NUL-separated text (git log -z). */
export function parseCommitsFile(path: string, text: string): CommitMessage[] {
  if (path.toLowerCase().endsWith('.json')) {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      throw new InputError(`commits file ${path} is not valid JSON: ${describeError(error)}`)
    }
    if (!Array.isArray(value)) throw new InputError(`commits file ${path} must hold a JSON array`)
    return value.map((item: unknown, index) => {
      if (typeof item === 'string') return { message: item }
      if (typeof item === 'object' && item !== null && 'message' in item && typeof item.message === 'string') {
        return { message: item.message }
      }
      throw new InputError(`commits file ${path}: entry ${index} is neither a string nor {"message": string}`)
    })
  }
  return text
    .split('\0')
    .map((message) => message.replace(/^\n+/, ''))
    .filter((message) => message.trim() !== '')
    .map((message) => ({ message }))
}

/** `prompt`'s arguments, checked: the paths it needs and a PR number and repo as a run has them. */
function promptArgs(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      rules: { type: 'string' },
      diff: { type: 'string' },
      commits: { type: 'string' },
      repo: { type: 'string', default: 'owner/name' },
      pr: { type: 'string', default: '1' },
      title: { type: 'string', default: '' },
      json: { type: 'boolean', default: false },
    },
  })
  if (positionals.length > 0) throw new UsageError(`prompt takes no positional argument, got "${positionals[0]}"`)
  if (values.rules === undefined) throw new UsageError('prompt needs --rules PATH')
  if (values.diff === undefined) throw new UsageError('prompt needs --diff FILE')
  const pr = Number(values.pr)
  if (!Number.isSafeInteger(pr) || pr < 1)
    throw new UsageError(`--pr must be a positive whole number, got "${values.pr}"`)
  if (!/^[^/\s]+\/[^/\s]+$/.test(values.repo)) throw new UsageError(`--repo must be owner/name, got "${values.repo}"`)
  return { ...values, rules: values.rules, diff: values.diff, pr }
}

export function promptCommand(args: string[], io: CliIo): number {
  const { pr, ...values } = promptArgs(args)
  const rules = loadRules(values.rules)
  const diff = readPrText(values.diff, 'diff file', io)
  const commits =
    values.commits === undefined ? [] : parseCommitsFile(values.commits, readPrText(values.commits, 'commits file', io))
  const input = { repo: values.repo, pr, title: values.title, commits, diff }
  // As a run: the budget first, on the unredacted context, so a PR over it is
  // neither redacted nor printed (a run on it sends nothing).
  const parts = prepareContextParts(input)
  const unredacted = budgetCheckOf(parts.bytes)
  if (!unredacted.ok) {
    if (values.json) {
      const document = {
        system: SYSTEM_PROMPT,
        budget: { ok: false, bytes: unredacted.bytes },
        redaction: null,
        classifications: [],
      }
      io.out(`${JSON.stringify(document, null, 2)}\n`)
    }
    io.err(
      `over budget: ${unredacted.message}; a run on this PR redacts nothing, calls no model and posts no verdict\n`,
    )
    return PROMPT_EXIT.overBudget
  }
  // Redacted as a run redacts it: what is printed is what would leave.
  const redacted = redactSharedContext(parts.redaction)
  const shared = assembleSharedContext(input, redacted)
  const { context } = shared
  const redaction = redactionSummary(shared)
  // Scoped as a run scopes them: a rule no changed file of the diff is in scope of is not asked.
  // The names a question lists as the redaction left them in the diff (scope-question.ts).
  const scopes = scopesAsSent(runScopes(rules, diff), redacted.diff.join(''))
  const inScope = rules.filter((rule) => scopes.get(rule.name)?.inScope !== false)
  const notAsked = rules
    .filter((rule) => !inScope.includes(rule))
    .map((rule) => ({ name: rule.name, reason: OUT_OF_SCOPE_REASON }))
  const prompts = inScope.map((rule) => ({
    name: rule.name,
    prompt: buildPromptFromContext(context, rule, scopes.get(rule.name)?.files ?? null),
  }))
  const budget = checkContextBudget(context)

  if (values.json) {
    io.out(
      `${JSON.stringify(
        {
          system: SYSTEM_PROMPT,
          budget: { ok: budget.ok, bytes: budget.bytes },
          redaction,
          classifications: prompts.map((p) => ({ name: p.name, stdin: streamJsonUserLine(p.prompt.blocks) })),
          not_asked: notAsked,
        },
        null,
        2,
      )}\n`,
    )
  } else {
    const parts = [
      `=== system prompt\n${SYSTEM_PROMPT}`,
      `=== block 1 (shared by every rule, cache breakpoint after it)\n${context}`,
    ]
    for (const { name, prompt } of prompts) parts.push(`=== block 2 for "${name}"\n${prompt.blocks[1].text}`)
    for (const { name, reason } of notAsked) parts.push(`=== not asked: "${name}" (${reason})`)
    if (prompts.length === 0) parts.push('=== no rule is asked: the run would approve with no model call')
    io.out(`${parts.join('\n\n')}\n`)
    const headline = redactionHeadline(redaction)
    if (headline !== null) io.err(`${headline}\n`)
  }
  if (!budget.ok) {
    io.err(`over budget: ${budget.message}; a run on this PR calls no model and posts no verdict\n`)
    return PROMPT_EXIT.overBudget
  }
  return PROMPT_EXIT.ok
}

/** A file of the PR's text, read as the service reads a diff; one line on stderr when it was not UTF-8. */
function readPrText(path: string, what: string, io: CliIo): string {
  const file = readPrTextFile(path, what)
  if (!file.valid) io.err(`${invalidUtf8Note(`${what} ${path}`)}\n`)
  return file.text
}
