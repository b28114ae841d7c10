import { describe, expect, it } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

const coreDir = resolve(import.meta.dir, '../../core')
const coreFiles = readdirSync(coreDir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ name: f, text: readFileSync(join(coreDir, f), 'utf8') }))

/** Packages core may import: pure parsing and schema libraries. */
const ALLOWED_PACKAGES = new Set(['yaml', '@sinclair/typebox', '@sinclair/typebox/value'])

type ImportLine = { typeOnly: boolean; from: string; line: string }

function importsOf(text: string): ImportLine[] {
  const found: ImportLine[] = []
  const pattern =
    /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/gm
  for (const m of text.matchAll(pattern)) {
    const from = m[3] ?? m[4] ?? m[5] ?? m[6] ?? ''
    found.push({ typeOnly: m[2] !== undefined, from, line: m[0].trim() })
  }
  return found
}

describe('core purity', () => {
  it('has source files to check', () => {
    expect(coreFiles.length).toBeGreaterThan(3)
  })

  for (const file of coreFiles) {
    it(`${file} imports only core, types from ports, and pure packages`, () => {
      const bad = importsOf(file.text).filter((imp) => {
        if (imp.from.startsWith('./')) return false
        if (imp.from.startsWith('../ports/')) return !imp.typeOnly
        if (imp.from.startsWith('.')) return true // adapters, entrypoints, anything outside core
        return !ALLOWED_PACKAGES.has(imp.from)
      })
      expect(bad.map((b) => b.line)).toEqual([])
    })

    it(`${file} touches no clock, randomness, environment or I/O`, () => {
      const code = file.text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')
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

  it('the import check catches an adapter import', () => {
    const sample =
      "import { createMemoryKv } from '../adapters/memory/kv'\nimport type { Forge } from '../ports/forge'\n"
    const imps = importsOf(sample)
    expect(imps).toHaveLength(2)
    expect(imps[0]).toMatchObject({ from: '../adapters/memory/kv', typeOnly: false })
    expect(imps[1]).toMatchObject({ from: '../ports/forge', typeOnly: true })
  })
})
