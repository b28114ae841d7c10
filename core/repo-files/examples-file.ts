/**
 * Reading a repo's examples file (`.hyperhive/review-classifier.examples.yml`
 * or `.json`) into labelled PRs: the same readers, limits and words as the
 * rules file (source-file.ts), and the checks of examples-check.ts. Pure:
 * the caller reads the file and passes its text.
 */

import type { Result } from '../base/result.ts'
import type { Example } from '../wire/types.ts'
import {
  EXAMPLE_LABELS_MAX,
  EXAMPLES_MAX,
  type ExampleKey,
  type ExamplesProblem,
  validateExamplesTree,
} from './examples-check.ts'
import { parseSourceFile, type RepoSourceFile, selectSourceFile } from './source-file.ts'
import type { SourceKind } from './source-tree.ts'

export {
  type AppliedLabels,
  applyLabels,
  describeUnknownLabel,
  type ExampleKey,
  type ExamplesProblem,
  NOTE_MAX_CHARS,
  validateExamples,
} from './examples-check.ts'

export const EXAMPLES_YML_PATH = '.hyperhive/review-classifier.examples.yml'
export const EXAMPLES_JSON_PATH = '.hyperhive/review-classifier.examples.json'
/**
 * The most keys and list entries an examples file may hold before it is
 * read further. A full file holds 701 (one key, fifty entries of three keys
 * and ten labels); the slack lets a file of a hundred entries still hear
 * that it has too many.
 */
export const EXAMPLES_MAX_ITEMS = 2_000
/**
 * The most YAML tokens, which bound the work of reading as for the rules
 * file: a full file, with a comment on every entry and label and a
 * 500-character note on every entry, needs about 5,000.
 */
export const EXAMPLES_MAX_YAML_TOKENS = 20_000

export const EXAMPLES_SOURCE: SourceKind = {
  one: 'an examples file',
  many: 'examples files',
  key: 'examples',
  maxItems: EXAMPLES_MAX_ITEMS,
  itemsHint: `an examples file holds one key and a list of at most ${EXAMPLES_MAX} entries of 3 keys and ${EXAMPLE_LABELS_MAX} labels`,
  maxYamlTokens: EXAMPLES_MAX_YAML_TOKENS,
  tokensHint: 'a full examples file needs about 5,000',
}

/** The examples file, for what reads either of the repo's files alike (the controller's loader, `validate`). */
export const EXAMPLES_FILE: RepoSourceFile<Example[], ExampleKey> = {
  kind: EXAMPLES_SOURCE,
  name: 'examples file',
  contents: 'examples',
  paths: { yml: EXAMPLES_YML_PATH, json: EXAMPLES_JSON_PATH },
  check: validateExamplesTree,
}

/**
 * Which examples file to read, given which exist on the default branch: the
 * path, null for "the repo has none", or a problem when both exist.
 */
export function selectExamplesFile(present: { yml: boolean; json: boolean }): Result<string | null, ExamplesProblem> {
  return selectSourceFile(present, EXAMPLES_FILE.paths)
}

export function parseExamplesFile(path: string, text: string): Result<Example[], ExamplesProblem[]> {
  return parseSourceFile(EXAMPLES_FILE, path, text)
}
