#!/usr/bin/env bun
/**
 * The command-line tool for rule authors:
 *   validate [PATH]                      check a rules file and print its rules
 *   prompt --rules PATH --diff FILE ...  print exactly what the model would get
 * Exit codes: 0 fine, 1 the input is wrong (problems printed), 2 usage error.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { checkContextBudget } from '../core/budget.ts'
import { buildPromptFromContext, buildSharedContext, streamJsonUserLine } from '../core/prompt.ts'
import {
  formatRulesProblem,
  formatRulesProblems,
  parseRulesFile,
  RULES_JSON_PATH,
  RULES_MAX_BYTES,
  RULES_YML_PATH,
  selectRulesFile,
} from '../core/rules-file.ts'
import type { Classification, CommitMessage } from '../core/types.ts'

export type CliIo = {
  cwd: string
  out: (text: string) => void
  err: (text: string) => void
}

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

class UsageError extends Error {}
class InputError extends Error {}

/** Reads a file the user named, turning every failure into one clear line. */
function readTextFile(path: string, what: string, maxBytes?: number): string {
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

/** Loads and checks a rules file; problems become an InputError listing every one. */
function loadRules(path: string): Classification[] {
  const text = readTextFile(path, 'rules file', RULES_MAX_BYTES)
  const parsed = parseRulesFile(path, text)
  if (!parsed.ok) throw new InputError(formatRulesProblems(parsed.error))
  return parsed.value
}

function defaultRulesPath(cwd: string): string {
  const chosen = selectRulesFile({
    yml: existsSync(join(cwd, RULES_YML_PATH)),
    json: existsSync(join(cwd, RULES_JSON_PATH)),
  })
  if (!chosen.ok) throw new InputError(formatRulesProblem(chosen.error))
  if (chosen.value === null) {
    throw new InputError(`no rules file: neither ${RULES_YML_PATH} nor ${RULES_JSON_PATH} exists in ${cwd}`)
  }
  return join(cwd, chosen.value)
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/** A plain-text table; the description column is last so long text just runs on. */
export function formatRulesTable(rules: readonly Classification[]): string {
  const header = ['name', 'polarity', 'threshold', 'description']
  const lines = rules.map((r) => [r.name, r.polarity, String(r.threshold), oneLine(r.description)])
  const widths = header.slice(0, 3).map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)))
  const format = (cells: string[]): string =>
    cells
      .map((cell, i) => (i < 3 ? cell.padEnd(widths[i] ?? 0) : cell))
      .join('  ')
      .trimEnd()
  return [format(header), format(widths.map((w) => '-'.repeat(w)).concat('-'.repeat(11))), ...lines.map(format)].join(
    '\n',
  )
}

function validateCommand(args: string[], io: CliIo): number {
  if (args.length > 1) throw new UsageError('validate takes at most one PATH')
  const path = args[0] ?? defaultRulesPath(io.cwd)
  const rules = loadRules(path)
  io.out(`${path}: ${rules.length} classification${rules.length === 1 ? '' : 's'}\n\n${formatRulesTable(rules)}\n`)
  return 0
}

/** Commit messages from a .json array or NUL-separated text (git log -z). */
export function parseCommitsFile(path: string, text: string): CommitMessage[] {
  if (path.toLowerCase().endsWith('.json')) {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      throw new InputError(
        `commits file ${path} is not valid JSON: ${error instanceof Error ? error.message : 'parse error'}`,
      )
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

function promptCommand(args: string[], io: CliIo): number {
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
  const context = buildSharedContext({ repo: values.repo, pr, title: values.title, commits, diff })
  const prompts = rules.map((rule) => ({ name: rule.name, prompt: buildPromptFromContext(context, rule) }))
  const budget = checkContextBudget(context)

  if (values.json) {
    io.out(
      `${JSON.stringify(
        {
          system: prompts[0]?.prompt.system ?? '',
          budget: { ok: budget.ok, bytes: budget.bytes },
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
  }
  if (!budget.ok) {
    io.err(`over budget: ${budget.message}; a run on this PR calls no model and posts no verdict\n`)
    return 1
  }
  return 0
}

/** Runs one command line; returns the exit code. Never throws for bad input. */
export function runCli(argv: readonly string[], io: CliIo): number {
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
    if (
      error instanceof UsageError ||
      (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      io.err(`${error.message}\n\n${USAGE}`)
      return 2
    }
    throw error
  }
}

if (import.meta.main) {
  const code = runCli(process.argv.slice(2), {
    cwd: process.cwd(),
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  })
  process.exitCode = code
}
