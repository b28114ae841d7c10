/**
 * Writes core/redaction/reach.json: for every rule, what core/redaction/
 * reach.ts works out from its compiled program (whether every match holds
 * a keyword, how far a match reaches from it), so a fresh process need not
 * walk every program again. Run it after changing a rule, its keywords, or
 * re2js:
 *
 *   bun scripts/redaction-reach.ts
 *
 * test/core/redaction/redact-windows.test.ts works every rule's reach out again and
 * checks that reach.json holds it; a program whose size differs from the
 * one recorded is worked out at run time instead.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type StoredReach, stored } from '../core/redaction/reach.ts'
import { RULES } from '../core/redaction/rules.ts'

export const REACH_PATH = join(import.meta.dir, '../core/redaction/reach.json')

/** Every rule's reach, by its kind, worked out now. */
export function reaches(): Record<string, StoredReach> {
  return Object.fromEntries(RULES.map((rule) => [rule.kind, stored(rule.scan, rule.keywords)]))
}

if (import.meta.main) {
  writeFileSync(REACH_PATH, `${JSON.stringify({ re2js: '2.10.0', rules: reaches() }, null, 2)}\n`)
  // Formatted as the linter wants it; the test compares the parsed JSON, so the layout is free.
  const biome = Bun.spawnSync([join(import.meta.dir, '../node_modules/.bin/biome'), 'format', '--write', REACH_PATH])
  if (biome.exitCode !== 0) throw new Error(`biome format failed: ${biome.stderr.toString()}`)
  console.log(`wrote ${REACH_PATH}`)
}
