/**
 * The whole `prompt` command on a 1 MiB diff, as a person runs it: a fresh
 * process (Bun's start, the rules compiled, the file read, the budget, the
 * redaction when the PR fits, the output written), timed from the spawn to
 * the exit. Three diffs of about 1 MiB: this repository's code (over the
 * budget, so refused before any redaction: exit 3); code that fits once its
 * lockfile collapses (redacted and printed: exit 0); and one hostile line
 * (over the budget: exit 3); and one hostile line of 580 KB, which fits the
 * budget and so is redacted whole (every rule's keyword over and over).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../support/common.ts'
import { cut, repositoryCode, utf8 } from './contexts.ts'

export type CommandFigure = { name: string; bytes: number; exit: number | null; medianMs: number; maxMs: number }

const RULES = `classifications:
  - name: datetime
    description: All datetimes carry time zone information.
    polarity: positive
    threshold: 80
`

/** A package-lock.json section of about `bytes`, which collapses to one line. */
function lockfileSection(bytes: number): string {
  const lines: string[] = []
  for (let i = 0; lines.join('\n').length < bytes; i++) {
    lines.push(`+    "node_modules/pkg-${i}": {`, `+      "version": "1.${i}.0",`, '+    },')
  }
  return `diff --git a/package-lock.json b/package-lock.json\n--- a/package-lock.json\n+++ b/package-lock.json\n@@ -0,0 +1,${lines.length} @@\n${lines.join('\n')}\n`
}

export function promptCommandFigures(
  adversarialLineDiff: string,
  fittingLineDiff: string,
  runs: number,
): CommandFigure[] {
  const dir = mkdtempSync(join(tmpdir(), 'bench-prompt-'))
  try {
    const rules = join(dir, 'rules.yml')
    writeFileSync(rules, RULES)
    const code = repositoryCode()
    const fitting = cut(code, 580_000)
    const cases: [string, string][] = [
      ["1 MiB of this repository's code (over the budget)", cut(code, 1_048_576)],
      [
        '580 KB of code + a 470 KB lockfile (fits once collapsed)',
        fitting + lockfileSection(1_048_576 - utf8(fitting)),
      ],
      ['one hostile 1 MiB line (over the budget)', adversarialLineDiff],
      ['one hostile 580 KB line (fits the budget)', fittingLineDiff],
    ]
    return cases.map(([name, diff]) => {
      const file = join(dir, 'pr.diff')
      writeFileSync(file, diff)
      const ms: number[] = []
      let exit: number | null = null
      for (let i = 0; i <= runs; i++) {
        const started = performance.now()
        const run = spawnSync(
          process.execPath,
          ['run', join(ROOT, 'entrypoints/cli.ts'), 'prompt', '--rules', rules, '--diff', file],
          {
            stdio: ['ignore', 'ignore', 'ignore'],
          },
        )
        const took = performance.now() - started
        exit = run.status
        // The first run warms the file cache and Bun's transpiler cache; it is not counted.
        if (i > 0) ms.push(took)
      }
      ms.sort((a, b) => a - b)
      return { name, bytes: utf8(diff), exit, medianMs: ms[Math.floor(ms.length / 2)] ?? 0, maxMs: ms.at(-1) ?? 0 }
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
