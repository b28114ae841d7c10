/**
 * Reading a repo's rules file (`.hyperhive/review-classifier.yml` or `.json`)
 * into classifications. Pure: the caller reads the file and passes its text.
 *
 * Both formats are first turned into one small source tree (`SourceNode`),
 * so the rules of "Repo configuration" are checked once, with the same
 * messages, whatever the format. Every problem is reported, not just the
 * first, because a user fixing a file by hand wants the whole list at once.
 * Entries are named by 0-based index, like `classifications[1]`, the way a
 * JSON path or a program would index them. The examples file
 * (examples-file.ts) is read the same way, through source-file.ts.
 */

import type { Result } from '../base/result.ts'
import type { Classification } from '../wire/types.ts'
import { type ClassificationKey, type RulesProblem, validateRulesTree } from './rules-check.ts'
import { parseSourceFile, type RepoSourceFile, SOURCE_MAX_BYTES, selectSourceFile } from './source-file.ts'
import { RULES_SOURCE } from './yaml-reader.ts'

export { DESCRIPTION_MAX_CHARS, NAME_MAX_CHARS } from '../wire/limits.ts'
// The checks themselves live in rules-check.ts, which the try-out page bundles without the YAML reader.
export {
  CLASSIFICATION_KEYS,
  type ClassificationKey,
  formatRulesProblem,
  formatRulesProblems,
  type RulesProblem,
  validateClassifications,
} from './rules-check.ts'
export { formatOf } from './source-file.ts'
export { RULES_MAX_ITEMS, RULES_MAX_YAML_TOKENS, RULES_YAML_OPTIONS } from './yaml-reader.ts'

export const RULES_YML_PATH = '.hyperhive/review-classifier.yml'
export const RULES_JSON_PATH = '.hyperhive/review-classifier.json'
/** Larger files are refused before parsing: a real rules file is a few KB. */
export const RULES_MAX_BYTES = SOURCE_MAX_BYTES

/** The rules file, for what reads either of the repo's files alike (the controller's loader, `validate`). */
export const RULES_FILE: RepoSourceFile<Classification[], ClassificationKey> = {
  kind: RULES_SOURCE,
  name: 'rules file',
  contents: 'rules',
  paths: { yml: RULES_YML_PATH, json: RULES_JSON_PATH },
  check: validateRulesTree,
}

/**
 * Which rules file to read, given which exist on the default branch:
 * the path, null for "the repo has no rules", or a problem when both exist.
 */
export function selectRulesFile(present: { yml: boolean; json: boolean }): Result<string | null, RulesProblem> {
  return selectSourceFile(present, RULES_FILE.paths)
}

export function parseRulesFile(path: string, text: string): Result<Classification[], RulesProblem[]> {
  return parseSourceFile(RULES_FILE, path, text)
}
