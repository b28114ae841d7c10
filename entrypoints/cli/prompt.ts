/** `prompt --rules PATH --diff FILE ...`: prints exactly what the model would get for a PR. */
import { parseArgs } from 'node:util'
import { checkContextBudget } from '../../core/budget.ts'
import { describeError } from '../../core/errors.ts'
import { buildPromptFromContext, prepareSharedContext, streamJsonUserLine } from '../../core/prompt.ts'
import { redactionHeadline, redactionSummary } from '../../core/redaction-report.ts'
import type { CommitMessage } from '../../core/types.ts'
import { loadRules, readTextFile } from './input-files.ts'
import { type CliIo, InputError, UsageError } from './io.ts'

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

export function promptCommand(args: string[], io: CliIo): number {
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

  const rules = loadRules(values.rules)
  const diff = readTextFile(values.diff, 'diff file')
  const commits =
    values.commits === undefined ? [] : parseCommitsFile(values.commits, readTextFile(values.commits, 'commits file'))
  // Redacted as a run redacts it: what is printed is what would leave.
  const shared = prepareSharedContext({ repo: values.repo, pr, title: values.title, commits, diff })
  const { context } = shared
  const redaction = redactionSummary(shared)
  const prompts = rules.map((rule) => ({ name: rule.name, prompt: buildPromptFromContext(context, rule) }))
  const budget = checkContextBudget(context)

  if (values.json) {
    io.out(
      `${JSON.stringify(
        {
          system: prompts[0]?.prompt.system ?? '',
          budget: { ok: budget.ok, bytes: budget.bytes },
          redaction,
          classifications: prompts.map((p) => ({ name: p.name, stdin: streamJsonUserLine(p.prompt.blocks) })),
        },
        null,
        2,
      )}\n`,
    )
  } else {
    const first = prompts[0]
    const parts = [
      `=== system prompt\n${first?.prompt.system ?? ''}`,
      `=== block 1 (shared by every rule, cache breakpoint after it)\n${context}`,
    ]
    for (const { name, prompt } of prompts) parts.push(`=== block 2 for "${name}"\n${prompt.blocks[1].text}`)
    io.out(`${parts.join('\n\n')}\n`)
    const headline = redactionHeadline(redaction)
    if (headline !== null) io.err(`${headline}\n`)
  }
  if (!budget.ok) {
    io.err(`over budget: ${budget.message}; a run on this PR calls no model and posts no verdict\n`)
    return 1
  }
  return 0
}
