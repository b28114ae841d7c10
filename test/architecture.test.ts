/**
 * The directions imports may take (README, "Architecture"): core imports
 * nothing of ours but core and touches no clock, randomness, environment or
 * I/O; ports import core only; adapters never import entrypoints; the
 * services (the controller's use cases and HTTP, the classifier) reach
 * adapters only through the ports their entrypoint file wires; neither
 * process imports the other, and what both run (entrypoints/common/) uses
 * ports only; HTTP never
 * reaches an adapter directly; the browser client (ui/) imports core and
 * itself only, so what it bundles is ours.
 *
 * Type-only imports count too: a type pulled across a boundary is a
 * dependency as much as a value is.
 */
import { describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { ROOT, sourceFiles } from './support/source-files.ts'

type ImportLine = { from: string; line: string }

/** Every `import … from`, `export … from`, side-effect import, dynamic `import()` and `require()` in a text. */
function importsOf(text: string): ImportLine[] {
  const found: ImportLine[] = []
  const pattern =
    /^\s*(?:import|export)\s+(?:type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/gm
  for (const m of text.matchAll(pattern)) {
    found.push({ from: m[1] ?? m[2] ?? m[3] ?? m[4] ?? '', line: m[0].trim() })
  }
  return found
}

/** What an import names, as a path from the project root for our own files, or the package name. */
function target(file: string, from: string): { kind: 'ours'; path: string } | { kind: 'package'; name: string } {
  if (!from.startsWith('.')) return { kind: 'package', name: from }
  return { kind: 'ours', path: relative(ROOT, resolve(ROOT, dirname(file), from)) }
}

type Rule = {
  /** Which files the rule is about (paths from the root). */
  files: (path: string) => boolean
  /** Whether one import of such a file is allowed. */
  allows: (to: ReturnType<typeof target>) => boolean
}

const under = (dir: string) => (path: string) => path.startsWith(`${dir}/`)
const PURE_PACKAGES = new Set(['yaml', '@sinclair/typebox', '@sinclair/typebox/value', 're2js'])

const RULES: Record<string, Rule> = {
  'core imports only core and pure packages': {
    files: under('core'),
    allows: (to) => (to.kind === 'package' ? PURE_PACKAGES.has(to.name) : under('core')(to.path)),
  },
  'ports import only core and ports': {
    files: under('ports'),
    allows: (to) => to.kind === 'ours' && (under('core')(to.path) || under('ports')(to.path)),
  },
  'adapters never import entrypoints': {
    files: under('adapters'),
    allows: (to) => to.kind === 'package' || !under('entrypoints')(to.path),
  },
  "the controller's use cases use ports, never adapters or HTTP": {
    files: under('entrypoints/controller/usecases'),
    allows: (to) =>
      to.kind === 'package' || !(under('adapters')(to.path) || under('entrypoints/controller/http')(to.path)),
  },
  "the controller's HTTP never reaches an adapter directly": {
    files: under('entrypoints/controller/http'),
    allows: (to) => to.kind === 'package' || !under('adapters')(to.path),
  },
  'the browser client imports only core and itself, no package': {
    files: under('ui'),
    allows: (to) => to.kind === 'ours' && (under('core')(to.path) || under('ui')(to.path)),
  },
  'the classifier never imports the controller': {
    files: under('entrypoints/classifier'),
    allows: (to) => to.kind === 'package' || !under('entrypoints/controller')(to.path),
  },
  'the controller never imports the classifier': {
    files: under('entrypoints/controller'),
    allows: (to) => to.kind === 'package' || !under('entrypoints/classifier')(to.path),
  },
  'what both processes share uses ports, never adapters or either process': {
    files: under('entrypoints/common'),
    allows: (to) =>
      to.kind === 'package' ||
      !['adapters', 'entrypoints/controller', 'entrypoints/classifier'].some((dir) => under(dir)(to.path)),
  },
  'createController and createClassifier take their adapters as ports': {
    files: (path) => path === 'entrypoints/controller/service.ts' || under('entrypoints/classifier')(path),
    allows: (to) => to.kind === 'package' || !under('adapters')(to.path),
  },
}

const FILES = ['core', 'ports', 'adapters', 'entrypoints', 'ui'].flatMap((dir) => sourceFiles(dir))

describe('import directions', () => {
  it('has the layers to check', () => {
    for (const rule of Object.values(RULES)) expect(FILES.filter(rule.files).length).toBeGreaterThan(0)
  })

  for (const [name, rule] of Object.entries(RULES)) {
    it(name, () => {
      const broken = FILES.filter(rule.files).flatMap((file) =>
        importsOf(readFileSync(join(ROOT, file), 'utf8'))
          .filter((imp) => !rule.allows(target(file, imp.from)))
          .map((imp) => `${file}: ${imp.line}`),
      )
      expect(broken).toEqual([])
    })
  }

  it('would catch an adapter imported from core, a type-only import from ports included', () => {
    const sample =
      "import { createMemoryKv } from '../adapters/memory/kv.ts'\nimport type { Forge } from '../ports/forge.ts'\n"
    const rule = RULES['core imports only core and pure packages']
    const broken = importsOf(sample).filter((imp) => !rule?.allows(target('core/x.ts', imp.from)))
    expect(broken.map((imp) => imp.from)).toEqual(['../adapters/memory/kv.ts', '../ports/forge.ts'])
  })
})

describe('core purity', () => {
  for (const file of FILES.filter(under('core'))) {
    it(`${file} touches no clock, randomness, environment or I/O`, () => {
      const code = readFileSync(join(ROOT, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/\/\/.*$/gm, '')
      const forbidden = [
        /\bDate\.now\(/,
        /\bnew Date\(\s*\)/,
        /\bMath\.random\(/,
        /\bcrypto\./,
        /\bprocess\./,
        /\bBun\./,
        /\bfetch\(/,
        /\bsetTimeout\(/,
        /\bsetInterval\(/,
        /\bconsole\./,
      ]
      expect(forbidden.filter((re) => re.test(code)).map(String)).toEqual([])
    })
  }
})

/** A file's folder under `root` (its first path segment below it), or '' for a file directly in it. */
function folderUnder(root: string, path: string): string {
  const rest = path.slice(root.length + 1)
  const slash = rest.indexOf('/')
  return slash === -1 ? '' : rest.slice(0, slash)
}

/** The import arrows between the folders under `root` (docs/layout.md), each once. */
function folderArrows(root: string): Map<string, Set<string>> {
  const arrows = new Map<string, Set<string>>()
  for (const file of FILES.filter(under(root))) {
    const from = folderUnder(root, file)
    for (const imp of importsOf(readFileSync(join(ROOT, file), 'utf8'))) {
      const to = target(file, imp.from)
      if (to.kind !== 'ours' || !under(root)(to.path)) continue
      const toFolder = folderUnder(root, to.path)
      if (toFolder === from) continue
      arrows.set(from, (arrows.get(from) ?? new Set()).add(toFolder))
    }
  }
  return arrows
}

/** The import arrows between the files of the production tree, type-only imports included. */
function fileArrows(): Map<string, Set<string>> {
  const arrows = new Map<string, Set<string>>()
  for (const file of FILES) {
    for (const imp of importsOf(readFileSync(join(ROOT, file), 'utf8'))) {
      const to = target(file, imp.from)
      if (to.kind === 'ours') arrows.set(file, (arrows.get(file) ?? new Set()).add(to.path))
    }
  }
  return arrows
}

/** The folders (or files) on some circle of arrows, or none. */
function foldersOnACircle(arrows: Map<string, Set<string>>): string[] {
  const reaches = (from: string, goal: string, seen = new Set<string>()): boolean => {
    for (const next of arrows.get(from) ?? []) {
      if (next === goal) return true
      if (!seen.has(next)) {
        seen.add(next)
        if (reaches(next, goal, seen)) return true
      }
    }
    return false
  }
  return [...arrows.keys()].filter((folder) => reaches(folder, folder)).sort()
}

describe('capability folders (docs/layout.md)', () => {
  const ROOTS = ['core', 'entrypoints/controller/usecases']

  for (const root of ROOTS) {
    it(`${root} keeps every file in a capability folder`, () => {
      expect(FILES.filter(under(root)).filter((file) => folderUnder(root, file) === '')).toEqual([])
    })

    it(`${root}'s folders import one another with no circle`, () => {
      const arrows = folderArrows(root)
      expect(arrows.size).toBeGreaterThan(2)
      expect(foldersOnACircle(arrows)).toEqual([])
    })
  }

  it('would catch a circle of two folders', () => {
    const arrows = new Map([
      ['run', new Set(['settings'])],
      ['settings', new Set(['run', 'wire'])],
      ['wire', new Set<string>()],
    ])
    expect(foldersOnACircle(arrows)).toEqual(['run', 'settings'])
  })
})

describe('import circles', () => {
  it('no file of core, ports, adapters, entrypoints or ui imports itself through other files', () => {
    const arrows = fileArrows()
    expect(arrows.size).toBeGreaterThan(100)
    expect(foldersOnACircle(arrows)).toEqual([])
  })

  it('would catch a circle of three files, and not a file two others import', () => {
    const arrows = new Map([
      ['entrypoints/cli/check.ts', new Set(['entrypoints/cli/examples.ts', 'core/base/text.ts'])],
      ['entrypoints/cli/examples.ts', new Set(['entrypoints/cli/prompt.ts', 'core/base/text.ts'])],
      ['entrypoints/cli/prompt.ts', new Set(['entrypoints/cli/check.ts'])],
      ['core/base/text.ts', new Set<string>()],
    ])
    expect(foldersOnACircle(arrows)).toEqual([
      'entrypoints/cli/check.ts',
      'entrypoints/cli/examples.ts',
      'entrypoints/cli/prompt.ts',
    ])
  })
})
