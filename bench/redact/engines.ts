/**
 * The three engines on one line, the rules alone: every gitleaks rule's
 * pattern asked whether it matches the line, as the scan's first step does:
 * re2js (what the scan uses) and re2-wasm when it is installed (it is not a
 * dependency: `npm install --no-save re2-wasm@1.0.2` to include it). What
 * JavaScript's RegExp took on the same line is the "before" redaction of
 * bench/redact.ts, run in a child process it can stop.
 */
import { RE2JS } from 're2js'
import vendored from '../../core/redaction/gitleaks/rules.json' with { type: 'json' }

export type EngineFigure = { engine: string; compileMs: number | null; matchMs: number | null; note: string }

const SOURCES: readonly string[] = vendored.rules.map((rule) => rule.regex.source)

type Tester = { test(text: string): boolean }

function timeAll(testers: readonly Tester[], line: string): number {
  const started = performance.now()
  for (const tester of testers) tester.test(line)
  return performance.now() - started
}

/** re2js and, when installed, re2-wasm: compile every rule, then the first and a second pass over the line. */
export async function linearEngines(line: string): Promise<EngineFigure[]> {
  const out: EngineFigure[] = []
  let started = performance.now()
  const re2js = SOURCES.map((source) => RE2JS.compile(source))
  const re2jsCompile = performance.now() - started
  timeAll(re2js, line)
  out.push({
    engine: 're2js 2.10.0',
    compileMs: re2jsCompile,
    matchMs: timeAll(re2js, line),
    note: 'second pass (the first builds the DFAs)',
  })
  let wasm: { RE2: new (source: string, flags: string) => Tester } | null = null
  try {
    wasm = await import('re2-wasm' as string)
  } catch {
    out.push({ engine: 're2-wasm 1.0.2', compileMs: null, matchMs: null, note: 'not installed' })
  }
  if (wasm !== null) {
    started = performance.now()
    const compiled = SOURCES.map((source) => new (wasm as NonNullable<typeof wasm>).RE2(source, 'u'))
    const wasmCompile = performance.now() - started
    timeAll(compiled, line)
    out.push({
      engine: 're2-wasm 1.0.2',
      compileMs: wasmCompile,
      matchMs: timeAll(compiled, line),
      note: 'second pass; each call copies the line into wasm memory',
    })
  }
  return out
}
