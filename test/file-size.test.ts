/**
 * A source file is one thing, and one thing fits in 400 lines (README,
 * "Architecture"): the TypeScript and the pages' stylesheets (`.css`, whose
 * parts the controller joins in the order its route lists). A file that grows
 * past that is holding a second thing: split it along that seam rather than
 * raise the bound. Tests are exempt: a suite's cases are many small things
 * side by side.
 */
import { describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, sourceFiles } from './support/source-files.ts'

const SOURCE_DIRS = ['core', 'ports', 'adapters', 'entrypoints', 'ui', 'bench', 'scripts']
const SOURCE_EXTENSIONS = ['.ts', '.css']
const MAX_SOURCE_LINES = 400

/** Lines as an editor counts them: a final newline ends the last line, it doesn't start another. */
function lineCount(text: string): number {
  if (text === '') return 0
  const lines = text.split('\n').length
  return text.endsWith('\n') ? lines - 1 : lines
}

describe('source files', () => {
  it('counts lines as an editor does', () => {
    expect(lineCount('')).toBe(0)
    expect(lineCount('a')).toBe(1)
    expect(lineCount('a\n')).toBe(1)
    expect(lineCount('a\nb\n')).toBe(2)
    expect(lineCount('a\n\n')).toBe(2)
  })

  it(`stay at or under ${MAX_SOURCE_LINES} lines, tests aside`, () => {
    const files = SOURCE_DIRS.flatMap((dir) => sourceFiles(dir, SOURCE_EXTENSIONS))
    // The walk finds the tree, so an empty list can't pass this by accident.
    expect(files).toContain(join('core', 'wire', 'schemas.ts'))
    expect(files).toContain(join('ui', 'styles', 'base.css'))
    const over = files
      .map((path) => ({ path, lines: lineCount(readFileSync(join(ROOT, path), 'utf8')) }))
      .filter(({ lines }) => lines > MAX_SOURCE_LINES)
      .map(({ path, lines }) => `${path}: ${lines} lines`)
    expect(over).toEqual([])
  })
})
