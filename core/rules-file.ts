/**
 * Reading a repo's rules file (`.hyperhive/review-classifier.yml` or `.json`)
 * into classifications. Pure: the caller reads the file and passes its text.
 *
 * Both formats are first turned into one small source tree (`SourceNode`),
 * so the rules of "Repo configuration" are checked once, with the same
 * messages, whatever the format. Every problem is reported, not just the
 * first, because a user fixing a file by hand wants the whole list at once.
 * Entries are named by 0-based index, like `classifications[1]`, the way a
 * JSON path or a program would index them.
 */

import { err, ok, type Result } from './result.ts'
import { type RulesProblem, validateRulesTree } from './rules-check.ts'
import { readJsonSource } from './rules-json.ts'
import { readYamlSource } from './rules-source.ts'
import type { Classification } from './types.ts'

export { DESCRIPTION_MAX_CHARS, MAX_CLASSIFICATIONS, NAME_MAX_CHARS } from './limits.ts'
// The checks themselves live in rules-check.ts, which the try-out page bundles without the YAML reader.
export {
  CLASSIFICATION_KEYS,
  type ClassificationKey,
  formatRulesProblem,
  formatRulesProblems,
  type RulesProblem,
  validateClassifications,
} from './rules-check.ts'

export const RULES_YML_PATH = '.hyperhive/review-classifier.yml'
export const RULES_JSON_PATH = '.hyperhive/review-classifier.json'
/** Larger files are refused before parsing: a real rules file is a few KB. */
export const RULES_MAX_BYTES = 1024 * 1024

/**
 * Which rules file to read, given which exist on the default branch:
 * the path, null for "the repo has no rules", or a problem when both exist.
 */
export function selectRulesFile(present: { yml: boolean; json: boolean }): Result<string | null, RulesProblem> {
  if (present.yml && present.json) {
    return err({
      file: `${RULES_YML_PATH} and ${RULES_JSON_PATH}`,
      at: null,
      detail: 'both exist; a repo holds one of the two, so neither is loaded',
    })
  }
  if (present.yml) return ok(RULES_YML_PATH)
  if (present.json) return ok(RULES_JSON_PATH)
  return ok(null)
}

export function parseRulesFile(path: string, text: string): Result<Classification[], RulesProblem[]> {
  const format = formatOf(path)
  if (format === null) {
    return err([{ file: path, at: null, detail: 'a rules file must end in .yml, .yaml or .json' }])
  }
  const oversize = sizeProblem(path, text)
  if (oversize !== null) return err([oversize])
  const tree = format === 'yaml' ? readYamlSource(path, text) : readJsonSource(path, text)
  if (!tree.ok) return tree
  return validateRulesTree(path, tree.value)
}

export function formatOf(path: string): 'yaml' | 'json' | null {
  const lower = path.toLowerCase()
  if (lower.endsWith('.yml') || lower.endsWith('.yaml')) return 'yaml'
  if (lower.endsWith('.json')) return 'json'
  return null
}

export { RULES_MAX_ITEMS, RULES_MAX_YAML_TOKENS, RULES_YAML_OPTIONS } from './rules-source.ts'

function sizeProblem(path: string, text: string): RulesProblem | null {
  // UTF-8 takes at least one byte per UTF-16 unit, so a long string is over
  // the cap without encoding it.
  const bytes = text.length > RULES_MAX_BYTES ? null : new TextEncoder().encode(text).byteLength
  if (bytes !== null && bytes <= RULES_MAX_BYTES) return null
  const size = bytes === null ? `at least ${text.length} bytes` : `${bytes} bytes`
  return { file: path, at: null, detail: `the file is ${size}, over the ${RULES_MAX_BYTES}-byte (1 MiB) limit` }
}
