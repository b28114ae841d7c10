/** `validate [PATH]`: checks a rules file and prints its rules as a table. */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { formatRulesProblem, RULES_JSON_PATH, RULES_YML_PATH, selectRulesFile } from '../../core/rules-file.ts'
import type { Classification } from '../../core/types.ts'
import { loadRules } from './input-files.ts'
import { type CliIo, InputError, UsageError } from './io.ts'

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

export function validateCommand(args: string[], io: CliIo): number {
  if (args.length > 1) throw new UsageError('validate takes at most one PATH')
  const path = args[0] ?? defaultRulesPath(io.cwd)
  const rules = loadRules(path)
  io.out(`${path}: ${rules.length} classification${rules.length === 1 ? '' : 's'}\n\n${formatRulesTable(rules)}\n`)
  return 0
}
