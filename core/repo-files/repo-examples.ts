/**
 * What a repo holds by way of labelled examples at one commit (docs/behaviour.md,
 * "Labelled examples and reliability"), and the words for it: the `examples`
 * route, a try-out against the examples and the rules-change report say the
 * same thing about "no examples file", "both files" and "doesn't load", in
 * the rules file's words (source-file.ts words both refusals).
 */

import { repoName } from '../wire/repo.ts'
import type { Example, RepoRef } from '../wire/types.ts'
import { EXAMPLES_FILE, EXAMPLES_JSON_PATH, EXAMPLES_YML_PATH, type ExamplesProblem } from './examples-file.ts'
import { describeSourceRefusal } from './source-file.ts'

/** The examples file at a commit; every kind names the branch and the commit it was read at. */
export type LoadedExamples =
  | { kind: 'examples'; path: string; branch: string; commit: string; examples: Example[] }
  /** Neither examples file. */
  | { kind: 'none'; branch: string; commit: string }
  /** Both examples files, so neither loads. */
  | { kind: 'both'; branch: string; commit: string }
  /** One file that doesn't parse, breaks a rule, or isn't a readable file. */
  | { kind: 'invalid'; path: string; branch: string; commit: string; problems: ExamplesProblem[] }

/** Why examples that are there don't load, in the rules file's words (source-file.ts). */
export function describeExamplesRefusal(loaded: Extract<LoadedExamples, { kind: 'both' | 'invalid' }>): string {
  return describeSourceRefusal(EXAMPLES_FILE, loaded)
}

/** The words for a repo with neither examples file on `branch`, naming the path to add. */
export function describeNoExamples(repo: RepoRef, branch: string): string {
  return `${repoName(repo)} has no examples file on its default branch ${branch}: add ${EXAMPLES_YML_PATH} (or ${EXAMPLES_JSON_PATH}) there to label PRs`
}
