/** The project's own source files, for the tests that hold the whole tree to a rule (imports, file size). */
import { readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** The project root; the paths {@link sourceFiles} answers are relative to it. */
export const ROOT = resolve(import.meta.dir, '../..')

/** Every file below `dir` (a path from the root) whose name ends in one of `extensions`, as a path from the root. */
export function sourceFiles(dir: string, extensions: readonly string[] = ['.ts']): string[] {
  const out: string[] = []
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name)
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sourceFiles(path, extensions))
    else if (extensions.some((extension) => name.endsWith(extension))) out.push(path)
  }
  return out
}
